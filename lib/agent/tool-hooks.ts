/**
 * The loop's two tool hook points (lib/extensions/hooks/ runs the hooks): PreToolUse before the
 * gate, whose rewrite is checked against the tool's schema again, and PostToolUse after a
 * successful result, whose feedback joins the text the model reads.
 */
import type { AgentEvent } from "../events.ts";
import type { SessionHooks } from "../extensions/hooks/session-hooks.ts";
import type { ToolCallPart, ToolResultPart } from "../messages.ts";
import { capResult, type ToolDefinition } from "../tools/types.ts";
import { executeToolCall, validateToolCall, type ToolRunOptions } from "./tool-call.ts";

/** What the hook points need of the turn (a TurnOptions is one). */
export interface ToolHookOptions extends ToolRunOptions {
  hooks?: Pick<SessionHooks, "preToolUse" | "postToolUse">;
}

/** PreToolUse: the input to run (a rewrite is checked against the schema again), a refusal (reported as `tool-denied` by `hook`), the permission it asks for. */
export async function* runPreToolHooks(
  call: ToolCallPart,
  tool: ToolDefinition,
  input: unknown,
  options: ToolHookOptions,
): AsyncGenerator<AgentEvent, { input: unknown; refused?: string; permission?: "allow" | "ask"; stop?: string }, undefined> {
  const pre = await options.hooks!.preToolUse({ id: call.id, tool, input }, options.root, options.signal);
  for (const event of pre.events) yield event;
  const stop = pre.stop !== undefined ? { stop: pre.stop } : {};
  if (pre.refused !== undefined) {
    yield { type: "tool-denied", id: call.id, name: call.name, reason: pre.refused, by: "hook" };
    return { input, refused: pre.refused, ...stop };
  }
  let next = input;
  if (pre.input !== undefined) {
    const rewritten = validateToolCall({ ...call, input: pre.input }, tool, options);
    if (!rewritten.ok) {
      const error = `A PreToolUse hook rewrote this call into one that cannot run: ${rewritten.error}`;
      yield { type: "tool-error", id: call.id, name: call.name, error };
      return { input, refused: error, ...stop };
    }
    next = rewritten.input;
    yield { type: "notice", text: `a PreToolUse hook rewrote the ${call.name} call: ${JSON.stringify(next)}` };
  }
  return { input: next, ...(pre.permission ? { permission: pre.permission } : {}), ...stop };
}

/** Runs an approved call, then its PostToolUse hooks on a success: their feedback joins the result the model reads. */
export async function* executeWithHooks(
  call: ToolCallPart,
  tool: ToolDefinition,
  input: unknown,
  options: ToolHookOptions,
  secretsAllowed: boolean,
  halt: (reason: string) => void,
): AsyncGenerator<AgentEvent, ToolResultPart, undefined> {
  const result = yield* executeToolCall(call, tool, input, options, secretsAllowed);
  if (!options.hooks || result.isError) return result;
  const post = await options.hooks.postToolUse({ id: call.id, tool, input }, result.output, options.root, options.signal);
  for (const event of post.events) yield event;
  if (post.stop !== undefined) halt(post.stop);
  return post.feedback ? { ...result, output: capResult(`${result.output}\n\n${post.feedback}`) } : result;
}
