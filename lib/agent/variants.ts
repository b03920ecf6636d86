/**
 * Agent variants: a thinking level, a step cap, an optional read-only tool allow-list and a
 * prompt appendix. `--agent` / config `agent` picks one; `--think` overrides its thinking.
 * The variant is never restored from a session: it always comes from current flags and config.
 */
import type { AgentName, ThinkingLevel } from "../vocabulary.ts";
import type { ToolDefinition } from "../tools/types.ts";

export interface AgentVariant {
  name: AgentName;
  summary: string;
  thinking: ThinkingLevel;
  /** Its own step cap; without one the cap is config `maxSteps`, else 50. */
  maxSteps?: number;
  /** When set, only the tools it accepts are offered (intersected with the tool sets). */
  allow?: (tool: ToolDefinition) => boolean;
  appendix?: string;
}

/** What the plan and review variants may use: every tool that declares a `read` or `net` effect. */
export const isReadOnlyTool = (tool: Pick<ToolDefinition, "effect">): boolean => tool.effect === "read" || tool.effect === "net";

export const DEFAULT_MAX_STEPS = 50;

export const VARIANTS: Record<AgentName, AgentVariant> = {
  default: { name: "default", summary: "balanced: plans, edits and verifies", thinking: "medium" },
  quick: {
    name: "quick",
    summary: "small, direct changes with no deliberation",
    thinking: "off",
    maxSteps: 12,
    appendix:
      "Quick mode: make the change that was asked for and nothing more. Skip the task list, do not explore beyond what the change touches, and keep the reply to a line or two.",
  },
  deep: {
    name: "deep",
    summary: "hard problems: several hypotheses, each tested",
    thinking: "max",
    maxSteps: 80,
    appendix:
      "Deep mode: before changing anything, write down more than one hypothesis and say which one each check tests. Record durable findings with remember. In the final reply, separate what you verified from what you believe but did not check.",
  },
  plan: {
    name: "plan",
    summary: "read-only: produces a plan, changes nothing",
    thinking: "high",
    allow: isReadOnlyTool,
    appendix:
      "Planning mode: you cannot change files or run commands. Investigate, then reply with a plan: the files to change, the change in each, the order, and how to verify it. Never describe an edit as done.",
  },
  review: {
    name: "review",
    summary: "read-only: finds defects, ordered by severity",
    thinking: "high",
    allow: isReadOnlyTool,
    appendix:
      "Review mode: you cannot change files or run commands. Report defects in this order: wrong behaviour, errors at trust boundaries, security, then clarity. For each: file and line, what is wrong, why it matters, and the fix.",
  },
};
