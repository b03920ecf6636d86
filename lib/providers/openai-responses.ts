/**
 * The OpenAI Responses adapter: `POST {base}/responses` with `stream: true`.
 *
 * Stateless on purpose: always `store: false`, the whole history inline (never
 * `previous_response_id`, never an `item_reference`), and `include: ["reasoning.encrypted_content"]`
 * so each reasoning item comes back encrypted and is replayed beside the items of its own
 * response. The system prompt goes in `instructions`.
 */
import { streamWire, type DecodeEnd, type WireRequest } from "./_http.ts";
import type { MessageDraft } from "./_draft.ts";
import { parseEventData, type SseMessage } from "./_sse.ts";
import type { AssistantMessage, Message, Usage } from "../messages.ts";
import { bearerAuthHeaders, toolOutputText } from "./openai-chat.ts";
import { openAIEffort } from "./thinking.ts";
import type { Adapter, ModelEvent, ModelRequest, ProviderConnection } from "./types.ts";

const _PROTOCOL = "openai-responses";

export const streamOpenAIResponses: Adapter = (connection, request) =>
  streamWire(connection, request, () => buildResponsesRequest(connection, request), _decodeResponses);

export function buildResponsesRequest(connection: ProviderConnection, request: ModelRequest): WireRequest {
  const effort = openAIEffort(request.thinking);
  const body: Record<string, unknown> = {
    model: request.model,
    ...(request.system ? { instructions: request.system } : {}),
    input: toResponsesInput(request.messages),
    stream: true,
    store: false,
    include: ["reasoning.encrypted_content"],
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            name: tool.name,
            description: tool.description,
            parameters: tool.inputSchema,
            strict: false,
          })),
        }
      : {}),
    ...(effort ? { reasoning: { effort, summary: "auto" } } : {}),
    // The API refuses limits under 16.
    ...(request.maxOutputTokens !== undefined ? { max_output_tokens: Math.max(16, request.maxOutputTokens) } : {}),
  };
  return { url: `${connection.baseURL}/responses`, headers: bearerAuthHeaders(connection), body };
}

/** Our history as Responses input items. */
export function toResponsesInput(messages: Message[]): Record<string, unknown>[] {
  return messages.flatMap((message): Record<string, unknown>[] => {
    if (message.role === "user") {
      const images = (message.images ?? []).map((image) => ({
        type: "input_image",
        image_url: `data:${image.mediaType};base64,${image.data}`,
        detail: "auto",
      }));
      return [{ type: "message", role: "user", content: [{ type: "input_text", text: message.content }, ...images] }];
    }
    if (message.role === "tool") {
      return message.results.map((result) => ({ type: "function_call_output", call_id: result.callId, output: toolOutputText(result) }));
    }
    return _assistantItems(message);
  });
}

/**
 * One assistant message as items, in part order. Only reasoning this protocol produced, with its
 * encrypted content, is replayed; a reasoning item must be followed by an item of its own
 * response, so reasoning with nothing after it is left out.
 */
function _assistantItems(message: AssistantMessage): Record<string, unknown>[] {
  const items = message.parts.flatMap((part): Record<string, unknown>[] => {
    if (part.type === "reasoning") {
      if (part.protocol !== _PROTOCOL || !part.encryptedContent || !part.itemId) return [];
      const summary = part.summary ?? (part.text ? [part.text] : []);
      return [
        {
          type: "reasoning",
          id: part.itemId,
          encrypted_content: part.encryptedContent,
          summary: summary.map((text) => ({ type: "summary_text", text })),
        },
      ];
    }
    if (part.type === "text") {
      if (part.text.length === 0) return [];
      // The string form: an `output_text` content list is only valid with the item's id and status, which we do not keep.
      return [{ type: "message", role: "assistant", content: part.text }];
    }
    return [{ type: "function_call", call_id: part.id, name: part.name, arguments: JSON.stringify(part.input ?? {}) }];
  });
  while (items.length > 0 && items[items.length - 1]!.type === "reasoning") items.pop();
  return items;
}

interface _Item {
  type?: string;
  id?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  encrypted_content?: string | null;
  summary?: { text?: string }[];
}

interface _ResponseBody {
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    input_tokens_details?: { cached_tokens?: number };
    output_tokens_details?: { reasoning_tokens?: number };
  };
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
}

