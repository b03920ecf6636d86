/** The model usage subagents add during a run, taken (and reset) when the run ends (run-driver.ts). */
import { addUsage, type Usage } from "../messages.ts";

/** Usage added by subagents during a run, taken (and reset) when the run ends. */
export interface UsageTally {
  add(usage: Usage): void;
  take(): Usage | undefined;
}

export function createUsageTally(): UsageTally {
  let total: Usage | undefined;
  return {
    add(usage) {
      total = addUsage(total ?? { inputTokens: 0, outputTokens: 0 }, usage);
    },
    take() {
      const taken = total;
      total = undefined;
      return taken;
    },
  };
}
