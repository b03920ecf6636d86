/**
 * One run's bounds from the command line: `--max-steps N` (the config's `maxSteps` as a flag)
 * and `--max-cost USD`. The cost bound is checked before every model request: what the run has
 * spent so far (its own steps and its subagents', each priced at its model) plus the estimated
 * input of the request about to start (a quarter of its JSON length, at the model's input price).
 * When that sum passes the bound the request is not sent and the run stops with `max-cost`.
 * The bound is per run: a run continued with `-c` starts with the whole budget again.
 */
import { UsageError } from "../platform/errors.ts";
import { costUsd, findPrice, formatUsd } from "../providers/pricing.ts";
import type { ModelRequest } from "../providers/types.ts";
import type { Usage } from "../messages.ts";
import type { TalliedUsage } from "./usage-tally.ts";
import { estimateTokens } from "./context/planner.ts";

/** `--max-steps`: a whole number of at least 1, or a UsageError. */
export function parseMaxSteps(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1) throw new UsageError(`--max-steps needs a whole number of steps, at least 1 (got "${text}")`);
  return Number(text);
}

/** `--max-cost`: a positive number of US dollars (`0.50`, `$2`), or a UsageError. */
export function parseMaxCost(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.trim().replace(/^\$/, ""));
  if (!Number.isFinite(value) || value <= 0 || text.trim() === "")
    throw new UsageError(`--max-cost needs an amount in US dollars above 0, e.g. 0.50 (got "${text}")`);
  return value;
}

/** Refuses `--max-cost` when a model the run may use has no price: the bound could not be kept. */
export function checkPriced(maxCost: number | undefined, models: readonly string[]): void {
  if (maxCost === undefined) return;
  for (const model of new Set(models)) {
    if (!findPrice(model)) throw new UsageError(`--max-cost needs a priced model: "${model}" is not in shiro's price table, so its spending cannot be bounded`);
  }
}

export interface CostBudget {
  /** Why `request` must not start, or undefined when it fits. `spent`: the run's own usage so far. */
  check(spent: Usage | undefined, request: ModelRequest): string | undefined;
}

export interface CostBudgetOptions {
  maxCost: number;
  /** Subagents' usage in this run so far, priced at the models that answered (usage-tally.ts). */
  subagents: () => TalliedUsage | undefined;
}

export function createCostBudget(options: CostBudgetOptions): CostBudget {
  return {
    check(spent, request) {
      const own = spent ? (costUsd(request.model, spent) ?? 0) : 0;
      const theirs = options.subagents()?.costUsd ?? 0;
      const nextTokens = estimateTokens(request.messages, request.system) + Math.round(JSON.stringify(request.tools).length / 4);
      const next = costUsd(request.model, { inputTokens: nextTokens, outputTokens: 0 }) ?? 0;
      const total = own + theirs;
      if (total + next <= options.maxCost) return undefined;
      return `the cost limit of ${formatUsd(options.maxCost)} (--max-cost) would be passed by the next request: spent ${formatUsd(total)}, the next one's input about ${formatUsd(next)}`;
    },
  };
}
