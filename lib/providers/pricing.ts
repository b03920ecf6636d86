/**
 * What a model's tokens cost, in US dollars. A model the table does not know is unpriced
 * (`undefined`): a price is never guessed.
 */
import { lookupByModelPrefix } from "./_model-prefix.ts";
import type { Usage } from "../messages.ts";

export interface ModelPrice {
  /** USD per one million input tokens. */
  inputPerMillion: number;
  /** USD per one million output tokens. */
  outputPerMillion: number;
}

/**
 * Prices by model-id prefix, USD per 1M tokens (input / output). Source: the feature inventory
 * of the upstream shiro-neko (§17, its own reference table), taken on 2026-11-30. Vendors change
 * prices; these may drift.
 */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  "claude-opus-4": { inputPerMillion: 15, outputPerMillion: 75 },
  "claude-sonnet-4": { inputPerMillion: 3, outputPerMillion: 15 },
  "claude-haiku-4": { inputPerMillion: 1, outputPerMillion: 5 },
  "claude-3-5-haiku": { inputPerMillion: 0.8, outputPerMillion: 4 },
  "gpt-5": { inputPerMillion: 1.25, outputPerMillion: 10 },
  "gpt-5-mini": { inputPerMillion: 0.25, outputPerMillion: 2 },
  "gpt-5-nano": { inputPerMillion: 0.05, outputPerMillion: 0.4 },
  "gpt-4o": { inputPerMillion: 2.5, outputPerMillion: 10 },
  "gpt-4o-mini": { inputPerMillion: 0.15, outputPerMillion: 0.6 },
  "o4-mini": { inputPerMillion: 1.1, outputPerMillion: 4.4 },
  "deepseek-chat": { inputPerMillion: 0.27, outputPerMillion: 1.1 },
  "deepseek-reasoner": { inputPerMillion: 0.55, outputPerMillion: 2.19 },
  "grok-4": { inputPerMillion: 3, outputPerMillion: 15 },
};

/**
 * The price of `model`: the longest table prefix of its lower-cased id, after dropping any
 * `vendor/` path in front (`anthropic/claude-sonnet-4.5` prices as `claude-sonnet-4`).
 */
export function findPrice(model: string): ModelPrice | undefined {
  return lookupByModelPrefix(PRICES, model);
}

/** The cost of `usage` on `model` in USD; undefined when the model is unpriced. */
export function costUsd(model: string, usage: Pick<Usage, "inputTokens" | "outputTokens">): number | undefined {
  const price = findPrice(model);
  if (!price) return undefined;
  return (usage.inputTokens * price.inputPerMillion + usage.outputTokens * price.outputPerMillion) / 1_000_000;
}

/** `$0.00` for zero, four decimals below one cent (`$0.0042`), two otherwise (`$1.25`). */
export function formatUsd(amount: number): string {
  if (amount === 0) return "$0.00";
  return `$${amount.toFixed(Math.abs(amount) < 0.01 ? 4 : 2)}`;
}
