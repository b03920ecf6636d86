/**
 * Usage added by subagents during a run, each share priced at the model that answered it (a
 * custom agent's own `model`, else config `subagentModel`): the run driver takes (and resets) it
 * when the run ends; `--max-cost` peeks at it before each request.
 */
import { addUsage, type Usage } from "../messages.ts";
import { costUsd } from "../providers/pricing.ts";
import type { SessionRecord } from "../store/session-record.ts";

/** The subagents' usage so far and its price; `costUsd` is absent while no share was on a priced model. */
export interface TalliedUsage {
  usage: Usage;
  costUsd?: number;
}

export interface UsageTally {
  /** One subagent run's usage on `model`, the model its requests named. */
  add(usage: Usage, model: string): void;
  /** What was added so far, kept. */
  peek(): TalliedUsage | undefined;
  take(): TalliedUsage | undefined;
}

export function createUsageTally(): UsageTally {
  let total: TalliedUsage | undefined;
  return {
    add(usage, model) {
      const cost = costUsd(model, usage);
      const costs = total?.costUsd !== undefined || cost !== undefined ? { costUsd: (total?.costUsd ?? 0) + (cost ?? 0) } : {};
      total = { usage: addUsage(total?.usage ?? { inputTokens: 0, outputTokens: 0 }, usage), ...costs };
    },
    peek: () => total,
    take() {
      const taken = total;
      total = undefined;
      return taken;
    },
  };
}

/** The session's running subagent share plus one run's; the cost stays absent while nothing was priced. */
export function addSubagentShare(share: SessionRecord["subagents"], usage: Usage, cost: number | undefined): NonNullable<SessionRecord["subagents"]> {
  const total = (share?.costUsd ?? 0) + (cost ?? 0);
  return {
    inputTokens: (share?.inputTokens ?? 0) + usage.inputTokens,
    outputTokens: (share?.outputTokens ?? 0) + usage.outputTokens,
    ...(share?.costUsd !== undefined || cost !== undefined ? { costUsd: total } : {}),
  };
}
