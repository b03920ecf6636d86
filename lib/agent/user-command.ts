/**
 * `!cmd` in the REPL: a shell command the user runs themself, with the session's shell tool (the
 * first `exec` tool that declares `command` and `commandInput`: bash), in the command sandbox.
 * Nothing is asked (the user typed it); deny rules refuse it; a plugin guard's finding is put to
 * `confirmGuard`, and the command runs when the user confirms. Returns the tool's result text
 * (exit code, stdout, stderr); throws a one-line error when it is refused or the tool fails.
 */
import * as v from "valibot";
import type { Gate } from "../extensions/gate.ts";
import { uuidv7 } from "../platform/ids.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import type { ToolDefinition } from "../tools/types.ts";

export interface UserCommandOptions {
  gate: Gate;
  /** The session's registered tools; a shell tool among them unless configured away. */
  tools: readonly ToolDefinition[];
  root: string;
  sandbox: CommandSandbox;
  signal: AbortSignal;
  onOutput: (chunk: string) => void;
  /** A guard's finding on the command, put to the user: true runs it anyway. Absent: refused. */
  confirmGuard?: (finding: string) => Promise<boolean>;
}

export async function runUserCommand(command: string, options: UserCommandOptions): Promise<string> {
  const tool = options.tools.find((candidate) => candidate.effect === "exec" && candidate.command && candidate.commandInput);
  if (!tool?.commandInput) throw new Error("no shell tool is in this session (tool sets leave bash out), so ! cannot run commands");
  const input = v.parse(tool.schema, tool.commandInput(command));
  const callId = `user-${uuidv7()}`;
  const verdict = await options.gate.check({ callId, tool, name: tool.name, input, cwd: options.root, byUser: true });
  const guarded = !verdict.allowed && verdict.by === "plugin" && options.confirmGuard !== undefined;
  const confirmed = guarded ? await options.confirmGuard!(verdict.reason) : false;
  if (!verdict.allowed && !confirmed) throw new Error(`not run: ${guarded ? "you said no" : verdict.by === "block" ? "it needs an approval" : verdict.reason}`);
  return await tool.execute(input, { root: options.root, signal: options.signal, callId, sandbox: options.sandbox, emitOutput: options.onOutput });
}
