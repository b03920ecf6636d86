/**
 * The assistant message being streamed, shared by the adapters' stream decoders.
 *
 * Parts are kept in the order they first appeared and addressed by a protocol-chosen slot key
 * (a content block index, an output item index, a tool call index). Tool-call arguments are
 * collected as raw text and parsed once, when the message is built.
 */
import type { AssistantMessage, Protocol, ReasoningPart, TextPart, ToolCallPart, Usage } from "../messages.ts";

type SlotKey = string | number;

interface _ToolSlot {
  type: "tool-call";
  id: string;
  name: string;
  args: string;
  /** Used when no argument text streamed (Anthropic puts the input on the block start). */
  fallbackArgs?: string;
  extraContent?: Record<string, unknown>;
}

type _Slot = TextPart | ReasoningPart | _ToolSlot;

export interface MessageDraft {
  /** True once any text, reasoning or tool call arrived: from then on a failure cannot be retried. */
  readonly hasOutput: boolean;
  /** Latest usage the stream reported; decoders overwrite fields as they learn them. */
  usage: Usage;
  appendText(key: SlotKey, text: string): void;
  appendReasoning(key: SlotKey, text: string, protocol: Protocol): void;
  /** Sets fields of the reasoning part at `key` (opening it when absent); counts as output only once it has text. */
  updateReasoning(key: SlotKey, protocol: Protocol, fields: Partial<Omit<ReasoningPart, "type" | "protocol">>): void;
  startToolCall(key: SlotKey, id: string, name: string, fallbackArgs?: string): void;
  /** Returns the call's id, or undefined when no call was started at `key`. */
  appendToolArgs(key: SlotKey, delta: string): string | undefined;
  /** Replaces the argument text with the final one the provider sent, when it sent one. */
  setToolArgs(key: SlotKey, args: string): void;
  /** Merges provider fields kept with the call and replayed as sent (ToolCallPart.extraContent). */
  mergeToolExtra(key: SlotKey, extra: Record<string, unknown>): void;
  hasToolCalls(): boolean;
  /** The complete message: tool arguments parsed, empty text and empty reasoning dropped. */
  build(): AssistantMessage;
  /**
   * What streamed before an abort or failure, without tool calls (an unfinished call has no
   * result and would break the history invariants). Undefined when nothing useful streamed.
   */
  partial(): AssistantMessage | undefined;
}

export function createDraft(): MessageDraft {
  const slots: _Slot[] = [];
  const byKey = new Map<SlotKey, _Slot>();
  let hasOutput = false;

  const open = <T extends _Slot>(key: SlotKey, make: () => T): T => {
    const existing = byKey.get(key);
    if (existing) return existing as T;
    const slot = make();
    slots.push(slot);
    byKey.set(key, slot);
    return slot;
  };

  const finished = (withTools: boolean): AssistantMessage => ({
    role: "assistant",
    parts: slots.flatMap((slot): AssistantMessage["parts"] => {
      if (slot.type === "text") return slot.text.length > 0 ? [{ ...slot }] : [];
      if (slot.type === "reasoning") return _isEmptyReasoning(slot) ? [] : [{ ...slot }];
      return withTools ? [_finishToolCall(slot)] : [];
    }),
  });

  return {
    get hasOutput() {
      return hasOutput;
    },
    usage: { inputTokens: 0, outputTokens: 0 },
    appendText(key, text) {
      if (text.length === 0) return;
      hasOutput = true;
      open<TextPart>(key, () => ({ type: "text", text: "" })).text += text;
    },
    appendReasoning(key, text, protocol) {
      if (text.length === 0) return;
      hasOutput = true;
      open<ReasoningPart>(key, () => ({ type: "reasoning", text: "", protocol })).text += text;
    },
    updateReasoning(key, protocol, fields) {
      Object.assign(
        open<ReasoningPart>(key, () => ({ type: "reasoning", text: "", protocol })),
        fields,
      );
    },
    startToolCall(key, id, name, fallbackArgs) {
      hasOutput = true;
      open<_ToolSlot>(key, () => ({ type: "tool-call", id, name, args: "", ...(fallbackArgs ? { fallbackArgs } : {}) }));
    },
    appendToolArgs(key, delta) {
      const slot = byKey.get(key);
      if (slot?.type !== "tool-call") return undefined;
      slot.args += delta;
      return slot.id;
    },
    setToolArgs(key, args) {
      const slot = byKey.get(key);
      if (slot?.type === "tool-call") slot.args = args;
    },
    mergeToolExtra(key, extra) {
      const slot = byKey.get(key);
      if (slot?.type === "tool-call") slot.extraContent = { ...slot.extraContent, ...extra };
    },
    hasToolCalls() {
      return slots.some((slot) => slot.type === "tool-call");
    },
    build() {
      return finished(true);
    },
    partial() {
      const message = finished(false);
      return message.parts.length > 0 ? message : undefined;
    },
  };
}

function _isEmptyReasoning(part: ReasoningPart): boolean {
  return part.text.length === 0 && !part.signature && !part.redactedData && !part.encryptedContent;
}

function _finishToolCall(slot: _ToolSlot): ToolCallPart {
  const raw = slot.args.trim().length > 0 ? slot.args : (slot.fallbackArgs ?? "");
  const base = { type: "tool-call" as const, id: slot.id, name: slot.name, ...(slot.extraContent ? { extraContent: slot.extraContent } : {}) };
  if (raw.trim().length === 0) return { ...base, input: {} };
  try {
    const input: unknown = JSON.parse(raw);
    if (input !== null && typeof input === "object" && !Array.isArray(input)) return { ...base, input };
  } catch {
    // Not JSON: reported to the loop through inputError below.
  }
  return { ...base, input: {}, inputError: raw };
}
