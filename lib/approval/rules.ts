/**
 * Permission rules, session grants and the repeat guard: the pure parts of approval.
 *
 * Config `permission` maps a tool name, or a wildcard key such as `mcp__*`, to a decision
 * (`allow` | `ask` | `deny`) or to a table `{ "<pattern>": decision, … }` matched against the
 * call's subjects (its command, paths, URL…). Patterns: `*` is any run of characters including
 * newlines, `?` one character, everything else literal; a pattern must match the whole subject.
 * A bash call's subjects are its simple commands, one line each, as `listRuleSubjects`
 * (lib/shell/read.ts) reads them: `env X=1 /usr/bin/git  push` and `true && git push` both
 * give the line `git push`, so `"git push*": "deny"` matches every spelling.
 *
 * Precedence, fixed:
 * - Within a table the last matching pattern wins (insertion order); no match means `ask`.
 * - A tool's own entry (the user's, else the default) replaces everything else for that tool.
 *   The default is the tool's declared `decision` (a plugin's `autoApprove` declares `allow`).
 *   Wildcard keys apply only to tools with neither; among them the last matching key wins.
 *   A tool nothing covers asks.
 * - A call with several subjects is denied if any subject is denied, asks if any asks, and is
 *   allowed only when all are allowed. A call without subjects matches only the `*` pattern.
 *
 * Subjects: what a tool declares in `subjects` (command, URL, pattern), then every path it
 * declares in `paths`, normalised to what the path means (`normalizeRulePath`), so `./x`,
 * `a/../x`, `/abs/ws/x`, `x//` and `x/` are all `x` to a rule. Defaults: each tool's declared
 * `decision` (lib/tools/types.ts), see `defaultPermission`.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";
import { DECISIONS, type Decision } from "../config/config.ts";
import { ConfigError, UserError } from "../platform/errors.ts";
import { isShellParserLoaded } from "../shell/parser.ts";
import { listRuleSubjects } from "../shell/read.ts";

export type { Decision };
export type PermissionEntry = Decision | Record<string, Decision>;
export type PermissionConfig = Record<string, PermissionEntry>;
/** One table: `[pattern, decision]` pairs in insertion order. */
export type RuleTable = readonly (readonly [pattern: string, decision: Decision])[];

export interface PermissionRules {
  /** Tables of named tools: the user's entries, and the defaults of tools the user did not name. */
  readonly tools: ReadonlyMap<string, RuleTable>;
  /** The tool names whose table is the user's own (not a default). */
  readonly userTools: ReadonlySet<string>;
  /** Wildcard keys in config order; they apply to tools that have no table of their own. */
  readonly wildcards: readonly (readonly [key: string, table: RuleTable])[];
}

/** The rule that decided: `tool` is the config key (a tool name or a wildcard key). */
export interface PermissionMatch {
  tool: string;
  pattern: string;
}

export interface PermissionResult {
  decision: Decision;
  matched?: PermissionMatch;
}

/** The default permission of every tool that declares a `decision` (MCP tools declare none). */
/**
 * What the rules read of a tool: its name, default decision and the subjects and paths it
 * declares. A ToolDefinition (lib/tools/types.ts) is one; declared here so the rules need no tools.
 */
export interface RuleDeclaration {
  name: string;
  decision?: Decision;
  /** The shell command of a call, for a tool that runs one (bash). */
  command?: (input: unknown) => string | undefined;
  subjects?: (input: any) => string[];
  paths?: (input: unknown, root: string) => string[];
}

export function defaultPermission(tools: readonly Pick<RuleDeclaration, "name" | "decision">[]): PermissionConfig {
  return Object.fromEntries(tools.flatMap((tool) => (tool.decision ? [[tool.name, tool.decision]] : [])));
}

/**
 * Builds the rules from config `permission` over `defaults` (see `defaultPermission`). An entry
 * that is not a decision (or a table of them) throws a one-line UserError naming the key; an
 * empty table is ignored, so the tool keeps its default.
 */
