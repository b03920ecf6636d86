/**
 * Permission rules and session grants: the pure parts of approval (the repeat guard is repeat-guard.ts).
 *
 * Config `permission` maps a tool name, or a wildcard key such as `mcp__*`, to a decision
 * (`allow` | `ask` | `deny`) or to a table `{ "<pattern>": decision, … }` matched against the
 * call's subjects (its command, paths, URL…). Patterns: `*` is any run of characters including
 * newlines, `?` one character, everything else literal; a pattern must match the whole subject.
 * A bash call's subjects are its simple commands, one line each, as `listRuleSubjects`
 * (lib/shell/read.ts) reads them: `env X=1 /usr/bin/git  push` and `true && git push` both
 * give the line `git push`, so `"git push*": "deny"` matches every spelling.
 *
 * Beside config there are other sources of rules, each a `RuleLayer`: a trusted Claude Code
 * settings file (one layer per file), MCP servers' `alwaysAllow`, the run's `--allowed-tools` /
 * `--disallowed-tools`, a custom command's `allowed-tools` for its turn (claude-rules.ts,
 * run-rules.ts, lib/agent/turn-tools.ts build them).
 *
 * Precedence, fixed, and decided here alone (`evaluatePermission`):
 * - Each source gives its verdict for a subject. Config: within a table the last matching
 *   pattern wins (insertion order); a tool's own entry (the user's, else the default) replaces
 *   everything else for that tool, its default being the tool's declared `decision` (a plugin's
 *   `autoApprove` declares `allow`); wildcard keys apply only to tools with neither, and among
 *   them the last matching key wins. A layer: every pattern that matches votes and the strictest
 *   vote is its verdict (deny > ask > allow, as within a Claude Code settings file).
 * - Across sources deny wins, then ask, then allow: a subject any source denies is denied, one
 *   any source asks about asks, and only then does an allow apply. A config verdict taken from a
 *   tool's declared default, or a config table where nothing matched, is not a vote: it decides
 *   only when no source has one (a table where nothing matches asks; a tool nothing covers asks).
 * - A call with several subjects is denied if any subject is denied, asks if any asks, and is
 *   allowed only when all are allowed. A call without subjects matches only the `*` pattern.
 *
 * Subjects: what a tool declares in `subjects` (command, URL, pattern), then every path it
 * declares in `paths`, normalised to what the path means (`normalizeRulePath`), so `./x`,
 * `a/../x`, `/abs/ws/x`, `x//` and `x/` are all `x` to a rule. Defaults: each tool's declared
 * `decision` (lib/tools/types.ts), see `defaultPermission`.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";
import { DECISIONS, type Decision } from "../config/config.ts";
import { ConfigError } from "../platform/errors.ts";
import { isShellReaderLoaded, shellReader } from "../shell/reader.ts";
import { nodeOs } from "../platform/runtime.ts";

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
  /** The other sources of rules, each voting beside config (see the module comment). */
  readonly layers: readonly RuleLayer[];
}

/**
 * One source of rules beside config `permission`: a trusted settings file, the run's flags, MCP
 * servers' `alwaysAllow`, a command's `allowed-tools`. Its tables are keyed by tool name or
 * wildcard key (`mcp__github__*`); every table whose key matches the tool applies, and every
 * pattern in them that matches a subject votes.
 */
export interface RuleLayer {
  /** Where the rules come from, named in a refusal: `.claude/settings.json`, `--allowed-tools`… */
  readonly source: string;
  readonly tables: ReadonlyMap<string, RuleTable>;
}

/**
 * The rule that decided: `tool` is the key (a tool name or a wildcard key); `source` names the
 * layer it came from, absent for config `permission` and the declared defaults.
 */
export interface PermissionMatch {
  tool: string;
  pattern: string;
  source?: string;
}

export interface PermissionResult {
  decision: Decision;
  matched?: PermissionMatch;
}

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

/** The default permission of every tool that declares a `decision` (MCP tools declare none). */
export function defaultPermission(tools: readonly Pick<RuleDeclaration, "name" | "decision">[]): PermissionConfig {
  return Object.fromEntries(tools.flatMap((tool) => (tool.decision ? [[tool.name, tool.decision]] : [])));
}

