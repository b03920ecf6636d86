/**
 * The Anthropic Messages adapter: `POST {base}/messages` with `stream: true`,
 * `x-api-key` and `anthropic-version: 2023-06-01`.
 *
 * Thinking blocks (with their signature) and redacted thinking are replayed first in their
 * assistant message while thinking is on, as the API requires in a tool loop; with thinking off
 * they are left out. Consecutive tool results travel in one user message.
 */
import { streamWire, type DecodeEnd, type WireRequest } from "./_http.ts";
import type { MessageDraft } from "./_draft.ts";
import { parseEventData, type SseMessage } from "./_sse.ts";
import type { AssistantMessage, Message, ReasoningPart, StopReason } from "../messages.ts";
import { anthropicThinking } from "./thinking.ts";
import type { Adapter, ModelEvent, ModelRequest, ProviderConnection } from "./types.ts";

export const ANTHROPIC_VERSION = "2023-06-01";

export const streamAnthropic: Adapter = (connection, request) =>
  streamWire(connection, request, () => buildAnthropicRequest(connection, request), _decodeAnthropic);

export function buildAnthropicRequest(connection: ProviderConnection, request: ModelRequest): WireRequest {
  const wanted = anthropicThinking(request.thinking, request.maxOutputTokens, request.model);
  const thinking =
    wanted.budget !== undefined && !_loopLacksThinking(request.messages) ? wanted : anthropicThinking("off", request.maxOutputTokens, request.model);
  const body: Record<string, unknown> = {
    model: request.model,
    max_tokens: thinking.maxTokens,
    stream: true,
    ...(request.system ? { system: request.system } : {}),
    messages: toAnthropicMessages(request.messages, { replayThinking: thinking.budget !== undefined }),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
        }
      : {}),
    ...(thinking.budget !== undefined ? { thinking: { type: "enabled", budget_tokens: thinking.budget } } : {}),
  };
  if (connection.compat.promptCache) _markCacheBreakpoints(body);
  const headers: Record<string, string> = {
    "anthropic-version": ANTHROPIC_VERSION,
    ...(connection.apiKey ? (connection.bearerKey ? { authorization: `Bearer ${connection.apiKey}` } : { "x-api-key": connection.apiKey }) : {}),
  };
  return { url: `${connection.baseURL}/messages`, headers, body };
}

/**
 * Two prompt-cache breakpoints: after the tool list (it changes only when tools join) and after the
 * newest message block (the next step finds this step's prefix there). Thinking blocks cannot
 * carry one, so the newest block that can is marked.
 */
function _markCacheBreakpoints(body: Record<string, unknown>): void {
  const tools = body.tools as _Block[] | undefined;
  const lastTool = tools?.[tools.length - 1];
  if (lastTool) lastTool.cache_control = { type: "ephemeral" };
  const messages = body.messages as _WireMessage[];
  const blocks = messages[messages.length - 1]?.content ?? [];
  const target = blocks.findLast((block) => block.type !== "thinking" && block.type !== "redacted_thinking");
  if (target) target.cache_control = { type: "ephemeral" };
}

type _Block = Record<string, unknown>;
interface _WireMessage {
  role: "user" | "assistant";
  content: _Block[];
}

/** Our history as Anthropic messages; same-role neighbours are merged into one message. */
export function toAnthropicMessages(messages: Message[], options: { replayThinking: boolean }): _WireMessage[] {
  const wire: _WireMessage[] = [];
  const push = (role: _WireMessage["role"], content: _Block[]) => {
    if (content.length === 0) return;
    const last = wire[wire.length - 1];
    if (last?.role === role) last.content.push(...content);
    else wire.push({ role, content });
  };
  for (const message of messages) {
    if (message.role === "user") {
      const images = (message.images ?? []).map((image) => ({ type: "image", source: { type: "base64", media_type: image.mediaType, data: image.data } }));
      push("user", [...images, ...(message.content.trim().length > 0 ? [{ type: "text", text: message.content }] : [])]);
    } else if (message.role === "tool") {
      push(
        "user",
        message.results.map((result) => ({
          type: "tool_result",
          tool_use_id: result.callId,
          content: result.output.length > 0 ? result.output : "(no output)",
          ...(result.isError ? { is_error: true } : {}),
        })),
      );
    } else {
      push("assistant", _assistantBlocks(message, options.replayThinking));
    }
  }
  return wire;
}

function _assistantBlocks(message: AssistantMessage, replayThinking: boolean): _Block[] {
  const thinking = replayThinking ? message.parts.flatMap((part) => (part.type === "reasoning" ? _thinkingBlock(part) : [])) : [];
  const rest = message.parts.flatMap((part): _Block[] => {
    if (part.type === "text") return part.text.trim().length > 0 ? [{ type: "text", text: part.text }] : [];
    if (part.type === "tool-call") return [{ type: "tool_use", id: part.id, name: part.name, input: _objectInput(part.input) }];
    return [];
  });
  return [...thinking, ...rest];
}

