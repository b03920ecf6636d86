/**
 * The Responses adapter's wire format, asserted on the bodies the fake provider received:
 * stateless requests, encrypted reasoning replayed beside its own items, and the items' shapes.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Message } from "../../lib/messages.ts";
import { streamOpenAIResponses, toResponsesInput } from "../../lib/providers/openai-responses.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { API_KEY, TOOLS, collect, connectTo, finishOf, requestOf, runTwoReadsLoop, terminalOf } from "./providers-harness.ts";

const _WIRE_TOOLS = TOOLS.map((tool) => ({ type: "function", name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: false }));

describe("openai-responses adapter", () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("a tool loop is stateless: store false, history inline, reasoning replayed before its own items", async () => {
    const reasoning = (await runTwoReadsLoop(fake, "openai-responses", "medium")).parts[0];
    if (reasoning?.type !== "reasoning") throw new Error("no reasoning part");

    expect(fake.violations).toEqual([]);
    expect(fake.requests.map((request) => request.path)).toEqual(["/v1/responses", "/v1/responses"]);
    expect(fake.requests[1]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(fake.requests[1]!.body).toEqual({
      model: "fake-model",
      instructions: "You are a test.",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
        {
          type: "reasoning",
          id: reasoning.itemId,
          encrypted_content: reasoning.encryptedContent,
          summary: [{ type: "summary_text", text: "Need both files." }],
        },
        { type: "message", role: "assistant", content: "Checking." },
        { type: "function_call", call_id: "call_a", name: "read_file", arguments: '{"path":"a.ts"}' },
        { type: "function_call", call_id: "call_b", name: "read_file", arguments: '{"path":"b.ts"}' },
        { type: "function_call_output", call_id: "call_a", output: "export const a = 1;" },
        { type: "function_call_output", call_id: "call_b", output: "Error: no such file: b.ts" },
      ],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      tools: _WIRE_TOOLS,
      reasoning: { effort: "medium", summary: "auto" },
    });
  });

  test("thinking off sends no reasoning settings; the output limit is max_output_tokens", async () => {
    fake.script({ text: "ok" });
    await collect(streamOpenAIResponses(connectTo(fake, "openai-responses"), requestOf({ tools: [], maxOutputTokens: 2000, system: "" })));
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.body).toEqual({
      model: "fake-model",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      max_output_tokens: 2000,
    });
  });

  test("max thinking asks for xhigh effort", async () => {
    fake.script({ text: "ok" });
    await collect(streamOpenAIResponses(connectTo(fake, "openai-responses"), requestOf({ thinking: "max" })));
    expect(fake.requests[0]!.body.reasoning).toEqual({ effort: "xhigh", summary: "auto" });
    expect(fake.violations).toEqual([]);
  });

  test("reasoning that cannot be replayed is left out, and a reasoning item never ends a message", () => {
    const messages: Message[] = [
      { role: "user", content: "one" },
      // Nothing followed this reasoning in its response: sending it alone is invalid.
      {
        role: "assistant",
        parts: [{ type: "reasoning", text: "alone", protocol: "openai-responses", itemId: "rs_1", encryptedContent: "enc1", summary: ["alone"] }],
      },
      { role: "user", content: "two" },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "from claude", protocol: "anthropic", signature: "sig" },
          { type: "reasoning", text: "no payload", protocol: "openai-responses", itemId: "rs_2" },
          { type: "reasoning", text: "", protocol: "openai-responses", itemId: "rs_3", encryptedContent: "enc3", summary: [] },
          { type: "text", text: "answer" },
          { type: "reasoning", text: "trailing", protocol: "openai-responses", itemId: "rs_4", encryptedContent: "enc4" },
        ],
      },
    ];
    expect(toResponsesInput(messages)).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "one" }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "two" }] },
      { type: "reasoning", id: "rs_3", encrypted_content: "enc3", summary: [] },
      { type: "message", role: "assistant", content: "answer" },
    ]);
  });

  test("a reasoning-only turn replayed from a real response is dropped and the provider accepts the rest", async () => {
    fake.script({ reasoning: "thinking only" }, { text: "ok" });
    const connection = connectTo(fake, "openai-responses");
    const first = finishOf(await collect(streamOpenAIResponses(connection, requestOf({ thinking: "low" }))));
    expect(first.message.parts.map((part) => part.type)).toEqual(["reasoning"]);
    const messages: Message[] = [{ role: "user", content: "hi" }, first.message, { role: "user", content: "go on" }];
    const second = terminalOf(await collect(streamOpenAIResponses(connection, requestOf({ messages, thinking: "low" }))));
    expect(second.type).toBe("finish");
    expect(fake.violations).toEqual([]);
    expect(fake.requests[1]!.body.input.map((item: { type: string }) => item.type)).toEqual(["message", "message"]);
  });

  test("an incomplete response (output limit) stops with length", async () => {
    fake.script({ text: "cut", stop: "length" });
    const events = await collect(streamOpenAIResponses(connectTo(fake, "openai-responses"), requestOf({ maxOutputTokens: 5 })));
    expect(fake.requests[0]!.body.max_output_tokens).toBe(16);
    expect(terminalOf(events)).toMatchObject({ type: "finish", stop: "length" });
  });
});