export function parsePermissionRules(config: unknown = {}, defaults: PermissionConfig = {}): PermissionRules {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new ConfigError(`"permission" must be an object mapping tool names to ${DECISIONS.join(", ")}, or to pattern tables`);
  }
  const tools = new Map<string, RuleTable>();
  for (const [tool, entry] of Object.entries(defaults)) tools.set(tool, _toTable(tool, entry));
  const wildcards: (readonly [string, RuleTable])[] = [];
  const userTools = new Set<string>();
  for (const [key, entry] of Object.entries(config)) {
    const table = _toTable(key, entry);
    if (table.length === 0) continue;
    if (/[*?]/.test(key)) wildcards.push([key, table]);
    else {
      tools.set(key, table);
      userTools.add(key);
    }
  }
  return { tools, userTools, wildcards };
}

/**
 * Adds the declared default of tools made after the rules (session and plugin tools, some of
 * which need the gate that holds the rules): the one home of "does it ask" stays the declaration.
 * A tool the user's config names, or one already known, keeps what it has.
 */
export function addDeclaredDefaults(rules: PermissionRules, tools: readonly Pick<RuleDeclaration, "name" | "decision">[]): void {
  const table = rules.tools as Map<string, RuleTable>;
  for (const [tool, entry] of Object.entries(defaultPermission(tools))) if (!table.has(tool)) table.set(tool, _toTable(tool, entry));
}

function _toTable(key: string, entry: unknown): RuleTable {
  if (typeof entry === "string") return [["*", _toDecision(entry, `"${key}"`)]];
  if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
    throw new ConfigError(`permission."${key}" must be one of ${DECISIONS.join(", ")}, or an object mapping patterns to them`);
  }
  return Object.entries(entry).map(([pattern, decision]) => [pattern, _toDecision(decision, `"${key}"."${pattern}"`)] as const);
}

function _toDecision(value: unknown, where: string): Decision {
  if (typeof value === "string" && (DECISIONS as readonly string[]).includes(value)) return value as Decision;
  throw new ConfigError(`permission.${where} must be one of ${DECISIONS.join(", ")} (got ${JSON.stringify(value)})`);
}

const _compiled = new Map<string, RegExp>();

/** Whole-subject glob match: `*` any characters (newlines too), `?` one character. */
export function matchPattern(pattern: string, subject: string): boolean {
  let regex = _compiled.get(pattern);
  if (!regex) {
    const body = pattern.replace(/[.+^${}()|[\]\\*?]/g, (ch) => (ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : `\\${ch}`));
    regex = new RegExp(`^${body}$`);
    _compiled.set(pattern, regex);
  }
  return regex.test(subject);
}

/** Decides one call of `tool` with the given subjects. */
export function evaluatePermission(rules: PermissionRules, tool: string, subjects: readonly string[]): PermissionResult {
  const own = rules.tools.get(tool);
  if (own) return _evaluateTable(tool, own, subjects);
  for (let i = rules.wildcards.length - 1; i >= 0; i--) {
    const [key, table] = rules.wildcards[i]!;
    if (matchPattern(key, tool)) return _evaluateTable(key, table, subjects);
  }
  return { decision: "ask" };
}

/**
 * False when every rule for `tool` denies or asks: no call of it could run where nobody can be
 * asked (a headless run that denies approvals withholds such tools). Any `allow` entry in the
 * table that applies to it (its own or its declared default, else every matching wildcard's) keeps it.
 */
export function mayAllow(rules: PermissionRules, tool: string): boolean {
  const own = rules.tools.get(tool);
  if (own) return own.some(([, decision]) => decision === "allow");
  return rules.wildcards.some(([key, table]) => matchPattern(key, tool) && table.some(([, decision]) => decision === "allow"));
}

const _SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