/**
 * Builds the rules from config `permission` over `defaults` (see `defaultPermission`), with the
 * other sources' `layers` beside them. An entry that is not a decision (or a table of them)
 * throws a one-line UserError naming the key; an empty table is ignored, so the tool keeps its default.
 */
export function parsePermissionRules(config: unknown = {}, defaults: PermissionConfig = {}, layers: readonly RuleLayer[] = []): PermissionRules {
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
  return { tools, userTools, wildcards, layers };
}

/** A layer from tables keyed by tool name or wildcard key; empty tables are dropped. */
export function ruleLayer(source: string, tables: Iterable<readonly [key: string, table: RuleTable]>): RuleLayer {
  return { source, tables: new Map([...tables].filter(([, table]) => table.length > 0)) };
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

/**
 * Decides one call of `tool` with the given subjects: the one place where sources meet (see the
 * module comment). `extra` are layers of this call only (a custom command's turn).
 */
export function evaluatePermission(rules: PermissionRules, tool: string, subjects: readonly string[], extra: readonly RuleLayer[] = []): PermissionResult {
  const layers = extra.length > 0 ? [...rules.layers, ...extra] : rules.layers;
  let strictest: PermissionResult | undefined;
  for (const subject of subjects.length > 0 ? subjects : [undefined]) {
    const result = _decideSubject(rules, layers, tool, subject);
    if (!strictest || _SEVERITY[result.decision] > _SEVERITY[strictest.decision]) strictest = result;
  }
  return strictest!;
}

/**
 * False when no call of `tool` could be allowed: no table that applies to it (its own or its
 * declared default, else every matching wildcard's, and every layer's) holds an `allow`, or a
 * source denies it whole (a layer's `*` deny; a config table of denies only, `*` among them). A headless run
 * that denies approvals withholds such tools.
 */
export function mayAllow(rules: PermissionRules, tool: string): boolean {
  const layered = rules.layers.flatMap((layer) => _layerTables(layer, tool));
  if (layered.some((table) => table.some(([pattern, decision]) => pattern === "*" && decision === "deny"))) return false;
  const own = rules.tools.get(tool);
  const wildcard = own ? undefined : rules.wildcards.findLast(([key]) => matchPattern(key, tool))?.[1];
  const config = own && rules.userTools.has(tool) ? own : wildcard;
  if (config?.some(([pattern]) => pattern === "*") && config.every(([, decision]) => decision === "deny")) return false;
  if (layered.some((table) => table.some(([, decision]) => decision === "allow"))) return true;
  if (own) return own.some(([, decision]) => decision === "allow");
  return rules.wildcards.some(([key, table]) => matchPattern(key, tool) && table.some(([, decision]) => decision === "allow"));
}

const _SEVERITY: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** One subject: every source's vote, the strictest winning; without votes, config's fallback. */
function _decideSubject(rules: PermissionRules, layers: readonly RuleLayer[], tool: string, subject: string | undefined): PermissionResult {
  const base = _configVerdict(rules, tool, subject);
  let strictest = base.vote ? base.result : undefined;
  for (const vote of _layerVotes(layers, tool, subject)) if (!strictest || _SEVERITY[vote.decision] > _SEVERITY[strictest.decision]) strictest = vote;
  return strictest ?? base.result;
}

/** Config's verdict for one subject; `vote` is false when it comes from a default or from no match. */
function _configVerdict(rules: PermissionRules, tool: string, subject: string | undefined): { result: PermissionResult; vote: boolean } {
  const own = rules.tools.get(tool);
  if (own) {
    const result = _matchTable(tool, own, subject);
    return { result, vote: result.matched !== undefined && rules.userTools.has(tool) };
  }
  for (let i = rules.wildcards.length - 1; i >= 0; i--) {
    const [key, table] = rules.wildcards[i]!;
    if (!matchPattern(key, tool)) continue;
    const result = _matchTable(key, table, subject);
    return { result, vote: result.matched !== undefined };
  }
  return { result: { decision: "ask" }, vote: false };
}

/** Each layer's strictest matching pattern for one subject; among equals, one that names the subject (not a bare `*`). */
function _layerVotes(layers: readonly RuleLayer[], tool: string, subject: string | undefined): PermissionResult[] {
  const votes: PermissionResult[] = [];
  for (const layer of layers) {
    let strictest: PermissionResult | undefined;
    for (const [key, table] of layer.tables) {
      if (!_layerKeyApplies(key, tool)) continue;
      for (const [pattern, decision] of table) {
        const hit = subject === undefined ? pattern === "*" : matchPattern(pattern, subject);
        if (!hit) continue;
        const named = strictest?.decision === decision && strictest.matched?.pattern === "*" && pattern !== "*";
        if (!strictest || _SEVERITY[decision] > _SEVERITY[strictest.decision] || named)
          strictest = { decision, matched: { tool: key, pattern, source: layer.source } };
      }
    }
    if (strictest) votes.push(strictest);
  }
  return votes;
}

function _layerTables(layer: RuleLayer, tool: string): RuleTable[] {
  return [...layer.tables].filter(([key]) => _layerKeyApplies(key, tool)).map(([, table]) => table);
}

const _layerKeyApplies = (key: string, tool: string) => key === tool || (/[*?]/.test(key) && matchPattern(key, tool));

function _matchTable(key: string, table: RuleTable, subject: string | undefined): PermissionResult {
  for (let i = table.length - 1; i >= 0; i--) {
    const [pattern, decision] = table[i]!;
    const hit = subject === undefined ? pattern === "*" : matchPattern(pattern, subject);
    if (hit) return { decision, matched: { tool: key, pattern } };
  }
  return { decision: "ask" };
}

/**
 * True when `subject` of `tool` is allowed (no source denies or asks about it) and an allow that
 * names it, by a pattern other than a bare `*`, is one of the user's rules (config, or a layer):
 * the only thing that lets a read of a possible secret through without a question.
 */
export function allowsExplicitly(rules: PermissionRules, tool: string, subject: string): boolean {
  const votes = _layerVotes(rules.layers, tool, subject);
  const base = _configVerdict(rules, tool, subject);
  if (base.vote) votes.push(base.result);
  if (votes.some((vote) => vote.decision !== "allow")) return false;
  return votes.some((vote) => vote.matched !== undefined && vote.matched.pattern !== "*");
}

// ---- subjects and paths ------------------------------------------------------------------------

/**
 * What `path` means, as a rule sees it: resolved against `root` (`~/` is the home folder, as the
 * jail reads it), then workspace-relative with `/` separators and no `.`, `..`, doubled or
 * trailing slash (`.` is the root itself); a path outside the workspace stays absolute.
 */
export function normalizeRulePath(path: string, root: string): string {
  const abs = /^~(?:[/\\]|$)/.test(path) ? resolve(nodeOs().homedir(), path.slice(2)) : resolve(root, path);
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
    const listed: unknown = tool.subjects ? tool.subjects(input) : typeof command === "string" ? shellReader().listRuleSubjects(command) : [];
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

/** What the model reads when a rule refuses a call: the rule, and the source it came from unless that is config `permission`. */
export function describeRefusal(tool: string, matched: PermissionMatch | undefined): string {
  const from = matched?.source ? ` in ${matched.source}` : "";
  if (matched && matched.pattern !== "*") return `Refused by the permission rule ${matched.tool}: "${matched.pattern}" = deny${from}.`;
  return `Refused by the permission rules: ${tool} is denied${from ? ` by${from.slice(3)}` : ""}.`;
}

// ---- session grants ----------------------------------------------------------------------------

/**
 * The pattern an "always" answer grants: for a call of a shell tool (one that declares `command`)
 * the program of its first simple command + ` *` (`git *` for `CI=1 /usr/bin/git log`, as rules
 * see it: lib/shell/read.ts), `*` for every other call (`command` undefined). A program that
 * holds a wildcard character, or a shell call whose command cannot be read (`null`), yields `""`,
 * which grants nothing broader than an empty command. Reads the command with the shell reader
 * when the gate has loaded it (lib/shell/reader.ts).
 */
export function suggestPattern(command: string | null | undefined): string {
  if (command === undefined) return "*";
  if (command === null) return "";
  const line = isShellReaderLoaded() ? (shellReader().listRuleSubjects(command)[0] ?? "") : command;
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
