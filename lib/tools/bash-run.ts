/**
 * What bash (bash.ts) does when called, loaded at its first call: the command run through the
 * process tree (confined when the session has a sandbox) and its result formatted as bash.ts
 * describes it.
 */
import { constants } from "node:os";
import { childEnv } from "../secrets/child-env.ts";
import { BASH_TIMEOUT } from "./tool-limits.ts";
import { runProcessTree, type CapturedText, type RunResult } from "./process-tree.ts";
import { RESULT_CAP, capResult, type ToolContext } from "./types.ts";

export const INTERRUPTED_MESSAGE = "The user interrupted this command. It did not finish, so its effects are unknown.";
export const NO_OUTPUT_NOTE = "(no output before it was killed)";

/** Characters of each stream held in memory while the command runs. */
const _KEEP_CHARS = RESULT_CAP;
/** Room left for the exit line, headers and notes inside RESULT_CAP. */
const _SECTION_BUDGET = RESULT_CAP - 500;

/** A call's arguments, as the declaration's schema (bash.ts) produces them. */
export interface BashArgs {
  command: string;
  timeout?: number;
}

/** bash, as the tool named `tool` (the sandbox and its question name it). */
export async function runBash(tool: string, input: BashArgs, ctx: ToolContext): Promise<string> {
  if (ctx.signal.aborted) throw new Error(`${INTERRUPTED_MESSAGE}\n\n${NO_OUTPUT_NOTE}`);
  const timeoutMs = input.timeout ?? BASH_TIMEOUT.default;
  const shell = _buildShellCommand(input.command);
  const sandbox = ctx.sandbox;
  const confined = sandbox?.confines(tool, input.command) ?? false;
  let result: RunResult;
  let undone: string | undefined;
  try {
    result = await _runShell(confined ? sandbox!.wrap(shell, ctx.root) : shell, timeoutMs, ctx);
  } finally {
    if (confined) undone = sandbox!.afterCommand(ctx.root);
  }
  const report = undone ? `${_formatResult(result, timeoutMs)}\n\nsandbox: ${undone}.` : _formatResult(result, timeoutMs);
  const refused = confined ? await sandbox!.explain({ ...result, output: `${result.stdout.text}\n${result.stderr.text}` }) : undefined;
  if (!refused) return report;
  const verdict = await sandbox!.askOutside({ callId: ctx.callId, tool: tool, input, command: input.command, reason: refused, cwd: ctx.root });
  if (!verdict.allowed) return capResult(`${report}\n\nsandbox: ${refused}.\n${verdict.note}`);
  const outside = await _runShell(shell, timeoutMs, ctx);
  return capResult(`${_formatResult(outside, timeoutMs)}\n\nsandbox: ${verdict.note} (${refused})`);
}

/** Runs argv (the shell, or the sandbox runner around it); throws on interrupt and when the program is missing. */
async function _runShell(argv: string[], timeoutMs: number, ctx: ToolContext): Promise<RunResult> {
  let result: RunResult;
  try {
    result = await runProcessTree(argv[0]!, argv.slice(1), {
      cwd: ctx.root,
      env: childEnv(),
      timeoutMs,
      signal: ctx.signal,
      onOutput: (chunk) => ctx.emitOutput(chunk),
      keep: { chars: _KEEP_CHARS, end: "tail" },
      verbatimArgs: process.platform === "win32",
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`${argv[0]} is not installed or not on PATH.`);
    throw error;
  }
  if (result.aborted) throw new Error(`${INTERRUPTED_MESSAGE}\n\n${_formatSections(result.stdout, result.stderr) || NO_OUTPUT_NOTE}`);
  return result;
}

function _formatResult(result: RunResult, timeoutMs: number): string {
  return capResult(`${_formatExitLine(result, timeoutMs)}\n\n${_formatSections(result.stdout, result.stderr) || "(no output)"}`);
}

function _buildShellCommand(command: string): string[] {
  if (process.platform === "win32") return ["cmd.exe", "/d", "/s", "/c", `"${command}"`];
  return ["bash", "-lc", command];
}

function _formatExitLine(result: RunResult, timeoutMs: number): string {
  const signal = result.exitSignal ?? result.sentSignal;
  const code = result.code ?? 128 + (signal ? ((constants.signals as Record<string, number>)[signal] ?? 0) : 0);
  if (!result.timedOut) return `exit: ${code}`;
  return `exit: ${code} (killed by ${signal ?? "SIGKILL"}; timeout is ${timeoutMs}ms)`;
}

/** Shares the budget: stderr keeps at least a third when both streams overflow it. */
function _formatSections(stdout: CapturedText, stderr: CapturedText): string {
  const outText = stdout.text.trimEnd();
  const errText = stderr.text.trimEnd();
  const errRoom = Math.min(errText.length, Math.max(_SECTION_BUDGET - outText.length, Math.floor(_SECTION_BUDGET / 3)));
  const outRoom = _SECTION_BUDGET - errRoom;
  const parts: string[] = [];
  const out = _formatSection("stdout", outText, stdout.dropped, outRoom);
  const err = _formatSection("stderr", errText, stderr.dropped, errRoom);
  if (out) parts.push(out);
  if (err) parts.push(err);
  return parts.join("\n\n");
}

function _formatSection(name: string, text: string, dropped: number, room: number): string {
  if (!text && dropped === 0) return "";
  const shown = text.length > room ? text.slice(text.length - room) : text;
  const hidden = dropped + text.length - shown.length;
  const note = hidden > 0 ? `[${hidden} earlier chars not shown]\n` : "";
  return `${name}:\n${note}${shown}`;
}
