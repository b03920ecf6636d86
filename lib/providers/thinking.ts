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
 * Claude models accept. Older models with a smaller output limit, or without thinking, are listed
 * in ANTHROPIC_MODEL_LIMITS: their `max_tokens` is cut to the limit and the budget to what leaves
 * room for an answer, or thinking is not sent at all.
 */
import { lookupByModelPrefix } from "./_model-prefix.ts";
import type { ThinkingLevel } from "../vocabulary.ts";

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

interface _AnthropicModelLimit {
  maxOutputTokens: number;
  /** False for models that refuse a `thinking` parameter. */
  thinking: boolean;
}

/**
 * Claude models whose output limit is under 64000, by model-id prefix (longest wins, any `vendor/`
 * in front ignored), from Anthropic's models overview. Models not listed get the table above.
 */
export const ANTHROPIC_MODEL_LIMITS: Readonly<Record<string, _AnthropicModelLimit>> = {
  "claude-opus-4-0": { maxOutputTokens: 32000, thinking: true },
  "claude-opus-4-1": { maxOutputTokens: 32000, thinking: true },
  "claude-opus-4-2025": { maxOutputTokens: 32000, thinking: true },
  "claude-3-5-sonnet": { maxOutputTokens: 8192, thinking: false },
  "claude-3-5-haiku": { maxOutputTokens: 8192, thinking: false },
  "claude-3-opus": { maxOutputTokens: 4096, thinking: false },
  "claude-3-haiku": { maxOutputTokens: 4096, thinking: false },
};

/** The OpenAI reasoning effort for a level; undefined means "send none". */
export function openAIEffort(level: ThinkingLevel): OpenAIEffort | undefined {
  return THINKING_MAPPING[level].openaiEffort;
}

/**
 * Anthropic `thinking` budget and the `max_tokens` to send with it (budget undefined = thinking
 * off), within `model`'s limits when ANTHROPIC_MODEL_LIMITS lists it.
 */
export function anthropicThinking(level: ThinkingLevel, maxOutputTokens?: number, model = ""): { budget?: number; maxTokens: number } {
  const limit = lookupByModelPrefix(ANTHROPIC_MODEL_LIMITS, model);
  const cap = (tokens: number) => Math.min(tokens, limit?.maxOutputTokens ?? tokens);
  const budget = limit?.thinking === false ? undefined : THINKING_MAPPING[level].anthropicBudget;
  if (budget === undefined) return { maxTokens: cap(maxOutputTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS) };
  const answer = maxOutputTokens ?? ANTHROPIC_ANSWER_ALLOWANCE;
  const maxTokens = cap(budget + answer);
  if (maxTokens === budget + answer) return { budget, maxTokens };
  // The API wants 1024 <= budget < max_tokens; keep at least half the limit for the answer.
  return { budget: Math.max(_MIN_ANTHROPIC_BUDGET, Math.min(budget, maxTokens - Math.min(answer, Math.floor(maxTokens / 2)))), maxTokens };
}

const _MIN_ANTHROPIC_BUDGET = 1024;