interface _Event {
  type?: string;
  output_index?: number;
  summary_index?: number;
  delta?: string;
  item?: _Item;
  response?: _ResponseBody;
  code?: string | null;
  message?: string;
  error?: { code?: string; message?: string; type?: string };
}

async function* _decodeResponses(messages: AsyncIterable<SseMessage>, draft: MessageDraft): AsyncGenerator<ModelEvent, DecodeEnd, undefined> {
  const callIds = new Map<number, string>();
  const summaryIndex = new Map<number, number>();
  for await (const message of messages) {
    const event = parseEventData<_Event>(message.data);
    if (!event) continue;
    const index = event.output_index ?? 0;
    switch (event.type) {
      case "response.output_item.added": {
        const item = event.item ?? {};
        if (item.type === "function_call") yield* _startCall(draft, callIds, index, item);
        else if (item.type === "reasoning" && item.id) draft.updateReasoning(index, _PROTOCOL, { itemId: item.id });
        break;
      }
      case "response.reasoning_summary_text.delta": {
        if (!event.delta) break;
        const previous = summaryIndex.get(index);
        const current = event.summary_index ?? 0;
        summaryIndex.set(index, current);
        const text = previous !== undefined && previous !== current ? `\n\n${event.delta}` : event.delta;
        draft.appendReasoning(index, text, _PROTOCOL);
        yield { type: "reasoning-delta", text };
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (!event.delta) break;
        draft.appendText(index, event.delta);
        yield { type: "text-delta", text: event.delta };
        break;
      case "response.function_call_arguments.delta": {
        const id = callIds.get(index);
        if (id === undefined || !event.delta) break;
        draft.appendToolArgs(index, event.delta);
        yield { type: "tool-call-delta", id, argsDelta: event.delta };
        break;
      }
      case "response.output_item.done":
        yield* _finishItem(draft, callIds, summaryIndex, index, event.item ?? {});
        break;
      case "response.completed":
      case "response.incomplete": {
        const response = event.response ?? {};
        if (response.usage) draft.usage = _usage(response.usage);
        const reason = response.incomplete_details?.reason;
        if (reason === "max_output_tokens") return { kind: "complete", stop: "length" };
        if (reason === "content_filter") return { kind: "complete", stop: "content-filter" };
        return { kind: "complete", stop: draft.hasToolCalls() ? "tool-calls" : "stop" };
      }
      case "response.failed": {
        const error = event.response?.error ?? {};
        return { kind: "failed", failure: { message: error.message ?? "the response failed", ...(error.code ? { code: error.code } : {}) } };
      }
      case "error": {
        const code = event.code ?? event.error?.code ?? event.error?.type;
        return { kind: "failed", failure: { message: event.message ?? event.error?.message ?? "the provider reported an error", ...(code ? { code } : {}) } };
      }
    }
  }
  return { kind: "truncated" };
}

async function* _startCall(draft: MessageDraft, callIds: Map<number, string>, index: number, item: _Item): AsyncGenerator<ModelEvent, void, undefined> {
  if (callIds.has(index)) return;
  const id = item.call_id ?? item.id ?? `call_${index}`;
  const name = item.name ?? "";
  callIds.set(index, id);
  draft.startToolCall(index, id, name);
  yield { type: "tool-call-start", id, name };
}

async function* _finishItem(
  draft: MessageDraft,
  callIds: Map<number, string>,
  summaryIndex: Map<number, number>,
  index: number,
  item: _Item,
): AsyncGenerator<ModelEvent, void, undefined> {
  if (item.type === "function_call") {
    yield* _startCall(draft, callIds, index, item);
    if (typeof item.arguments === "string") draft.setToolArgs(index, item.arguments);
    return;
  }
  if (item.type !== "reasoning") return;
  const summary = (item.summary ?? []).map((part) => part.text ?? "").filter((text) => text.length > 0);
  if (!summaryIndex.has(index) && summary.length > 0) {
    const text = summary.join("\n\n");
    draft.appendReasoning(index, text, _PROTOCOL);
    yield { type: "reasoning-delta", text };
  }
  draft.updateReasoning(index, _PROTOCOL, {
    ...(item.id ? { itemId: item.id } : {}),
    ...(item.encrypted_content ? { encryptedContent: item.encrypted_content } : {}),
    summary,
  });
}

function _usage(usage: NonNullable<_ResponseBody["usage"]>): Usage {
  const cached = usage.input_tokens_details?.cached_tokens;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}
