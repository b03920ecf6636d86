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
 *
 * This module is the declaration; running a command is bash-run.ts, loaded at the first call.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import { BASH_TIMEOUT } from "./tool-limits.ts";
import type { ToolDefinition } from "./types.ts";
import description from "./bash.md" with { type: "text" };
import { takeFields } from "./claude-code.ts";
import { fieldSummary } from "./call-summary.ts";
import { shellReader } from "../shell/reader.ts";

const BashInput = lazySchema(() =>
  v.object({
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
  }),
);

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
    return typeof command === "string" && shellReader().isReadOnlyCommand(command, root);
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
  execute: async (input, ctx) => (await import("./bash-run.ts")).runBash(bashTool.name, input, ctx),
};

function _commandOf(input: unknown): string | undefined {
  const command = input !== null && typeof input === "object" ? (input as { command?: unknown }).command : undefined;
  return typeof command === "string" ? command : undefined;
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
