/**
 * The REPL's approval mode for the session, switched with Shift+Tab or `/mode`:
 * - `ask`: every call the rules leave to the user is asked (the default);
 * - `accept-edits`: a call that declares `effect: "write"` (file edits) is allowed without the
 *   question; commands, network and a read of a possible secret are still asked;
 * - `plan`: read-only, every call that would be asked and is not a read is denied, and the model
 *   is told why.
 * The mode answers only questions the gate would put: rules that deny still deny, guards still block.
 */
import type { ApprovalAnswer, ApprovalRequest } from "../approval/request.ts";

export const SESSION_MODES = ["ask", "accept-edits", "plan"] as const;
export type SessionMode = (typeof SESSION_MODES)[number];

export const PLAN_MODE_REASON = "the session is in plan mode (read-only): nothing may be changed or run; describe the change instead of making it.";

/** The answer the mode gives without asking; undefined when the question is put. */
export function answerByMode(mode: SessionMode, request: ApprovalRequest): ApprovalAnswer | undefined {
  if (request.secret || request.sandbox !== undefined) return mode === "plan" ? { deny: PLAN_MODE_REASON } : undefined;
  if (mode === "accept-edits" && request.effect === "write") return "once";
  if (mode === "plan" && request.effect !== "read") return { deny: PLAN_MODE_REASON };
  return undefined;
}

/** The mode after `mode` in Shift+Tab's cycle. */
export function nextMode(mode: SessionMode): SessionMode {
  return SESSION_MODES[(SESSION_MODES.indexOf(mode) + 1) % SESSION_MODES.length]!;
}

/** The mode a `/mode` argument names (`ask`, `accept-edits` or `edits`, `plan`); undefined for anything else. */
export function parseMode(text: string): SessionMode | undefined {
  const word = text.trim().toLowerCase();
  if (word === "edits" || word === "accept") return "accept-edits";
  return (SESSION_MODES as readonly string[]).includes(word) ? (word as SessionMode) : undefined;
}

/** One line for the mode: what it does to the questions. */
export function describeMode(mode: SessionMode): string {
  if (mode === "accept-edits") return "accept-edits (file edits run without asking; commands still ask) - Shift+Tab or /mode to change";
  if (mode === "plan") return "plan (read-only: calls that would change or run anything are refused) - Shift+Tab or /mode to change";
  return "ask (every call the rules leave open is asked) - Shift+Tab or /mode to change";
}