function _evaluateTable(key: string, table: RuleTable, subjects: readonly string[]): PermissionResult {
  let strictest: PermissionResult | undefined;
  for (const subject of subjects.length > 0 ? subjects : [undefined]) {
    const result = _matchTable(key, table, subject);
    if (!strictest || _SEVERITY[result.decision] > _SEVERITY[strictest.decision]) strictest = result;
  }
  return strictest!;
}

function _matchTable(key: string, table: RuleTable, subject: string | undefined): PermissionResult {
  for (let i = table.length - 1; i >= 0; i--) {
    const [pattern, decision] = table[i]!;
    const hit = subject === undefined ? pattern === "*" : matchPattern(pattern, subject);
    if (hit) return { decision, matched: { tool: key, pattern } };
  }
  return { decision: "ask" };
}

/**
 * True when one of the user's own rules allows `subject` for `tool` by a pattern other than a
 * bare `*`: the only thing that lets a read of a possible secret through without a question.
 */
export function allowsExplicitly(rules: PermissionRules, tool: string, subject: string): boolean {
  const tables = rules.userTools.has(tool)
    ? [rules.tools.get(tool)!]
    : rules.tools.has(tool)
      ? []
      : rules.wildcards
          .filter(([key]) => matchPattern(key, tool))
          .map(([, table]) => table)
          .slice(-1);
  for (const table of tables) {
    for (let i = table.length - 1; i >= 0; i--) {
      const [pattern, decision] = table[i]!;
      if (matchPattern(pattern, subject)) return decision === "allow" && pattern !== "*";
    }
  }
  return false;
}

// ---- subjects and paths ------------------------------------------------------------------------

/**
 * What `path` means, as a rule sees it: resolved against `root` (`~/` is the home folder, as the
 * jail reads it), then workspace-relative with `/` separators and no `.`, `..`, doubled or
 * trailing slash (`.` is the root itself); a path outside the workspace stays absolute.
 */
