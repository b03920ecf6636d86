/**
 * Our internal message model. Sessions persist exactly these shapes (versioned by the session
 * store), and each adapter converts to its wire format at one boundary and back.
 *
 * Invariants the loop and the context manager keep, and the fake provider checks on every request:
 * - every `tool-result` answers a `tool-call` (same `callId`) in the assistant message just before it;
 * - every `tool-call` gets a result in the next message, except a suspended-approval tail;
 * - reasoning parts stay in the assistant message (one model response) they came from.
 */

export type Protocol = "openai-chat" | "openai-responses" | "anthropic";

export interface TextPart {
  type: "text";
  text: string;
}

/**
 * Reasoning ("thinking") from one response. `text` is what the user may see; the opaque fields
 * are what the provider needs back, and are only replayed to the protocol that produced them.
 */
export interface ReasoningPart {
  type: "reasoning";
  text: string;
  protocol: Protocol;
  /** Anthropic: the thinking block's signature. */
  signature?: string;
  /** Anthropic: a redacted_thinking block's data (text is empty then). */
  redactedData?: string;
  /** OpenAI Responses: the reasoning item id (`rs_…`) and its encrypted content. */
  itemId?: string;
  encryptedContent?: string;
  /** OpenAI Responses: the summary parts, replayed as sent. */
  summary?: string[];
}

export interface ToolCallPart {
  type: "tool-call";
  /** The provider's call id (`call_…`, `toolu_…`); results refer to it. */
  id: string;
  name: string;
  /** Parsed arguments. When the model sent unparsable JSON, `{}` and `inputError` is set. */
  input: unknown;
  /** Raw argument text when it did not parse as a JSON object; the loop answers with an error. */
  inputError?: string;
  /**
   * OpenAI chat: the `extra_content` object a server attached to the call, sent back with it as
   * is (Gemini's OpenAI-compatible endpoint puts the thought signature its models require there).
   */
  extraContent?: Record<string, unknown>;
}

export interface ToolResultPart {
  type: "tool-result";
  callId: string;
  name: string;
  output: string;
  isError?: boolean;
}

export interface UserMessage {
  role: "user";
  content: string;
}

export interface AssistantMessage {
  role: "assistant";
  parts: (TextPart | ReasoningPart | ToolCallPart)[];
}

/** The results of one assistant message's tool calls, in call order. */
export interface ToolMessage {
  role: "tool";
  results: ToolResultPart[];
}

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
  return message.parts.filter((part): part is TextPart => part.type === "text").map((part) => part.text).join("");
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
      ? { cachedInputTokens: (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0) } : {}),
    ...(a.reasoningTokens !== undefined || b.reasoningTokens !== undefined
      ? { reasoningTokens: (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0) } : {}),
  };
}
