/**
 * Claude Code permission rules (the `permissions.allow|ask|deny` lists of `.claude/settings.json`)
 * as shiro permission tables (lib/approval/rules.ts), which then get the normalisation every rule
 * gets. A rule is `Tool` or `Tool(specifier)`:
 *
 * - `Bash(npm run test:*)`: the prefix form is the command itself and the command followed by
 *   anything (`npm run test`, `npm run test *`); any other specifier is a shiro pattern as is.
 * - `Read(path)` applies to every read tool that declares paths, `Edit(path)` to every write tool,
 *   as Claude Code applies them to all its reading and editing tools; `Write`, `MultiEdit` to
 *   their counterparts. Paths as Claude Code reads them: `//x` absolute, `~/x` in the home folder,
 *   `/x` from the project root, `x` or `./x` from the working folder; a name without a slash
 *   (`*.env`) matches in every folder, `**\/x` also at the top.
 * - `WebFetch(domain:example.com)`: every http(s) URL of that host.
 * - `mcp__server__tool` as is, `mcp__server` is every tool of that server.
 * - Any other Claude Code name maps onto the tool that declares it as its counterpart (`claudeCode`);
 *   shiro's own names work too. A rule naming no tool here is skipped with a reason.
 *
 * The mapped tables become one `RuleLayer` per source (claudeRuleLayers): beside config
 * `permission`, never over it. Deny beats ask beats allow within a file and across every source,
 * as in Claude Code (the precedence lives in rules.ts evaluatePermission): an allow written here
 * never undoes a deny of config's, nor an allow of config's a deny written here.
 */
import { join } from "node:path";
import type { Decision } from "../config/config.ts";
import { normalizeRulePath, ruleLayer, type RuleLayer } from "./rules.ts";
import { homeDirectory } from "../platform/runtime.ts";

/** What the mapping reads of a tool: a ToolDefinition is one. */
export interface ClaudeRuleTool {
  name: string;
  effect?: string;
  paths?: unknown;
  claudeCode?: { name: string };
}

export interface ClaudeRule {
  decision: Decision;
  rule: string;
  source: string;
}

export interface ClaudeRulesMapping {
  /** Tool name (or wildcard key) → `[pattern, decision]` in the order they apply. */
  tables: Map<string, [string, Decision][]>;
  skipped: string[];
}

const _ORDER: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const _RULE = /^([A-Za-z0-9_*-]+)(?:\(([\s\S]*)\))?$/;

export function mapClaudeRules(rules: readonly ClaudeRule[], tools: readonly ClaudeRuleTool[], places: { root: string; cwd: string }): ClaudeRulesMapping {
  const tables = new Map<string, [string, Decision][]>();
  const skipped: string[] = [];
  const sorted = [...rules].sort((a, b) => _ORDER[a.decision] - _ORDER[b.decision]);
  for (const { decision, rule, source } of sorted) {
    const parsed = _RULE.exec(rule);
    if (!parsed) {
      skipped.push(`${source}: permission rule ${JSON.stringify(rule)} is not Tool or Tool(specifier)`);
      continue;
    }
    const [, name, specifier] = parsed as unknown as [string, string, string | undefined];
    const targets = _targets(name, tools);
    if (targets.length === 0) {
      skipped.push(`${source}: permission rule ${JSON.stringify(rule)} names no tool shiro has`);
      continue;
    }
    const patterns = _patterns(name, specifier, places);
    for (const target of targets) {
      const table = tables.get(target) ?? [];
      for (const pattern of patterns) table.push([pattern, decision]);
      tables.set(target, table);
    }
  }
  return { tables, skipped };
}

/** The rules as one layer per source (the file or flag each came from, in first-seen order), and what was skipped. */
export function claudeRuleLayers(
  rules: readonly ClaudeRule[],
  tools: readonly ClaudeRuleTool[],
  places: { root: string; cwd: string },
  label: (source: string) => string = (source) => source,
): { layers: RuleLayer[]; skipped: string[] } {
  const layers: RuleLayer[] = [];
  const skipped: string[] = [];
  for (const source of new Set(rules.map((rule) => rule.source))) {
    const mapped = mapClaudeRules(
      rules.filter((rule) => rule.source === source),
      tools,
      places,
    );
    skipped.push(...mapped.skipped);
    if (mapped.tables.size > 0) layers.push(ruleLayer(label(source), mapped.tables));
  }
  return { layers, skipped };
}

