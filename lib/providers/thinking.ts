/**
 * What each thinking level asks of each wire protocol — one table.
 *
 * | level  | OpenAI effort (chat `reasoning_effort`, responses `reasoning.effort`) | Anthropic `budget_tokens` | Anthropic `max_tokens` |
 * |--------|--------------|--------|--------|
 * | off    | not sent     | thinking not sent | 32000 |
 * | low    | `low`        | 6400   | 22400  |
 * | medium | `medium`     | 16000  | 32000  |
 * | high   | `high`       | 38400  | 54400  |
 * | max    | `xhigh`      | 48000  | 64000  |
 *
 * OpenAI: `xhigh` is in the API's `ReasoningEffort` enum (OpenAPI spec, used by both chat
 * completions and responses); models that do not support it answer 400.
 * Anthropic: `max_tokens` counts thinking too and must exceed the budget, so a thinking request
 * gets budget + the answer allowance (16000 unless the request sets its own limit). The max
 * budget is 48000 so that budget + allowance stays within 64000, the largest output current
 * Claude models accept.
 */
import type { ThinkingLevel } from "./types.ts";

export type OpenAIEffort = "low" | "medium" | "high" | "xhigh";

interface _LevelMapping {
  openaiEffort?: OpenAIEffort;
  anthropicBudget?: number;
}

export const THINKING_MAPPING: Readonly<Record<ThinkingLevel, _LevelMapping>> = {
  off: {},
  low: { openaiEffort: "low", anthropicBudget: 6400 },
  medium: { openaiEffort: "medium", anthropicBudget: 16000 },
  high: { openaiEffort: "high", anthropicBudget: 38400 },
  max: { openaiEffort: "xhigh", anthropicBudget: 48000 },
};

/** Anthropic output limit without thinking. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 32000;
/** Room for the answer on top of the thinking budget when the request sets no limit. */
export const ANTHROPIC_ANSWER_ALLOWANCE = 16000;

/** The OpenAI reasoning effort for a level; undefined means "send none". */
export function openAIEffort(level: ThinkingLevel): OpenAIEffort | undefined {
  return THINKING_MAPPING[level].openaiEffort;
}

/** Anthropic `thinking` budget and the `max_tokens` to send with it (budget undefined = thinking off). */
export function anthropicThinking(level: ThinkingLevel, maxOutputTokens?: number): { budget?: number; maxTokens: number } {
  const budget = THINKING_MAPPING[level].anthropicBudget;
  if (budget === undefined) return { maxTokens: maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS };
  return { budget, maxTokens: budget + (maxOutputTokens ?? ANTHROPIC_ANSWER_ALLOWANCE) };
}
