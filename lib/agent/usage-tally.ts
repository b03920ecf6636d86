/** Usage added by subagents during a run: the run driver takes (and resets) it when the run ends; `--max-cost` peeks at it before each request. */
import { addUsage, type Usage } from "../messages.ts";
import type { SessionRecord } from "../store/session-record.ts";

export interface UsageTally {
  add(usage: Usage): void;
  /** The usage added so far, kept. */
  peek(): Usage | undefined;
  take(): Usage | undefined;
}

export function createUsageTally(): UsageTally {
  let total: Usage | undefined;
  return {
    add(usage) {
      total = addUsage(total ?? { inputTokens: 0, outputTokens: 0 }, usage);
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