function _targets(name: string, tools: readonly ClaudeRuleTool[]): string[] {
  if (name.startsWith("mcp__")) return [name.split("__").length === 2 ? `${name}__*` : name];
  const named = tools.filter((tool) => tool.claudeCode?.name === name || tool.name === name).map((tool) => tool.name);
  const family =
    name === "Read" ? tools.filter((tool) => tool.effect === "read" && tool.paths) : name === "Edit" ? tools.filter((tool) => tool.effect === "write") : [];
  return [...new Set([...named, ...family.map((tool) => tool.name)])];
}

function _patterns(name: string, specifier: string | undefined, places: { root: string; cwd: string }): string[] {
  const spec = specifier?.trim() ?? "";
  if (spec === "" || spec === "*") return ["*"];
  if (name === "Bash") {
    const prefix = /^([\s\S]*):\*$/.exec(spec);
    return prefix ? [prefix[1]!.trimEnd(), `${prefix[1]!.trimEnd()} *`] : [spec];
  }
  if (name === "WebFetch") {
    const domain = /^domain:(.+)$/.exec(spec);
    if (!domain) return [spec];
    const host = domain[1]!.trim();
    return ["http", "https"].flatMap((scheme) => [`${scheme}://${host}`, `${scheme}://${host}/*`, `${scheme}://${host}:*`]);
  }
  if (name === "Read" || name === "Edit" || name === "Write" || name === "MultiEdit") return _pathPatterns(spec, places);
  return [spec];
}

function _pathPatterns(spec: string, places: { root: string; cwd: string }): string[] {
  const rooted = (path: string) => normalizeRulePath(path, places.cwd);
  if (spec.startsWith("//")) return [rooted(spec.slice(1))];
  if (spec.startsWith("~/")) return [rooted(join(homeDirectory(), spec.slice(2)))];
  if (spec.startsWith("/")) return [rooted(join(places.root, spec.slice(1)))];
  const relative = spec.startsWith("./") ? spec.slice(2) : spec;
  const out = [rooted(relative)];
  if (!spec.startsWith("./") && !relative.includes("/")) out.push(rooted(`**/${relative}`));
  if (relative.startsWith("**/")) out.push(rooted(relative.slice(3)));
  return [...new Set(out)];
}

/**
 * The Claude Code rule that allows what an "always" answer grants `tool` (`pattern`, from
 * suggestPattern): `Bash(git:*)` for `git *`, the bare name for `*`. Spelled with the tool's
 * Claude Code name when that maps back onto this tool alone (`Edit` would reach every write
 * tool), else with its own name; undefined when no spelling maps back onto `tool` with `pattern`
 * (an empty pattern grants nothing worth writing).
 */
export function allowRuleFor(tool: string, pattern: string, tools: readonly ClaudeRuleTool[], places: { root: string; cwd: string }): string | undefined {
  const own = tools.find((candidate) => candidate.name === tool);
  if (!own || pattern === "") return undefined;
  const names = [...new Set([own.claudeCode?.name, own.name].filter((name): name is string => Boolean(name)))];
  for (const name of names) {
    const prefix = name === "Bash" && pattern.endsWith(" *") ? pattern.slice(0, -2) : undefined;
    const rule =
      pattern === "*" ? name : prefix !== undefined && !/[()]/.test(prefix) ? `${name}(${prefix}:*)` : /[()]/.test(pattern) ? undefined : `${name}(${pattern})`;
    if (!rule) continue;
    const { tables } = mapClaudeRules([{ decision: "allow", rule, source: "" }], tools, places);
    const patterns = tables.get(tool)?.map(([mapped]) => mapped);
    if (tables.size === 1 && patterns?.includes(pattern)) return rule;
  }
  return undefined;
}
