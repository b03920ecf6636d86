/**
 * One run's tool rules from the command line (`--allowed-tools`, `--disallowed-tools`), two
 * sources of rules beside the config's `permission` and the trusted Claude Code settings, for
 * that run only; nothing is written back.
 *
 * A rule is a tool with an optional specifier, in shiro's spelling (`bash`, `bash(git status*)`,
 * `mcp__server__tool`) or Claude Code's (`Bash(git status:*)`, `Edit`, `Read(.env)`); both are read
 * by the one mapping of Claude Code rules (claude-rules.ts), which reaches tools through their
 * declarations (`claudeCode`, `effect`, `paths`), never their names. A value may hold several
 * rules, separated by commas or by spaces outside parentheses, as Claude Code's
 * `--allowedTools "Bash(git log:*) Read"`.
 *
 * Each flag is one `RuleLayer` (rules.ts): a disallowed rule denies what it covers whatever
 * allows it elsewhere, and an allowed rule allows only what no source denies or asks about (deny
 * beats ask beats allow across sources, as in Claude Code). A disallowed rule without a specifier
 * also withholds its tools from the run (`removed`). A rule that names no tool is a UsageError
 * naming the flag.
 */
import { UsageError } from "../platform/errors.ts";
import { claudeRuleLayers, mapClaudeRules, type ClaudeRule, type ClaudeRuleTool } from "./claude-rules.ts";
import { matchPattern, type RuleLayer } from "./rules.ts";

export interface RunRules {
  /** `--allowed-tools`, then `--disallowed-tools`, each a layer when given. */
  layers: RuleLayer[];
  /** Tool names or wildcard keys a disallowed rule names whole: those tools are not offered in this run. */
  removed: readonly string[];
}

export interface RunRuleLists {
  allowed?: readonly string[];
  disallowed?: readonly string[];
}

/** Where relative paths of rules are read from: the project root and the working folder. */
export interface RulePlaces {
  root: string;
  cwd: string;
}

/** True when a disallowed rule names the whole of `tool` (by name or wildcard key). */
export function isWithheld(rules: RunRules, tool: string): boolean {
  return rules.removed.some((key) => matchPattern(key, tool));
}

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

/** The tool names (or wildcard keys) each of `names` stands for among `tools`: Claude Code's names by declaration, shiro's as they are. */
export function namedTools(names: readonly string[], tools: readonly ClaudeRuleTool[], places: RulePlaces): string[] {
  const mapped = mapClaudeRules(
    names.map((rule) => ({ decision: "allow", rule, source: "tools" })),
    tools,
    places,
  );
  return [...mapped.tables.keys()];
}

/** The run's rules as layers (see the module comment). */
export function layerRunRules(tools: readonly ClaudeRuleTool[], lists: RunRuleLists, places: RulePlaces): RunRules {
  const rules: ClaudeRule[] = [
    ...(lists.allowed ?? []).flatMap(splitRuleList).map((rule) => ({ decision: "allow" as const, rule, source: "--allowed-tools" })),
    ...(lists.disallowed ?? []).flatMap(splitRuleList).map((rule) => ({ decision: "deny" as const, rule, source: "--disallowed-tools" })),
  ];
  if (rules.length === 0) return { layers: [], removed: [] };
  const mapped = claudeRuleLayers(rules, tools, places);
  if (mapped.skipped.length > 0) throw new UsageError(mapped.skipped[0]!);
  const removed: string[] = [];
  for (const rule of rules) {
    if (rule.decision !== "deny") continue;
    for (const [tool, table] of mapClaudeRules([rule], tools, places).tables) if (table.every(([pattern]) => pattern === "*")) removed.push(tool);
  }
  return { layers: mapped.layers, removed };
}
