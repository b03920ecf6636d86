/**
 * Prices: longest-prefix lookup, unpriced models, cost arithmetic and the dollar format.
 */
import { describe, expect, test } from "bun:test";
import { PRICES, costUsd, findPrice, formatUsd } from "../../lib/providers/pricing.ts";

describe("findPrice", () => {
  test.each([
    ["claude-sonnet-4-5", "claude-sonnet-4"],
    ["claude-opus-4-1-20250805", "claude-opus-4"],
    ["anthropic/claude-sonnet-4.5", "claude-sonnet-4"],
    ["gpt-5", "gpt-5"],
    ["GPT-5-Mini", "gpt-5-mini"],
    ["gpt-5-nano-2025-08-07", "gpt-5-nano"],
    ["openai/gpt-4o-mini", "gpt-4o-mini"],
    ["gpt-4o-2024-11-20", "gpt-4o"],
    ["o4-mini", "o4-mini"],
    ["deepseek-reasoner", "deepseek-reasoner"],
    ["x-ai/grok-4-fast", "grok-4"],
  ])("%s is priced as %s", (model, prefix) => {
    expect(findPrice(model)).toEqual(PRICES[prefix]!);
  });

  test.each(["llama3.1", "openai/gpt-oss-120b", "accounts/fireworks/models/kimi-k2-instruct", "claude-3-opus", ""])("%p is unpriced", (model) => {
    expect(findPrice(model)).toBeUndefined();
    expect(costUsd(model, { inputTokens: 1000, outputTokens: 1000 })).toBeUndefined();
  });
});

describe("costUsd", () => {
  test("input and output tokens at their own per-million price", () => {
    expect(costUsd("claude-sonnet-4-5", { inputTokens: 1_000_000, outputTokens: 100_000 })).toBeCloseTo(4.5, 10);
    expect(costUsd("gpt-5-mini", { inputTokens: 20_000, outputTokens: 3_000 })).toBeCloseTo(0.011, 10);
    expect(costUsd("gpt-5", { inputTokens: 0, outputTokens: 0 })).toBe(0);
  });
});

describe("formatUsd", () => {
  test.each([
    [0, "$0.00"],
    [0.0042, "$0.0042"],
    [0.00001, "$0.0000"],
    [0.009999, "$0.0100"],
    [0.01, "$0.01"],
    [0.011, "$0.01"],
    [4.5, "$4.50"],
    [123.456, "$123.46"],
  ])("%d → %s", (amount, text) => {
    expect(formatUsd(amount)).toBe(text);
  });
});
