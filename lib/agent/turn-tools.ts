/**
 * A custom command's `allowed-tools` (lib/ui/slash/custom-commands.ts) for the turn it starts.
 * Each entry is a Claude Code permission rule (`Bash(git add:*)`, `Read`, `mcp__github`), read by
 * the one mapping of such rules (lib/approval/claude-rules.ts), so a name reaches the tools that
 * declare it (`claudeCode`, and `Read`/`Edit` their families) and a specifier means what it means
 * in `.claude/settings.json`. For that turn:
 *
 * - only the tools the rules name are offered and callable (a rule naming no tool of shiro's,
 *   such as Claude Code's `WebSearch`, names nothing);
 * - when the turn is `preApproved` (the REPL decides: a user-level command, or a project command
 *   whose file the user trusted), a call one of the rules covers runs without the default
 *   question, as Claude Code's allowed-tools pre-approve; a call of a named tool the rules do not
 *   cover (`rm x` under `Bash(git add:*)`) is decided as any call is: rules, then a question.
 *   Pre-approval is the turn's own source of allow rules (a RuleLayer, lib/approval/rules.ts): a
 *   deny or an ask rule of any other source outvotes it, and guard plugins, the secrets question
 *   and the repeat guard still answer before it (lib/extensions/gate.ts).
 *
 * The narrowing lasts while the turn's events are read and is lifted when the turn ends, however it ends.
 */
import type { AgentEvent } from "../events.ts";
import type { RunStartOptions } from "./run-driver.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { mapClaudeRules } from "../approval/claude-rules.ts";
import { matchPattern, ruleLayer, type RuleLayer } from "../approval/rules.ts";
import type { RulePlaces } from "../approval/run-rules.ts";

/** A custom command's turn: its `allowed-tools` rules, and whether they pre-approve what they cover. */
export interface TurnTools {
  allowedTools: readonly string[];
  preApproved?: boolean;
}

/** A turn's options: a run's, plus a custom command's `allowed-tools`. */
export type TurnOptions = RunStartOptions & Partial<TurnTools>;

export interface TurnNarrowing {
  /** True when no narrowing is in force, or a rule names the tool. */
  allows(tool: Pick<ToolDefinition, "name">): boolean;
  /** The turn's rules as allow rules when the turn is pre-approved; undefined otherwise, and outside a turn. */
  preApproved(): RuleLayer | undefined;
  /** `events` with the tools narrowed while they run; `events` itself without `turn`. */
  during(events: AsyncGenerator<AgentEvent, void, undefined>, turn: TurnTools | undefined): AsyncGenerator<AgentEvent, void, undefined>;
}

export interface TurnNarrowingOptions {
  /** The session's tools now (built-ins, session tools, MCP tools listed so far): what Claude Code names map onto. */
  tools: () => readonly ToolDefinition[];
  places: RulePlaces;
}

export function createTurnNarrowing(options: TurnNarrowingOptions): TurnNarrowing {
  let active: { keys: string[]; rules: RuleLayer | undefined } | undefined;
  return {
    allows: (tool) => !active || active.keys.some((key) => matchPattern(key, tool.name)),
    preApproved: () => active?.rules,
    during(events, turn) {
      if (!turn) return events;
      return (async function* () {
        const mapped = mapClaudeRules(
          turn.allowedTools.map((rule) => ({ decision: "allow" as const, rule, source: "allowed-tools" })),
          options.tools(),
          options.places,
        );
        active = { keys: [...mapped.tables.keys()], rules: turn.preApproved ? ruleLayer("allowed-tools", mapped.tables) : undefined };
        try {
          yield* events;
        } finally {
          active = undefined;
        }
      })();
    },
  };
}
