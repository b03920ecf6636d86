/**
 * The OpenAI chat-completions adapter: `POST {base}/chat/completions` with `stream: true`.
 * Spoken by OpenAI and most OpenAI-compatible servers; vendor differences come from the
 * preset's compat flags (system role, output-limit field, usage in stream, reasoning field,
 * reasoning effort).
 *
 * Reasoning parts are never sent back on this protocol (vendors either ignore or refuse them).
 */
import { streamWire, type DecodeEnd, type StreamDecoder, type WireRequest } from "./_http.ts";
import type { MessageDraft } from "./_draft.ts";
import { parseEventData, type SseMessage } from "./_sse.ts";
import type { Message, StopReason, ToolResultPart } from "../messages.ts";
import { openAIEffort } from "./thinking.ts";
import type { Adapter, ModelEvent, ModelRequest, ProviderConnection } from "./types.ts";

export const streamOpenAIChat: Adapter = (connection, request) =>
  streamWire(connection, request, () => buildChatRequest(connection, request), _decodeFor(connection));

export function buildChatRequest(connection: ProviderConnection, request: ModelRequest): WireRequest {
  const { compat } = connection;
  const effort = compat.reasoningEffort ? openAIEffort(request.thinking) : undefined;
  const body: Record<string, unknown> = {
    model: request.model,
    messages: [...(request.system ? [{ role: compat.systemRole, content: request.system }] : []), ...toChatMessages(request.messages)],
    stream: true,
    ...(compat.usageInStream ? { stream_options: { include_usage: true } } : {}),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
    ...(request.maxOutputTokens !== undefined ? { [compat.maxTokensField]: request.maxOutputTokens } : {}),
    ...(effort ? { reasoning_effort: effort } : {}),
  };
  return { url: `${connection.baseURL}/chat/completions`, headers: bearerAuthHeaders(connection), body };
}

/** Our history as chat messages: one `tool` message per result, reasoning dropped, a call's `extra_content` kept. */
export function toChatMessages(messages: Message[]): Record<string, unknown>[] {
  return messages.flatMap((message): Record<string, unknown>[] => {
    if (message.role === "user") {
      if (!message.images?.length) return [{ role: "user", content: message.content }];
      const images = message.images.map((image) => ({ type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } }));
      return [{ role: "user", content: [{ type: "text", text: message.content }, ...images] }];
    }
    if (message.role === "tool") {
      return message.results.map((result) => ({ role: "tool", tool_call_id: result.callId, content: toolOutputText(result) }));
    }
    const text = message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
    const calls = message.parts.flatMap((part) =>
      part.type === "tool-call"
        ? [
            {
              id: part.id,
              type: "function",
              function: { name: part.name, arguments: JSON.stringify(part.input ?? {}) },
              ...(part.extraContent ? { extra_content: part.extraContent } : {}),
            },
          ]
        : [],
    );
    if (text.length === 0 && calls.length === 0) return [];
    return [{ role: "assistant", content: text.length > 0 ? text : null, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  });
}

/** A tool result as text for protocols without an error flag: failures are marked so the model knows. */
export function toolOutputText(result: ToolResultPart): string {
  if (!result.isError || /^error\b/i.test(result.output)) return result.output;
  return `Error: ${result.output}`;
}

/** The OpenAI-style `authorization: Bearer <key>` header; none for a keyless connection. */
export function bearerAuthHeaders(connection: ProviderConnection): Record<string, string> {
  return connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {};
}

interface _ChatChunk {
  choices?: {
    delta?: Record<string, unknown> & {
      content?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string }; extra_content?: unknown }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number };
    completion_tokens_details?: { reasoning_tokens?: number };
  } | null;
  error?: { message?: string; code?: string | number; type?: string };
}

function _decodeFor(connection: ProviderConnection): StreamDecoder {
  const reasoningField = connection.compat.reasoningField ?? "reasoning_content";
  return (messages, draft) => _decodeChat(messages, draft, reasoningField);
}

