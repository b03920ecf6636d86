/**
 * The Anthropic adapter's wire format, asserted on the bodies the fake provider received: headers,
 * thinking budgets, signed thinking replayed first in a tool loop, and tool results in one message.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { toAnthropicMessages, streamAnthropic } from "../../lib/providers/anthropic.ts";
import type { Message } from "../../lib/messages.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { API_KEY, TOOLS, collect, connectTo, requestOf, runTwoReadsLoop, terminalOf } from "./providers-harness.ts";

const _WIRE_TOOLS = TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }));

describe("anthropic adapter", () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("a thinking tool loop replays the signed thinking first and all results in one user message", async () => {
    const assistant = await runTwoReadsLoop(fake, "anthropic", "medium");
    const thinking = assistant.parts[0];
    if (thinking?.type !== "reasoning") throw new Error("no thinking part");
    expect(fake.violations).toEqual([]);
    expect(fake.requests[1]!.path).toBe("/v1/messages");
    expect(fake.requests[1]!.headers["x-api-key"]).toBe(API_KEY);
    expect(fake.requests[1]!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(fake.requests[1]!.headers.authorization).toBeUndefined();
    expect(fake.requests[1]!.body).toEqual({
      model: "fake-model",
      max_tokens: 32000,
      stream: true,
      system: "You are a test.",
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Need both files.", signature: thinking.signature },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_a", name: "read_file", input: { path: "a.ts" } },
            { type: "tool_use", id: "toolu_b", name: "read_file", input: { path: "b.ts" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: "export const a = 1;" },
            { type: "tool_result", tool_use_id: "toolu_b", content: "no such file: b.ts", is_error: true, cache_control: { type: "ephemeral" } },
          ],
        },
      ],
      tools: [..._WIRE_TOOLS.slice(0, -1), { ..._WIRE_TOOLS.at(-1)!, cache_control: { type: "ephemeral" } }],
      thinking: { type: "enabled", budget_tokens: 16000 },
    });
  });

  test("with thinking off, thinking blocks are not replayed and no thinking is asked for", async () => {
    await runTwoReadsLoop(fake, "anthropic", "medium", "off");
    expect(fake.violations).toEqual([]);
    const body = fake.requests[1]!.body;
    expect(body.thinking).toBeUndefined();
    expect(body.max_tokens).toBe(32000);
    expect(body.messages[1].content.map((block: { type: string }) => block.type)).toEqual(["text", "tool_use", "tool_use"]);
  });

  test("a tool loop whose assistant turn has no thinking to replay is sent without thinking", async () => {
    fake.script({ text: "ok" });
    const messages: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "from another model", protocol: "openai-chat" },
          { type: "tool-call", id: "toolu_x", name: "glob", input: { pattern: "*" } },
        ],
      },
      { role: "tool", results: [{ type: "tool-result", callId: "toolu_x", name: "glob", output: "a.ts" }] },
    ];
    const events = await collect(streamAnthropic(connectTo(fake, "anthropic"), requestOf({ messages, thinking: "medium" })));
    expect(terminalOf(events).type).toBe("finish");
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.body.thinking).toBeUndefined();
    expect(fake.requests[0]!.body.max_tokens).toBe(32000);
  });

  test.each([
    ["low", undefined, 6400, 22400],
    ["medium", undefined, 16000, 32000],
    ["high", undefined, 38400, 54400],
    ["max", undefined, 48000, 64000],
    ["low", 1000, 6400, 7400],
  ] as const)("thinking %s (limit %p) asks for budget %d within max_tokens %d", async (level, limit, budget, maxTokens) => {
    fake.script({ text: "ok" });
    await collect(streamAnthropic(connectTo(fake, "anthropic"), requestOf({ thinking: level, ...(limit ? { maxOutputTokens: limit } : {}) })));
    expect(fake.violations).toEqual([]);
    expect({ thinking: fake.requests[0]!.body.thinking, max_tokens: fake.requests[0]!.body.max_tokens }).toEqual({
      thinking: { type: "enabled", budget_tokens: budget },
      max_tokens: maxTokens,
    });
  });

  test.each([
    ["claude-opus-4-1-20250805", "high", undefined, { type: "enabled", budget_tokens: 16000 }, 32000],
    ["claude-opus-4-1", "max", 8000, { type: "enabled", budget_tokens: 24000 }, 32000],
    ["anthropic/claude-opus-4-20250514", "medium", undefined, { type: "enabled", budget_tokens: 16000 }, 32000],
    ["claude-3-5-haiku-latest", "medium", undefined, undefined, 8192],
    ["claude-3-haiku-20240307", "off", undefined, undefined, 4096],
    ["claude-opus-4-5", "max", undefined, { type: "enabled", budget_tokens: 48000 }, 64000],
  ] as const)("%s at thinking %s (limit %p) stays within the model's output limit", async (model, level, limit, thinking, maxTokens) => {
    fake.script({ text: "ok" });
    await collect(streamAnthropic(connectTo(fake, "anthropic"), requestOf({ model, thinking: level, ...(limit ? { maxOutputTokens: limit } : {}) })));
    expect(fake.violations).toEqual([]);
    expect({ thinking: fake.requests[0]!.body.thinking, max_tokens: fake.requests[0]!.body.max_tokens }).toEqual({ thinking, max_tokens: maxTokens });
  });

  test("thinking off sends the plain output limit and no temperature", async () => {
    fake.script({ text: "ok" }, { text: "ok" });
    await collect(streamAnthropic(connectTo(fake, "anthropic"), requestOf({ tools: [], system: "" })));
    await collect(streamAnthropic(connectTo(fake, "anthropic"), requestOf({ tools: [], maxOutputTokens: 4096 })));
    expect(fake.requests[0]!.body).toEqual({
      model: "fake-model",
      max_tokens: 32000,
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }],
    });
    expect(fake.requests[1]!.body.max_tokens).toBe(4096);
    expect(fake.requests.some((request) => "temperature" in request.body)).toBe(false);
  });

  test("redacted thinking is replayed as is, first; a user note after results joins their message", async () => {
    fake.script({ text: "ok" });
    const messages: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        parts: [
          { type: "text", text: "  " },
          { type: "reasoning", text: "", protocol: "anthropic", redactedData: "opaque-bytes" },
          { type: "tool-call", id: "toolu_r", name: "glob", input: { pattern: "*" } },
        ],
      },
      { role: "tool", results: [{ type: "tool-result", callId: "toolu_r", name: "glob", output: "" }] },
      { role: "user", content: "also check docs/" },
    ];
    expect(toAnthropicMessages(messages, { replayThinking: true })).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      {
        role: "assistant",
        content: [
          { type: "redacted_thinking", data: "opaque-bytes" },
          { type: "tool_use", id: "toolu_r", name: "glob", input: { pattern: "*" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_r", content: "(no output)" },
          { type: "text", text: "also check docs/" },
        ],
      },
    ]);
    await collect(streamAnthropic(connectTo(fake, "anthropic"), requestOf({ messages, thinking: "high" })));
    expect(fake.violations).toEqual([]);
  });

  test("reasoning from other protocols is never sent to Anthropic", () => {
    const messages: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "openai thought", protocol: "openai-responses", itemId: "rs_1", encryptedContent: "enc" },
          { type: "reasoning", text: "unsigned", protocol: "anthropic" },
          { type: "text", text: "answer" },
        ],
      },
      { role: "user", content: "next" },
    ];
    expect(toAnthropicMessages(messages, { replayThinking: true })).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "answer" }] },
      { role: "user", content: [{ type: "text", text: "next" }] },
    ]);
  });
});

describe("prompt caching", () => {
  test("only presets that take it mark cache breakpoints: the tool list and the newest block", async () => {
    const { buildAnthropicRequest } = await import("../../lib/providers/anthropic.ts");
    const { findPreset } = await import("../../lib/providers/presets.ts");
    const request = requestOf({});
    const nowhere = { baseURL: "http://127.0.0.1:9/v1" } as FakeProvider;
    const cached = buildAnthropicRequest({ ...connectTo(nowhere, "anthropic"), compat: findPreset("anthropic")!.compat }, request).body as any;
    const plain = buildAnthropicRequest({ ...connectTo(nowhere, "anthropic"), compat: findPreset("custom-anthropic")!.compat }, request).body as any;
    expect(cached.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(cached.tools.slice(0, -1).some((tool: any) => "cache_control" in tool)).toBe(false);
    expect(cached.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(JSON.stringify(plain)).not.toContain("cache_control");
  });
});
