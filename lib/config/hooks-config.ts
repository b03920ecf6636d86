/**
 * Hooks in Claude Code's settings format, read from config `hooks` and from a project's
 * `.claude/settings.json` / `.claude/settings.local.json` (docs/hooks.md):
 *
 *   { "<Event>": [{ "matcher": "<regex>", "hooks": [{ "type": "command", "command": "…", "timeout": 60 }] }] }
 *
 * `timeout` is in seconds (default 60). Config `hooks` is validated strictly (a typo is an error
 * naming the field); a project's settings file is read leniently, because Claude Code knows events
 * and hook types shiro does not run: those entries are skipped with a reason, never an error.
 */
import * as v from "valibot";

export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run before its process tree is killed, unless it says otherwise (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

/** Config `hooks`' schema, built on first use (lib/config/config.ts): every event Claude Code documents that shiro runs, each a list of matcher groups. */
export const hooksSchema = (): _HooksSchema => (_hooks ??= _buildHooksSchema());
let _hooks: _HooksSchema | undefined;
type _HooksSchema = ReturnType<typeof _buildHooksSchema>;

function _buildHooksSchema() {
  const command = v.strictObject({
    type: v.literal("command", 'must be "command"'),
    command: v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty")),
    timeout: v.optional(v.pipe(v.number("must be a number of seconds"), v.minValue(0.001, "must be positive"), v.maxValue(3600, "must be at most 3600"))),
  });
  const matcher = v.strictObject({
    matcher: v.optional(v.string("must be a string")),
    hooks: v.array(command, "must be a list of hooks"),
  });
  return v.strictObject(
    Object.fromEntries(HOOK_EVENTS.map((event) => [event, v.optional(v.array(matcher, "must be a list of {matcher, hooks}"))])) as Record<
      HookEventName,
      v.OptionalSchema<v.ArraySchema<typeof matcher, string>, undefined>
    >,
    () => `is not a hook event (${HOOK_EVENTS.join(", ")})`,
  );
}

export type HooksConfig = v.InferOutput<_HooksSchema>;

/** One hook command as shiro runs it: which event, which matcher, what runs, and the file it came from. */
export interface HookEntry {
  event: HookEventName;
  /** As written; "" when absent (matches everything). */
  matcher: string;
  command: string;
  timeoutSec: number;
  /** The file it was read from (config.json, .claude/settings.json, .claude/settings.local.json). */
  source: string;
}

/** The hooks of config `hooks` (already validated by the config schema). */
export function hookEntriesFromConfig(hooks: HooksConfig | undefined, source: string): HookEntry[] {
  const entries: HookEntry[] = [];
  for (const event of HOOK_EVENTS) {
    for (const group of hooks?.[event] ?? []) {
      for (const hook of group.hooks) {
        entries.push({ event, matcher: group.matcher ?? "", command: hook.command, timeoutSec: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_S, source });
      }
    }
  }
  return entries;
}

/**
 * The hooks of a Claude Code settings object's `hooks` field, read leniently: an event shiro does
 * not run, a hook that is not a command, or a malformed entry is listed in `skipped` with why.
 */
export function hookEntriesFromSettings(raw: unknown, source: string): { entries: HookEntry[]; skipped: string[] } {
  const entries: HookEntry[] = [];
  const skipped: string[] = [];
  if (raw === undefined) return { entries, skipped };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return { entries, skipped: [`"hooks" is not an object`] };
  for (const [event, groups] of Object.entries(raw as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      skipped.push(`${event}: shiro does not raise this event`);
      continue;
    }
    if (!Array.isArray(groups)) {
      skipped.push(`${event}: not a list of {matcher, hooks}`);
      continue;
    }
    for (const [index, group] of groups.entries()) {
      const hooks = (group as { hooks?: unknown } | null)?.hooks;
      const matcher = (group as { matcher?: unknown } | null)?.matcher;
      if (!Array.isArray(hooks) || (matcher !== undefined && typeof matcher !== "string")) {
        skipped.push(`${event}[${index}]: not {matcher?: string, hooks: [...]}`);
        continue;
      }
      for (const hook of hooks) {
        const record = (hook ?? {}) as { type?: unknown; command?: unknown; timeout?: unknown };
        if (record.type !== "command") {
          skipped.push(`${event}[${index}]: a ${JSON.stringify(record.type)} hook (shiro runs command hooks only)`);
          continue;
        }
        if (typeof record.command !== "string" || record.command.trim() === "") {
          skipped.push(`${event}[${index}]: a command hook without a command`);
          continue;
        }
        const timeout = typeof record.timeout === "number" && record.timeout > 0 ? Math.min(record.timeout, 3600) : DEFAULT_HOOK_TIMEOUT_S;
        entries.push({ event: event as HookEventName, matcher: matcher ?? "", command: record.command, timeoutSec: timeout, source });
      }
    }
  }
  return { entries, skipped };
}