export function normalizeRulePath(path: string, root: string): string {
  const abs = /^~(?:[/\\]|$)/.test(path) ? resolve(homedir(), path.slice(2)) : resolve(root, path);
  const rel = relative(resolve(root), abs);
  if (rel === "") return ".";
  if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`)) return abs.split(sep).join("/");
  return posix.normalize(rel.split(sep).join("/"));
}

/** The normalised path, then, when a symlink along it leads elsewhere in the workspace, where it really is. */
function _meanings(path: string, root: string): string[] {
  const lexical = normalizeRulePath(path, root);
  let real: string;
  try {
    real = normalizeRulePath(realpathSync(resolve(root, lexical)), realpathSync(root));
  } catch {
    return [lexical];
  }
  return real === lexical || real.startsWith("/") ? [lexical] : [lexical, real];
}

export interface CallSubjects {
  /** What permission rules match: declared subjects, then the normalised paths. */
  subjects: string[];
  /** The declared paths, normalised (see normalizeRulePath). */
  paths: string[];
  /** False when the tool could not name them (its declaration threw): the call then asks. */
  known: boolean;
}

/** A call's permission subjects and normalised paths, from its tool's declarations and raw input. */
export function callSubjects(tool: RuleDeclaration | undefined, input: unknown, root: string): CallSubjects {
  if (!tool) return { subjects: [], paths: [], known: true };
  try {
    // A shell tool's subjects are its simple commands, unless it lists its own.
    const command = tool.command?.(input);
    const listed: unknown = tool.subjects ? tool.subjects(input) : typeof command === "string" ? listRuleSubjects(command) : [];
    const declared: unknown = tool.paths ? tool.paths(input, root) : [];
    if (!Array.isArray(listed) || !Array.isArray(declared)) return { subjects: [], paths: [], known: false };
    const strings = (values: unknown[]) => values.filter((value): value is string => typeof value === "string");
    const named = strings(declared).filter((path) => !path.includes("\0"));
    const paths = [...new Set(named.flatMap((path) => _meanings(path, root)))];
    return { subjects: [...strings(listed), ...paths], paths, known: true };
  } catch {
    return { subjects: [], paths: [], known: false };
  }
}

/** What the model reads when a rule refuses a call. */
export function describeRefusal(tool: string, matched: PermissionMatch | undefined): string {
  if (matched && matched.pattern !== "*") return `Refused by the permission rule ${matched.tool}: "${matched.pattern}" = deny.`;
  return `Refused by the permission rules: ${tool} is denied.`;
}

// ---- session grants ----------------------------------------------------------------------------

/**
 * The pattern an "always" answer grants: for a call of a shell tool (one that declares `command`)
 * the program of its first simple command + ` *` (`git *` for `CI=1 /usr/bin/git log`, as rules
 * see it: lib/shell/read.ts), `*` for every other call (`command` undefined). A program that
 * holds a wildcard character, or a shell call whose command cannot be read (`null`), yields `""`,
 * which grants nothing broader than an empty command. Reads the command with the shell parser
 * when the gate has loaded it.
 */
export function suggestPattern(command: string | null | undefined): string {
  if (command === undefined) return "*";
  if (command === null) return "";
  const line = isShellParserLoaded() ? (listRuleSubjects(command)[0] ?? "") : command;
  const word = line.trim().split(/\s+/)[0] ?? "";
  return word && !/[*?]/.test(word) ? `${word} *` : "";
}

export interface SessionGrant {
  tool: string;
  pattern: string;
}

/**
 * "Always" answers for this session, in memory only. A grant is consulted only after the rules
 * said ask, so it never overrides a deny. A shell tool's subjects are one line per simple command, so a
 * shell grant covers a command line only when it covers every simple command in it, and never a
 * line that redirects or substitutes (`<`, `>`, backticks, `$(`; `;`, `&`, `|` and newlines left
 * in a line, inside quotes, count too): `git *` covers `git log -5` and `git log && git status`,
 * not `git log; rm notes.txt` nor `git log > out`.
 */
export interface SessionGrants {
  add(tool: string, pattern: string): void;
  /** True when every subject matches a grant of `tool` (no subjects: a `*` grant); `shell` subjects never chain or redirect. */
  covers(tool: string, subjects: readonly string[], shell: boolean): boolean;
  list(): SessionGrant[];
}

const _SHELL_COMPOSITION = /[;&|<>`\n\r]|\$\(/;

export function createSessionGrants(): SessionGrants {
  const byTool = new Map<string, string[]>();
  return {
    add(tool, pattern) {
      const patterns = byTool.get(tool) ?? [];
      if (!patterns.includes(pattern)) patterns.push(pattern);
      byTool.set(tool, patterns);
    },
    covers(tool, subjects, shell) {
      const patterns = byTool.get(tool);
      if (!patterns) return false;
      if (subjects.length === 0) return patterns.includes("*");
      return subjects.every((subject) => !(shell && _SHELL_COMPOSITION.test(subject)) && patterns.some((pattern) => matchPattern(pattern, subject)));
    },
    list() {
      return [...byTool].flatMap(([tool, patterns]) => patterns.map((pattern) => ({ tool, pattern })));
    },
  };
}

// ---- repeat guard ------------------------------------------------------------------------------

/** The identical call that asks even when allowed: the third in one turn, and every one after. */
export const REPEAT_ASK_AT = 3;

/** Counts identical calls (tool + canonical JSON of the input) within one turn. */
export interface RepeatGuard {
  /** Counts this call and returns how many identical calls this turn has seen, itself included. */
  record(tool: string, input: unknown): number;
  reset(): void;
}

export function createRepeatGuard(): RepeatGuard {
  const counts = new Map<string, number>();
  return {
    record(tool, input) {
      const key = `${tool}\u0000${canonicalJson(input)}`;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
    reset() {
      counts.clear();
    },
  };
}

/** JSON with object keys sorted at every depth, so equal inputs give equal text. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
      return Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }) ?? "undefined"
  );
}
