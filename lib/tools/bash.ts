/**
 * The `bash` tool: one shell command in the workspace root, its whole process tree killed on
 * timeout or interrupt and awaited before the tool returns.
 *
 * Result: `exit: N` (plus ` (killed by SIGTERM|SIGKILL; timeout is Nms)` after a timeout), then a
 * `stdout:` and a `stderr:` section, blank-line separated. A section with no output is left
 * out; with neither, `(no output)` follows the exit line. Each section keeps the tail of its
 * stream, led by `[N earlier chars not shown]` when cut, and together they fit RESULT_CAP.
 * An interrupt throws INTERRUPTED_MESSAGE followed by the sections or NO_OUTPUT_NOTE.
 *
 * With `ctx.sandbox` on, the command runs confined (lib/sandbox/). When it fails because of the
 * sandbox, a `sandbox:` line follows the sections: what was refused and whether it was run again
 * outside (only when a person approved that one command; headless runs never leave).
 */
import { constants } from "node:os";
import * as v from "valibot";
import { childEnv } from "../secrets/child-env.ts";
import { runProcessTree, type CapturedText, type RunResult } from "./process-tree.ts";
import { RESULT_CAP, capResult, type ToolContext, type ToolDefinition } from "./types.ts";
import description from "./bash.md" with { type: "text" };
import { takeFields } from "./claude-code.ts";
import { fieldSummary } from "./call-summary.ts";
import { isReadOnlyCommand } from "../shell/read-only.ts";

export const BASH_TIMEOUT = { default: 120_000, min: 1_000, max: 600_000 } as const;
export const INTERRUPTED_MESSAGE = "The user interrupted this command. It did not finish, so its effects are unknown.";
export const NO_OUTPUT_NOTE = "(no output before it was killed)";

/** Characters of each stream held in memory while the command runs. */
const _KEEP_CHARS = RESULT_CAP;
/** Room left for the exit line, headers and notes inside RESULT_CAP. */
const _SECTION_BUDGET = RESULT_CAP - 500;

const BashInput = v.object({
  command: v.pipe(v.string(), v.minLength(1, "command must not be empty"), v.description("The shell command to run.")),
  timeout: v.optional(
    v.pipe(
      v.number(),
      v.integer("timeout must be a whole number of milliseconds"),
      v.minValue(BASH_TIMEOUT.min, `timeout must be at least ${BASH_TIMEOUT.min} ms`),
      v.maxValue(BASH_TIMEOUT.max, `timeout must be at most ${BASH_TIMEOUT.max} ms`),
      v.description(`Milliseconds before the command is killed (default ${BASH_TIMEOUT.default}).`),
    ),
  ),
});

type BashInput = v.InferOutput<typeof BashInput>;

export const bashTool: ToolDefinition<BashInput> = {
  name: "bash",
  set: "core",
  description,
  schema: BashInput,
  effect: "exec",
  decision: "ask",
  guidance: "run a shell command in the workspace (builds, tests, tools); output streams live",
  // Its rule subjects follow from `command`: one line per simple command, peeled (lib/shell/read.ts).
  command: (input) => _commandOf(input),
  commandInput: (command) => ({ command }),
  summary: fieldSummary("command"),
  readOnly: (input, root) => {
    const command = _commandOf(input);
    return typeof command === "string" && isReadOnlyCommand(command, root);
  },
  claudeCode: {
    name: "Bash",
    input: (args) => ({ command: args.command, ...(args.timeout !== undefined ? { timeout: args.timeout } : {}) }),
    args: (input) =>
      takeFields(input, [
        ["command", "command", "string"],
        ["timeout", "timeout", "number"],
      ]),
    response: (output) => _claudeCodeResponse(output),
  },
  async execute(input, ctx) {
    if (ctx.signal.aborted) throw new Error(`${INTERRUPTED_MESSAGE}\n\n${NO_OUTPUT_NOTE}`);
    const timeoutMs = input.timeout ?? BASH_TIMEOUT.default;
    const shell = _buildShellCommand(input.command);
    const sandbox = ctx.sandbox;
    const confined = sandbox?.confines(bashTool.name, input.command) ?? false;
    let result: RunResult;
    let undone: string | undefined;
    try {
      result = await _runShell(confined ? sandbox!.wrap(shell, ctx.root) : shell, timeoutMs, ctx);
    } finally {
      if (confined) undone = sandbox!.afterCommand(ctx.root);
    }
    const report = undone ? `${_formatResult(result, timeoutMs)}\n\nsandbox: ${undone}.` : _formatResult(result, timeoutMs);
    const refused = confined ? sandbox!.explain({ ...result, output: `${result.stdout.text}\n${result.stderr.text}` }) : undefined;
    if (!refused) return report;
    const verdict = await sandbox!.askOutside({ callId: ctx.callId, tool: bashTool.name, input, command: input.command, reason: refused, cwd: ctx.root });
    if (!verdict.allowed) return capResult(`${report}\n\nsandbox: ${refused}.\n${verdict.note}`);
    const outside = await _runShell(shell, timeoutMs, ctx);
    return capResult(`${_formatResult(outside, timeoutMs)}\n\nsandbox: ${verdict.note} (${refused})`);
  },
};

function _commandOf(input: unknown): string | undefined {
  const command = input !== null && typeof input === "object" ? (input as { command?: unknown }).command : undefined;
  return typeof command === "string" ? command : undefined;
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

/** Claude Code's Bash `tool_response` from this tool's own result format (the header comment), plus the exit code. */
function _claudeCodeResponse(output: string): Record<string, unknown> {
  const exit = /^exit: (\d+)/.exec(output);
  const section = (name: string) => {
    const found = new RegExp(`(?:^|\\n\\n)${name}:\\n([\\s\\S]*?)(?=\\n\\n(?:stdout|stderr|sandbox):|$)`).exec(output);
    return found ? found[1]! : "";
  };
  return { stdout: section("stdout"), stderr: section("stderr"), interrupted: false, isImage: false, exitCode: exit ? Number(exit[1]) : null };
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
