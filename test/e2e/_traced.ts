/**
 * What the tests that count a run's system calls share: strace as a host package (present when it
 * is on PATH and can trace a child here; a container may refuse ptrace), a home with a long
 * history written by the stores' own code, and the log read back a call a line.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findOnPath, hostPackage } from "../host-packages.ts";

export const STRACE = hostPackage("strace", "apt-get install -y strace", _straceWorks(), "strace is not on PATH or cannot trace here");

/** `sessions` sessions of `project` (two runs and episodes each, ten events a run) and 30 notes, written in a child process. */
export function writeHistoryHome(home: string, project: string, sessions: number): void {
  const script = join(home, "history.ts");
  const history = join(import.meta.dir, "..", "bench", "_history.ts");
  writeFileSync(
    script,
    `const { writeHistory, YEAR_OF_HISTORY } = await import(${JSON.stringify(history)});\nwriteHistory(${JSON.stringify(project)}, { ...YEAR_OF_HISTORY, sessions: ${sessions}, notes: 30 });\n`,
  );
  const made = spawnSync(process.execPath, [script], { env: { ...process.env, SHIRO_HOME: home }, encoding: "utf8", timeout: 120_000 });
  if (made.status !== 0) throw new Error(`writing the history failed:\n${made.stderr}`);
}

export interface TracedRunOptions {
  /** The run's folder and environment. */
  cwd: string;
  env: Record<string, string>;
  /** Where strace writes its log; without it the binary runs untraced. */
  out?: string;
  /** strace's `-e trace=` classes; file and descriptor calls by default. */
  trace?: string;
}

export interface TracedRunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `binary args` (under `strace -f -qq -y` into `out` when given), bounded by 90 s. Not
 * spawnSync: the fake provider answers from this process's event loop.
 */
export function runTraced(binary: string, args: string[], options: TracedRunOptions): Promise<TracedRunResult> {
  const command = options.out
    ? ["strace", "-f", "-qq", "-y", "-e", `trace=${options.trace ?? "%file,%desc"}`, "-o", options.out, binary, ...args]
    : [binary, ...args];
  return new Promise((resolvePromise) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (code) => resolvePromise((clearTimeout(timer), { code, stdout, stderr })));
  });
}

function _straceWorks(): boolean {
  if (findOnPath("strace") === undefined) return false;
  return spawnSync("strace", ["-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "true"], { timeout: 10_000 }).status === 0;
}

/**
 * The lines of the strace log at `path` (none when it is missing), each call on one: under `-f`, a
 * call another thread interrupts is printed as `<pid> call(args <unfinished ...>` and later
 * `<pid> <... call resumed>rest`, joined back here where the call began (its path and its result
 * on one line, whatever the threads did meanwhile).
 */
export function traceLines(path: string): string[] {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const lines: string[] = [];
  const unfinished = new Map<string, number>();
  for (const line of text.split("\n")) {
    const pid = /^(\d+)\s/.exec(line)?.[1];
    const resumed = pid === undefined ? null : /^\d+\s+<\.\.\. \w+ resumed>(.*)$/.exec(line);
    const at = pid === undefined ? undefined : unfinished.get(pid);
    if (resumed && at !== undefined) {
      lines[at] = lines[at]!.replace(/ <unfinished \.\.\.>$/, "") + resumed[1];
      unfinished.delete(pid!);
      continue;
    }
    if (pid !== undefined && line.endsWith("<unfinished ...>")) unfinished.set(pid, lines.length);
    lines.push(line);
  }
  return lines;
}
