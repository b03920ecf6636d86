/** Usage added by subagents during a run: the run driver takes (and resets) it when the run ends; `--max-cost` peeks at it before each request. */
import { addUsage, type Usage } from "../messages.ts";

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
