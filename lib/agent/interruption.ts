/**
 * What a turn the user interrupted leaves in the history, the same on every wire protocol:
 * - a prompt cancelled before the model answered anything is dropped, as if it was never sent;
 * - otherwise the turn stays (its text so far, its tool calls with their results) and is closed
 *   by a user message `[the user interrupted this request]`, so the model reads that the request
 *   was withdrawn and does not carry it out on the next turn.
 * A turn that failed (a provider error) is treated the same way, so a failed prompt is never
 * re-sent unmarked before the next one: with no answer at all it is dropped (the REPL's `/retry`
 * sends it again), otherwise it is closed by `[this request failed with an error; the user may
 * retry it]`.
 */
import type { Message } from "../messages.ts";

export const INTERRUPTED_MARKER = "[the user interrupted this request]";

/**
 * Marks the interrupted turn that began at `start` in `messages` (the prompt's index when
 * `hadPrompt`, else where a resumed run continued). Returns what it did.
 */
export function markInterrupted(messages: Message[], start: number, hadPrompt: boolean): "dropped" | "marked" {
  if (hadPrompt && messages.length === start + 1 && messages[start]?.role === "user") {
    messages.splice(start, 1);
    return "dropped";
  }
  const last = messages.at(-1);
  if (last?.role === "user" && last.content === INTERRUPTED_MARKER) return "marked";
  messages.push({ role: "user", content: INTERRUPTED_MARKER });
  return "marked";
}

export const FAILED_MARKER = "[this request failed with an error; the user may retry it]";

/** Marks the failed turn that began at `start`, as `markInterrupted` does an interrupted one. */
export function markFailed(messages: Message[], start: number, hadPrompt: boolean): "dropped" | "marked" {
  if (hadPrompt && messages.length === start + 1 && messages[start]?.role === "user") {
    messages.splice(start, 1);
    return "dropped";
  }
  const last = messages.at(-1);
  if (last?.role === "user" && (last.content === FAILED_MARKER || last.content === INTERRUPTED_MARKER)) return "marked";
  messages.push({ role: "user", content: FAILED_MARKER });
  return "marked";
}
