/**
 * Our internal message model. Sessions persist exactly these shapes (versioned by the session
 * store), and each adapter converts to its wire format at one boundary and back.
 *
 * Invariants the loop and the context manager keep, and the fake provider checks on every request:
 * - every `tool-result` answers a `tool-call` (same `callId`) in the assistant message just before it;
 * - every `tool-call` gets a result in the next message, except a suspended-approval tail;
 * - reasoning parts stay in the assistant message (one model response) they came from.
 */

import * as v from "valibot";

/** The wire protocols, one adapter each. */
export const PROTOCOLS = ["openai-chat", "openai-responses", "anthropic"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

// Each part and message is declared once, as its valibot entries: the type is inferred from
// them, and the loose schema that validates a stored session (lib/store/session-schema.ts) is
// built from them (loose: a field this version does not know is carried through unchanged).

const _textPart = { type: v.literal("text"), text: v.string() };

/**
 * Reasoning ("thinking") from one response. `text` is what the user may see; the opaque fields
 * are what the provider needs back, and are only replayed to the protocol that produced them.
 */
const _reasoningPart = {
  type: v.literal("reasoning"),
  text: v.string(),
  protocol: v.picklist(PROTOCOLS),
  /** Anthropic: the thinking block's signature. */
  signature: v.optional(v.string()),
  /** Anthropic: a redacted_thinking block's data (text is empty then). */
  redactedData: v.optional(v.string()),
  /** OpenAI Responses: the reasoning item id (`rs_…`) and its encrypted content. */
  itemId: v.optional(v.string()),
  encryptedContent: v.optional(v.string()),
  /** OpenAI Responses: the summary parts, replayed as sent. */
  summary: v.optional(v.array(v.string())),
};

const _toolCallPart = {
  type: v.literal("tool-call"),
  /** The provider's call id (`call_…`, `toolu_…`); results refer to it. */
  id: v.string(),
  name: v.string(),
  /** Parsed arguments. When the model sent unparsable JSON, `{}` and `inputError` is set. */
  input: v.unknown(),
  /** Raw argument text when it did not parse as a JSON object; the loop answers with an error. */
  inputError: v.optional(v.string()),
  /**
   * OpenAI chat: the `extra_content` object a server attached to the call, sent back with it as
   * is (Gemini's OpenAI-compatible endpoint puts the thought signature its models require there).
   */
  extraContent: v.optional(v.record(v.string(), v.unknown())),
};

/**
 * `bookkeeping`: the result (and its call) is the agent's own traffic, not something said: a tool
 * declaring `memoryContent: false`, or a denied call. Kept and sent like any result; never indexed.
 */
const _toolResultPart = {
  type: v.literal("tool-result"),
  callId: v.string(),
  name: v.string(),
  output: v.string(),
  isError: v.optional(v.boolean()),
  bookkeeping: v.optional(v.boolean()),
};

/** The image types a user message may carry (what the three protocols all accept). */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** An image attached to a user message (`@pic.png` in the REPL): base64 data, sent before the text. */
const _image = { mediaType: v.picklist(IMAGE_MEDIA_TYPES), data: v.string() };

const _userMessage = { role: v.literal("user"), content: v.string(), images: v.optional(v.array(v.object(_image))) };

function _buildSchemas() {
  const text = v.looseObject(_textPart);
  const reasoning = v.looseObject(_reasoningPart);
  const toolCall = v.looseObject(_toolCallPart);
  const toolResult = v.looseObject(_toolResultPart);
  const user = v.looseObject(_userMessage);
  const assistant = v.looseObject({ role: v.literal("assistant"), parts: v.array(v.variant("type", [text, reasoning, toolCall])) });
  const tool = v.looseObject({ role: v.literal("tool"), results: v.array(toolResult) });
  return { text, reasoning, toolCall, toolResult, user, assistant, tool };
}
let _schemas: ReturnType<typeof _buildSchemas> | undefined;
/** The loose schemas of the parts and messages, built at first use (a start-up that loads no session builds none). */
export const messageSchemas = (): ReturnType<typeof _buildSchemas> => (_schemas ??= _buildSchemas());

// The types, from the same entries as strict objects (no index signature for unknown fields).
// Never called: only its return type is used, so no schema is built for the types.
function _typedSchemas() {
  const typed = { text: v.object(_textPart), reasoning: v.object(_reasoningPart), toolCall: v.object(_toolCallPart), toolResult: v.object(_toolResultPart) };
  const assistant = v.object({ role: v.literal("assistant"), parts: v.array(v.variant("type", [typed.text, typed.reasoning, typed.toolCall])) });
  const tool = v.object({ role: v.literal("tool"), results: v.array(typed.toolResult) });
  return { ...typed, assistant, tool };
}
type _Typed = ReturnType<typeof _typedSchemas>;

export type TextPart = v.InferOutput<_Typed["text"]>;
export type ReasoningPart = v.InferOutput<_Typed["reasoning"]>;
export type ToolCallPart = v.InferOutput<_Typed["toolCall"]>;
export type ToolResultPart = v.InferOutput<_Typed["toolResult"]>;
export type UserMessage = v.InferOutput<v.ObjectSchema<typeof _userMessage, undefined>>;
export type AssistantMessage = v.InferOutput<_Typed["assistant"]>;
/** The results of one assistant message's tool calls, in call order. */
export type ToolMessage = v.InferOutput<_Typed["tool"]>;
export type Message = UserMessage | AssistantMessage | ToolMessage;

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Tokens read from a provider-side prompt cache, when reported (included in inputTokens). */
  cachedInputTokens?: number;
  /** Reasoning tokens, when reported (included in outputTokens). */
  reasoningTokens?: number;
}

/** Why a model response ended. */
export type StopReason = "stop" | "tool-calls" | "length" | "content-filter";

export function assistantText(message: AssistantMessage): string {
  return message.parts
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text)
    .join("");
}

export function toolCalls(message: AssistantMessage): ToolCallPart[] {
  return message.parts.filter((part): part is ToolCallPart => part.type === "tool-call");
}

export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined
      ? { cachedInputTokens: (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0) }
      : {}),
    ...(a.reasoningTokens !== undefined || b.reasoningTokens !== undefined ? { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) } : {}),
  };
}
