/**
 * Claude Code's hook contract, read: which hooks a matcher selects, and what one hook run says
 * (docs/hooks.md is the user's version of the same rules).
 *
 * Matchers: absent, `""` or `*` match everything; a plain name or `A|B` list (letters, digits,
 * `_`, `|`) matches those names exactly; anything else is a regular expression that must match the
 * whole name. Tool events match the Claude Code name or shiro's own; SessionStart matches its
 * `source`, PreCompact its `trigger`, Notification its `notification_type`, SessionEnd its
 * `reason`; UserPromptSubmit, Stop and SubagentStop ignore the matcher, as Claude Code does.
 *
 * Exit codes: 0 reads stdout (JSON when it is a JSON object, else plain text: context for
 * UserPromptSubmit and SessionStart, logged for the rest); 2 blocks, with stderr as the reason
 * (where the event cannot be blocked — SessionStart, SessionEnd, PreCompact, Notification —
 * stderr is a notice); anything else, or a kill at the timeout, is a notice and the work goes on.
 */
import type { HookEventName } from "../../config/hooks-config.ts";
import type { HookRun } from "./hook-process.ts";

export type PermissionVerdict = "allow" | "deny" | "ask";

/** What one hook run asks of shiro. Every field is optional: a hook that says nothing changes nothing. */
export interface HookVerdict {
  /** Exit 2, or `decision: "block"`: the reason (stderr, or `reason`). */
  block?: string;
  /** PreToolUse's `permissionDecision` (or the older `decision: "approve"`). */
  permission?: PermissionVerdict;
  permissionReason?: string;
  /** PreToolUse's `updatedInput`, in Claude Code's fields. */
  updatedInput?: Record<string, unknown>;
  /** `additionalContext`, or plain stdout of UserPromptSubmit and SessionStart. */
  context?: string;
  /** `continue: false`: the turn ends; its `stopReason`. */
  stop?: string;
  /** For the user: `systemMessage`, a failing hook's stderr, a timeout. */
  notice?: string;
  /** Plain stdout that is only logged (absent with `suppressOutput`). */
  logged?: string;
}

const _PLAIN_MATCHER = /^[A-Za-z0-9_|]+$/;

export function hookMatches(matcher: string, names: readonly string[]): boolean {
  if (matcher === "" || matcher === "*") return true;
  if (_PLAIN_MATCHER.test(matcher)) return matcher.split("|").some((name) => names.includes(name));
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${matcher})$`);
  } catch {
    return false;
  }
  return names.some((name) => regex.test(name));
}

/** Events a hook can block; for the others, exit 2 only shows its stderr to the user. */
const _BLOCKING_EVENTS: ReadonlySet<HookEventName> = new Set(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"]);

/** Events whose plain stdout is context the model reads. */
const _CONTEXT_EVENTS: ReadonlySet<HookEventName> = new Set(["UserPromptSubmit", "SessionStart"]);

/** Reads one run by Claude Code's rules for `event`. */
export function readHookRun(event: HookEventName, run: HookRun, command: string): HookVerdict {
  if (run.timedOut) return { notice: `${event} hook \`${_short(command)}\` was killed at its timeout; shiro went on without it` };
  if (run.exit === 2) {
    if (!_BLOCKING_EVENTS.has(event)) return { notice: `${event} hook \`${_short(command)}\`: ${run.stderr.trim() || "exit 2"}` };
    const reason = run.stderr.trim() || `the ${event} hook \`${_short(command)}\` blocked this (exit 2) without saying why`;
    return { block: reason };
  }
  if (run.exit !== 0) {
    const why = run.stderr.trim().split("\n")[0] || "no message";
    return { notice: `${event} hook \`${_short(command)}\` failed (exit ${run.exit ?? "none"}): ${why}` };
  }
  const json = _jsonObject(run.stdout);
  if (!json) {
    const text = run.stdout.trim();
    if (!text) return {};
    return _CONTEXT_EVENTS.has(event) ? { context: text } : { logged: text };
  }
  return _readJson(event, json);
}

function _readJson(event: HookEventName, json: Record<string, unknown>): HookVerdict {
  const verdict: HookVerdict = {};
  const text = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value : undefined);
  if (json.continue === false) verdict.stop = text(json.stopReason) ?? `a ${event} hook stopped the turn`;
  if (text(json.systemMessage)) verdict.notice = json.systemMessage as string;
  const specific = json.hookSpecificOutput !== null && typeof json.hookSpecificOutput === "object" ? (json.hookSpecificOutput as Record<string, unknown>) : {};
  const reason = text(json.reason);
  if (event === "PreToolUse") {
    const decision = specific.permissionDecision ?? (json.decision === "approve" ? "allow" : json.decision === "block" ? "deny" : undefined);
    if (decision === "allow" || decision === "deny" || decision === "ask") {
      verdict.permission = decision;
      const why = text(specific.permissionDecisionReason) ?? reason;
      if (why) verdict.permissionReason = why;
    }
    if (specific.updatedInput !== null && typeof specific.updatedInput === "object" && !Array.isArray(specific.updatedInput))
      verdict.updatedInput = specific.updatedInput as Record<string, unknown>;
  } else if (json.decision === "block" && _BLOCKING_EVENTS.has(event)) {
    verdict.block = reason ?? `a ${event} hook blocked this without saying why`;
  }
  const context = text(specific.additionalContext);
  if (context) verdict.context = context;
  return verdict;
}

function _jsonObject(stdout: string): Record<string, unknown> | undefined {
  const trimmed = stdout.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function _short(command: string): string {
  const line = command.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}
