/**
 * One tool call, once the gate allowed it: its arguments checked against the tool's schema, the
 * tool run with live output relayed as events, and the result part the history records. A throw
 * becomes an error result; nothing here asks or decides (lib/agent/loop.ts does).
 */
import * as v from "valibot";
import type { Gate } from "../extensions/gate.ts";
import type { AgentEvent } from "../events.ts";
import type { ToolCallPart, ToolResultPart } from "../messages.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import { describeIssue } from "../state-file/json-file.ts";
import { capResult, type ToolDefinition, type WorkspaceFiles } from "../tools/types.ts";

/** What running a call needs of the turn (a TurnOptions is one). */
export interface ToolRunOptions {
  root: string;
  signal: AbortSignal;
  sandbox?: CommandSandbox;
  /** The editor's file buffers (ACP), handed to every call as `ctx.files`. */
  files?: WorkspaceFiles;
  gate: Pick<Gate, "deniesPath">;
  /** The tools offered this step, named in an unknown tool's error. */
  tools: () => ToolDefinition[];
  /** Extra events after a tool ran (e.g. `state` after todo_write). */
  afterTool?: (name: string, input: unknown, output: string) => AgentEvent[] | undefined;
  /** Awaited before a tool that declares a `write` or `exec` effect runs (the turn's checkpoint). */
  beforeChange?: () => Promise<void>;
  /** What the turn's checkpoint covers; handed to tools that run calls of their own. */
  checkpoint?: () => { maxFileBytes: number } | undefined;
}

/** Runs a tool call's generator to its end at once, keeping its events for later. */
export async function collectToolCall(
  execution: AsyncGenerator<AgentEvent, ToolResultPart, undefined>,
): Promise<{ events: AgentEvent[]; result: ToolResultPart }> {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await execution.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

export type ToolCallValidation = { ok: true; tool: ToolDefinition; input: unknown } | { ok: false; error: string };

/** The call's tool and its arguments parsed by the tool's schema, or the error result's text. */
export function validateToolCall(call: ToolCallPart, tool: ToolDefinition | undefined, options: Pick<ToolRunOptions, "tools">): ToolCallValidation {
  if (!tool) {
    const names = options
      .tools()
      .map((t) => t.name)
      .sort()
      .join(", ");
    return { ok: false, error: `Unknown tool "${call.name}". Available tools: ${names || "none"}.` };
  }
  if (call.inputError !== undefined) {
    return { ok: false, error: `Invalid arguments for ${call.name}: not a JSON object (${call.inputError.slice(0, 200)})` };
  }
  const parsed = v.safeParse(tool.schema, call.input ?? {});
  if (!parsed.success) return { ok: false, error: `Invalid arguments for ${call.name}: ${describeIssue(parsed.issues[0])}` };
  return { ok: true, tool, input: parsed.output };
}

/**
 * Runs one approved call: live output as `tool-output` events, then `tool-result` (or `tool-error`
 * when the tool throws). Returns the result part the history records.
 */
export async function* executeToolCall(
  call: ToolCallPart,
  tool: ToolDefinition,
  input: unknown,
  options: ToolRunOptions,
  secretsAllowed = false,
): AsyncGenerator<AgentEvent, ToolResultPart, undefined> {
  const bookkeeping = tool.memoryContent === false ? { bookkeeping: true } : {};
  const fail = (message: string): ToolResultPart => ({
    type: "tool-result",
    callId: call.id,
    name: call.name,
    output: capResult(message),
    isError: true,
    ...bookkeeping,
  });
  // Live output arrives through a callback while execute runs; relay it as events in order.
  const chunks: string[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  let output = "";
  let failure: string | undefined;
  if (tool.effect === "write" || tool.effect === "exec") await options.beforeChange?.();
  const running = tool
    .execute(input, {
      root: options.root,
      signal: options.signal,
      callId: call.id,
      // Effect `exec` brings the sandbox: a tool that runs programs gets it, whatever its name.
      ...(tool.effect === "exec" && options.sandbox ? { sandbox: options.sandbox } : {}),
      ...(options.files ? { files: options.files } : {}),
      secretsAllowed,
      ...(options.beforeChange ? { beforeChange: options.beforeChange } : {}),
      ...(options.checkpoint ? { checkpoint: options.checkpoint } : {}),
      ...(options.gate.deniesPath ? { deniesPath: (path: string) => options.gate.deniesPath!(call.name, path, options.root) } : {}),
      emitOutput: (chunk) => {
        chunks.push(chunk);
        wake?.();
      },
    })
    .then(
      (text) => {
        output = text;
      },
      (error: unknown) => {
        failure = error instanceof Error ? error.message : String(error);
      },
    )
    .finally(() => {
      settled = true;
      wake?.();
    });
  while (!settled || chunks.length > 0) {
    if (chunks.length > 0) {
      yield { type: "tool-output", id: call.id, chunk: chunks.shift()! };
      continue;
    }
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (settled || chunks.length > 0) resolve();
    });
    wake = undefined;
  }
  await running;
  if (failure !== undefined) {
    yield { type: "tool-error", id: call.id, name: call.name, error: failure, ...bookkeeping };
    return fail(failure);
  }
  const capped = capResult(output);
  yield { type: "tool-result", id: call.id, name: call.name, output: capped, ...bookkeeping };
  for (const event of options.afterTool?.(call.name, input, capped) ?? []) yield event;
  return { type: "tool-result", callId: call.id, name: call.name, output: capped, ...bookkeeping };
}