async function* _decodeChat(
  messages: AsyncIterable<SseMessage>,
  draft: MessageDraft,
  reasoningField: string,
): AsyncGenerator<ModelEvent, DecodeEnd, undefined> {
  const calls = _createCallTracker();
  let finishReason: string | undefined;
  for await (const message of messages) {
    if (message.data.trim() === "[DONE]") return { kind: "complete", stop: _stopReason(finishReason, draft) };
    const chunk = parseEventData<_ChatChunk>(message.data);
    if (!chunk) continue;
    if (chunk.error) {
      return {
        kind: "failed",
        failure: {
          message: chunk.error.message ?? "the provider reported an error",
          ...((chunk.error.code ?? chunk.error.type) ? { code: String(chunk.error.code ?? chunk.error.type) } : {}),
        },
      };
    }
    if (chunk.usage) draft.usage = _usage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    const reasoning = delta[reasoningField];
    if (typeof reasoning === "string" && reasoning.length > 0) {
      draft.appendReasoning("reasoning", reasoning, "openai-chat");
      yield { type: "reasoning-delta", text: reasoning };
    }
    if (typeof delta.content === "string" && delta.content.length > 0) {
      draft.appendText("text", delta.content);
      yield { type: "text-delta", text: delta.content };
    }
    for (const call of delta.tool_calls ?? []) {
      const { key, id, started } = calls.slotFor(call);
      if (started) {
        const name = call.function?.name ?? "";
        draft.startToolCall(key, id, name);
        yield { type: "tool-call-start", id, name };
      }
      if (call.extra_content && typeof call.extra_content === "object" && !Array.isArray(call.extra_content)) {
        draft.mergeToolExtra(key, call.extra_content as Record<string, unknown>);
      }
      const args = call.function?.arguments;
      if (args) {
        draft.appendToolArgs(key, args);
        yield { type: "tool-call-delta", id, argsDelta: args };
      }
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return finishReason === undefined ? { kind: "truncated" } : { kind: "complete", stop: _stopReason(finishReason, draft) };
}

type _CallDelta = NonNullable<NonNullable<NonNullable<_ChatChunk["choices"]>[number]["delta"]>["tool_calls"]>[number];

/**
 * Which call a streamed tool-call delta belongs to. OpenAI streams each call under its own
 * `index`, with the id on the first delta only. Some servers (Gemini's OpenAI-compatible
 * endpoint) omit `index` or send every parallel call under index 0: there a new id starts a new
 * call, and a delta with neither a known index nor an id continues the latest call.
 */
function _createCallTracker() {
  const byIndex = new Map<number, { key: string; id: string }>();
  const byId = new Map<string, { key: string; id: string }>();
  let latest: { key: string; id: string } | undefined;
  let count = 0;
  return {
    slotFor(call: _CallDelta): { key: string; id: string; started: boolean } {
      const atIndex = typeof call.index === "number" ? byIndex.get(call.index) : undefined;
      const known = call.id ? byId.get(call.id) : undefined;
      const existing = known ?? (atIndex && !call.id ? atIndex : undefined) ?? (call.index === undefined && !call.id ? latest : undefined);
      if (existing) {
        latest = existing;
        return { ...existing, started: false };
      }
      const slot = { key: `tool:${count++}`, id: call.id || `call_${globalThis.crypto.randomUUID().replace(/-/g, "").slice(0, 24)}` };
      if (typeof call.index === "number") byIndex.set(call.index, slot);
      byId.set(slot.id, slot);
      latest = slot;
      return { ...slot, started: true };
    },
  };
}

function _usage(usage: NonNullable<_ChatChunk["usage"]>) {
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}

function _stopReason(reason: string | undefined, draft: MessageDraft): StopReason {
  if (reason === "length") return "length";
  if (reason === "content_filter") return "content-filter";
  return draft.hasToolCalls() ? "tool-calls" : "stop";
}
