/**
 * Runs one hook command the way `bash` runs a command: `bash -c <command>` in the session's
 * folder, confined by the session's sandbox, with bash's stripped environment (provider keys
 * withheld, lib/secrets/child-env.ts) plus `CLAUDE_PROJECT_DIR` and `SHIRO_PROJECT_DIR` (the
 * project root). The event's JSON is written to its stdin. At its timeout the whole process tree
 * is killed (lib/tools/process-tree.ts) and the run reports `timedOut`; nothing here throws.
 */
import { childEnv } from "../../secrets/child-env.ts";
import type { CommandSandbox } from "../../sandbox/session.ts";
import { runProcessTree } from "../../tools/process-tree.ts";

/** Characters of each stream kept from a hook (its head: JSON output is read from the start). */
const _KEEP_CHARS = 30_000;
/** Between SIGTERM and SIGKILL: a hook past its timeout gets little grace. */
const _GRACE_MS = 500;

export interface HookProcessOptions {
  cwd: string;
  projectRoot: string;
  sandbox?: CommandSandbox;
  signal?: AbortSignal;
}

export interface HookRun {
  /** Exit code; null when a signal ended it (a timeout) or it could not start. */
  exit: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
}

export async function runHookProcess(command: string, stdin: string, timeoutMs: number, options: HookProcessOptions): Promise<HookRun> {
  const started = performance.now();
  const shell = process.platform === "win32" ? ["cmd.exe", "/d", "/s", "/c", `"${command}"`] : ["bash", "-c", command];
  let argv: string[];
  try {
    argv = options.sandbox ? options.sandbox.wrap(shell, options.cwd) : shell;
  } catch (error) {
    return _failed(started, `the sandbox refused to start it: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const result = await runProcessTree(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: { ...childEnv(), CLAUDE_PROJECT_DIR: options.projectRoot, SHIRO_PROJECT_DIR: options.projectRoot },
      timeoutMs,
      signal: options.signal,
      stdin,
      keep: { chars: _KEEP_CHARS, end: "head" },
      graceMs: _GRACE_MS,
      verbatimArgs: process.platform === "win32",
    });
    return {
      exit: result.timedOut || result.aborted ? null : result.code,
      stdout: result.stdout.text,
      stderr: result.stderr.text,
      durationMs: Math.round(performance.now() - started),
      timedOut: result.timedOut,
    };
  } catch (error) {
    return _failed(started, `it could not start: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function _failed(started: number, why: string): HookRun {
  return { exit: null, stdout: "", stderr: why, durationMs: Math.round(performance.now() - started), timedOut: false };
}
