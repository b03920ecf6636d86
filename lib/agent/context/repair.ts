/**
 * Wire repair: turns any selection of the history into a request all three protocols accept.
 *
 * The rules are the intersection of what OpenAI Chat, OpenAI Responses and Anthropic require,
 * so the result does not depend on the protocol. On the returned array:
 * - every tool result answers a call of the assistant message right before it (each call once);
 *   other results are dropped, and a tool message left without results is dropped;
 * - every tool call has its result in the next message, except the calls of a trailing assistant
 *   message (nothing but tool messages after it): a suspended approval. Other unanswered calls
 *   are dropped;
 * - no message is empty: blank user messages and blank text parts are dropped, and so is an
 *   assistant message left with no text and no tool call (reasoning alone is no valid message:
 *   Chat sends none, Anthropic and Responses reject a thinking block or reasoning item with no
 *   output after it).
 * Reasoning parts of other protocols are kept; adapters drop them.
 *
 * A message that needs no repair comes back as the same object, so a valid history comes back
 * element for element identical (callers may compare by reference).
 */
import type { AssistantMessage, Message, ToolMessage } from "../../messages.ts";

export function repairForWire(messages: Message[]): Message[] {
  const trailing = _trailingAssistantIndex(messages);
  const out: Message[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role === "user") {
      if (message.content.trim() !== "") out.push(message);
      continue;
    }
    if (message.role === "assistant") {
      const repaired = _repairAssistant(message, messages[index + 1], index === trailing);
      if (repaired) out.push(repaired);
      continue;
    }
    const repaired = _repairToolMessage(message, out[out.length - 1]);
    if (repaired) out.push(repaired);
  }
  return out;
}

/** Index of the last assistant message when only tool messages follow it, else -1. */
function _trailingAssistantIndex(messages: Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const role = messages[index]!.role;
    if (role === "assistant") return index;
    if (role !== "tool") return -1;
  }
  return -1;
}

function _repairAssistant(message: AssistantMessage, next: Message | undefined, trailing: boolean): AssistantMessage | undefined {
  const answered = new Set(next?.role === "tool" ? next.results.map((result) => result.callId) : []);
  const seen = new Set<string>();
  const parts = message.parts.filter((part) => {
    if (part.type === "text") return part.text.trim() !== "";
    if (part.type !== "tool-call") return true;
    if (seen.has(part.id)) return false;
    seen.add(part.id);
    return trailing || answered.has(part.id);
  });
  if (!parts.some((part) => part.type !== "reasoning")) return undefined;
  return parts.length === message.parts.length ? message : { ...message, parts };
}

function _repairToolMessage(message: ToolMessage, previous: Message | undefined): ToolMessage | undefined {
  if (previous?.role !== "assistant") return undefined;
  const open = new Set(previous.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : [])));
  const results = message.results.filter((result) => open.delete(result.callId));
  if (results.length === 0) return undefined;
  return results.length === message.results.length ? message : { ...message, results };
}