function _thinkingBlock(part: ReasoningPart): _Block[] {
  if (part.protocol !== "anthropic") return [];
  if (part.redactedData) return [{ type: "redacted_thinking", data: part.redactedData }];
  if (part.signature) return [{ type: "thinking", thinking: part.text, signature: part.signature }];
  return [];
}

function _objectInput(input: unknown): unknown {
  return input !== null && typeof input === "object" && !Array.isArray(input) ? input : {};
}

/**
 * True when the history ends inside a tool loop whose assistant message has no thinking to
 * replay (it came from another protocol or from a turn without thinking): the API refuses
 * thinking on such a request, so it is sent without.
 */
function _loopLacksThinking(messages: Message[]): boolean {
  let index = messages.length - 1;
  while (index >= 0 && messages[index]!.role === "tool") index--;
  const last = messages[index];
  if (index === messages.length - 1 || last?.role !== "assistant") return false;
  const hasCalls = last.parts.some((part) => part.type === "tool-call");
  return hasCalls && !last.parts.some((part) => part.type === "reasoning" && _thinkingBlock(part).length > 0);
}

interface _Event {
  type?: string;
  index?: number;
  message?: { usage?: _Usage };
  content_block?: { type?: string; text?: string; thinking?: string; data?: string; id?: string; name?: string; input?: unknown };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null };
  usage?: _Usage;
  error?: { type?: string; message?: string };
}

interface _Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

async function* _decodeAnthropic(messages: AsyncIterable<SseMessage>, draft: MessageDraft): AsyncGenerator<ModelEvent, DecodeEnd, undefined> {
  const callIds = new Map<number, string>();
  let stopReason: string | undefined;
  for await (const message of messages) {
    const event = parseEventData<_Event>(message.data);
    if (!event) continue;
    const index = event.index ?? 0;
    switch (event.type) {
      case "message_start":
        if (event.message?.usage) _applyUsage(draft, event.message.usage);
        break;
      case "content_block_start": {
        const block = event.content_block ?? {};
        if (block.type === "tool_use") {
          const id = block.id ?? `toolu_${index}`;
          const name = block.name ?? "";
          const input = _objectInput(block.input);
          callIds.set(index, id);
          draft.startToolCall(index, id, name, Object.keys(input as object).length > 0 ? JSON.stringify(input) : undefined);
          yield { type: "tool-call-start", id, name };
        } else if (block.type === "redacted_thinking" && block.data) {
          draft.updateReasoning(index, "anthropic", { redactedData: block.data });
        } else if (block.type === "thinking" && block.thinking) {
          draft.appendReasoning(index, block.thinking, "anthropic");
          yield { type: "reasoning-delta", text: block.thinking };
        } else if (block.type === "text" && block.text) {
          draft.appendText(index, block.text);
          yield { type: "text-delta", text: block.text };
        }
        break;
      }
      case "content_block_delta": {
        const delta = event.delta ?? {};
        if (delta.type === "text_delta" && delta.text) {
          draft.appendText(index, delta.text);
          yield { type: "text-delta", text: delta.text };
        } else if (delta.type === "thinking_delta" && delta.thinking) {
          draft.appendReasoning(index, delta.thinking, "anthropic");
          yield { type: "reasoning-delta", text: delta.thinking };
        } else if (delta.type === "signature_delta" && delta.signature) {
          draft.updateReasoning(index, "anthropic", { signature: delta.signature });
        } else if (delta.type === "input_json_delta" && delta.partial_json) {
          const id = callIds.get(index);
          if (id === undefined) break;
          draft.appendToolArgs(index, delta.partial_json);
          yield { type: "tool-call-delta", id, argsDelta: delta.partial_json };
        }
        break;
      }
      case "message_delta":
        if (event.delta?.stop_reason) stopReason = event.delta.stop_reason;
        if (event.usage) _applyUsage(draft, event.usage);
        break;
      case "message_stop":
        return { kind: "complete", stop: _stopReason(stopReason, draft) };
      case "error":
        return {
          kind: "failed",
          failure: { message: event.error?.message ?? "the provider reported an error", ...(event.error?.type ? { code: event.error.type } : {}) },
        };
    }
  }
  return { kind: "truncated" };
}

/** Anthropic reports cache reads and writes beside `input_tokens`; our inputTokens include them. */
function _applyUsage(draft: MessageDraft, usage: _Usage): void {
  const next = { ...draft.usage };
  if (usage.input_tokens !== undefined) {
    next.inputTokens = usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
    if (usage.cache_read_input_tokens) next.cachedInputTokens = usage.cache_read_input_tokens;
  }
  if (usage.output_tokens !== undefined) next.outputTokens = usage.output_tokens;
  draft.usage = next;
}

function _stopReason(reason: string | undefined, draft: MessageDraft): StopReason {
  if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
  if (reason === "refusal") return "content-filter";
  return draft.hasToolCalls() ? "tool-calls" : "stop";
}
