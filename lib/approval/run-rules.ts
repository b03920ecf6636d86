/**
 * One run's tool rules from the command line (`--allowed-tools`, `--disallowed-tools`), layered
 * over the config's `permission` for that run only; nothing is written back.
 *
 * A rule is a tool and an optional pattern, in shiro's spelling or Claude Code's:
 * `bash`, `bash(git status*)`, `Bash(git status:*)`, `Edit`, `Edit(src/**)`, `mcp__server__tool`,
 * `mcp__server__*`. Claude Code's tool names map onto shiro's (`Edit` is edit_file, multi_edit
 * and apply_patch); its `:*` suffix is "this command, with or without arguments" and its `**`
 * is shiro's `*` (which already crosses `/`). A value may hold several rules separated by commas
 * or by spaces outside parentheses, as Claude Code's `--allowedTools "Bash(git log:*) Read"`.
 *
 * Layering: each rule appends `[pattern, decision]` to the tool's table (the config's entry, or
 * the tool's default), allowed rules first and disallowed ones after, so within a table the
 * disallowed rule is the later one and wins. A disallowed rule without a pattern also withholds
 * the tool from the run (`removed`).
 */
import { UsageError } from "../platform/errors.ts";
import { matchPattern, type Decision, type PermissionConfig, type PermissionEntry } from "./rules.ts";

export interface RunToolRule {
  tool: string;
  /** The subject pattern; `*` when the rule names the whole tool. */
  pattern: string;
}

export interface RunRules {
  permission: PermissionConfig;
  /** Tool names or wildcard keys a disallowed rule names whole: those tools are not offered in this run. */
  removed: readonly string[];
}

/** True when a disallowed rule names the whole of `tool` (by name or wildcard key). */
export function isWithheld(rules: RunRules, tool: string): boolean {
  return rules.removed.some((key) => matchPattern(key, tool));
}

/** Claude Code's tool names and the shiro tools each stands for. */
const _CLAUDE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Bash: ["bash"],
  Read: ["read_file", "read_many_files"],
  Edit: ["edit_file", "multi_edit", "apply_patch"],
  MultiEdit: ["multi_edit"],
  Write: ["write_file"],
  Glob: ["glob"],
  Grep: ["grep"],
  LS: ["list_dir"],
  WebFetch: ["web_fetch"],
  Task: ["task"],
  TodoWrite: ["todo_write"],
};

/** The shiro tools a tool name stands for: Claude Code's names mapped (`Edit` is three), shiro's as they are. */
export function shiroToolNames(name: string): readonly string[] {
  return _CLAUDE_TOOLS[name] ?? [name];
}

const _RULE = /^([A-Za-z0-9_*?-]+)(?:\((.*)\))?$/s;

/** Splits one flag value into rule texts: commas, and spaces outside parentheses, separate. */
export function splitRuleList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (ch === "(") depth += 1;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current) out.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  if (current) out.push(current);
  return out;
}

/** The shiro rules one rule text stands for. Throws a one-line UsageError naming the flag on a bad spelling. */
export function parseRunToolRule(text: string, flag: string): RunToolRule[] {
  const match = _RULE.exec(text.trim());
  if (!match)
    throw new UsageError(
      `${flag}: "${text}" is not a tool rule; write a tool name, optionally with a pattern: bash, "bash(git status*)", "Bash(git status:*)", Edit, mcp__server__tool`,
    );
  const [, name, inner] = match;
  const pattern = inner === undefined || inner.trim() === "" ? "*" : _pattern(inner.trim());
  const tools = shiroToolNames(name!);
  return tools.map((tool) => ({ tool, pattern }));
}

function _pattern(inner: string): string {
  const prefix = inner.endsWith(":*") ? `${inner.slice(0, -2)}*` : inner;
  return prefix.replace(/\*\*+/g, "*");
}

/** The config's permission with the run's rules layered over it (see the module comment). */
export function layerRunRules(
  permission: PermissionConfig | undefined,
  defaults: PermissionConfig,
  lists: { allowed?: readonly string[]; disallowed?: readonly string[] },
): RunRules {
  const out: PermissionConfig = { ...(permission ?? {}) };
  const removed: string[] = [];
  const add = (rule: RunToolRule, decision: "allow" | "deny") => {
    const base = out[rule.tool] ?? defaults[rule.tool];
    const table = base === undefined ? {} : _asTable(base);
    delete table[rule.pattern];
    table[rule.pattern] = decision;
    // A wildcard key moves last, where it wins over earlier matching keys.
    delete out[rule.tool];
    out[rule.tool] = table;
  };
  for (const text of (lists.allowed ?? []).flatMap(splitRuleList)) for (const rule of parseRunToolRule(text, "--allowed-tools")) add(rule, "allow");
  for (const text of (lists.disallowed ?? []).flatMap(splitRuleList)) {
    for (const rule of parseRunToolRule(text, "--disallowed-tools")) {
      add(rule, "deny");
      if (rule.pattern === "*") removed.push(rule.tool);
    }
  }
  return { permission: out, removed };
}

function _asTable(entry: PermissionEntry): Record<string, Decision> {
  return typeof entry === "string" ? { "*": entry } : { ...entry };
}
