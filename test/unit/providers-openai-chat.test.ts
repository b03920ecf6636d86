/**
 * The chat-completions adapter's wire format, asserted on the bodies the fake provider received:
 * history conversion, compat flags from presets, and reasoning handling.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Message } from "../../lib/messages.ts";
import { streamOpenAIChat, toChatMessages } from "../../lib/providers/openai-chat.ts";
import { findPreset } from "../../lib/providers/presets.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { API_KEY, TOOLS, collect, connectTo, finishOf, requestOf, runTwoReadsLoop, terminalOf } from "./providers-harness.ts";

const _WIRE_TOOLS = TOOLS.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } }));

describe("openai-chat adapter", () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("a tool loop sends the system prompt, the calls and one tool message per result; reasoning stays home", async () => {
    await runTwoReadsLoop(fake, "openai-chat");

    expect(fake.violations).toEqual([]);
    expect(fake.requests[1]!.path).toBe("/v1/chat/completions");
    expect(fake.requests[1]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(fake.requests[1]!.body).toEqual({
      model: "fake-model",
      messages: [
        { role: "system", content: "You are a test." },
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "Checking.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
            { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"b.ts"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "export const a = 1;" },
        { role: "tool", tool_call_id: "call_b", content: "Error: no such file: b.ts" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: _WIRE_TOOLS,
    });
  });

  test("an assistant turn with only tool calls is sent with null content and accepted", async () => {
    fake.script({ toolCalls: [{ id: "call_x", name: "glob", input: { pattern: "*" } }] }, { text: "ok" });
    const connection = connectTo(fake, "openai-chat");
    const first = finishOf(await collect(streamOpenAIChat(connection, requestOf())));
    const messages: Message[] = [
      { role: "user", content: "hi" },
      first.message,
      { role: "tool", results: [{ type: "tool-result", callId: "call_x", name: "glob", output: "" }] },
    ];
    const second = terminalOf(await collect(streamOpenAIChat(connection, requestOf({ messages }))));
    expect(second.type).toBe("finish");
    expect(fake.violations).toEqual([]);
    expect(fake.requests[1]!.body.messages.slice(2)).toEqual([
      { role: "assistant", content: null, tool_calls: [{ id: "call_x", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }] },
      { role: "tool", tool_call_id: "call_x", content: "" },
    ]);
  });

  test("OpenAI's compat flags: developer role, max_completion_tokens and reasoning_effort", async () => {
    fake.script({ text: "ok" });
    const connection = connectTo(fake, "openai-chat", { compat: findPreset("openai")!.compat });
    await collect(streamOpenAIChat(connection, requestOf({ thinking: "max", maxOutputTokens: 900, tools: [] })));
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.body).toEqual({
      model: "fake-model",
      messages: [
        { role: "developer", content: "You are a test." },
        { role: "user", content: "hi" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 900,
      reasoning_effort: "xhigh",
    });
  });

  test("a preset without reasoning_effort sends none, and thinking off sends none anywhere", async () => {
    fake.script({ text: "a" }, { text: "b" });
    await collect(streamOpenAIChat(connectTo(fake, "openai-chat"), requestOf({ thinking: "high" })));
    await collect(streamOpenAIChat(connectTo(fake, "openai-chat", { compat: findPreset("openai")!.compat }), requestOf({ thinking: "off" })));
    expect(fake.requests.map((request) => request.body.reasoning_effort)).toEqual([undefined, undefined]);
  });

  test("without usage in the stream no stream_options are sent and usage reads zero", async () => {
    fake.script({ text: "ok", usage: { input: 50, output: 2 } });
    const events = await collect(streamOpenAIChat(connectTo(fake, "openai-chat", { compat: findPreset("mistral")!.compat }), requestOf({ system: "" })));
    expect(fake.requests[0]!.body.stream_options).toBeUndefined();
    expect(fake.requests[0]!.body.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(terminalOf(events)).toEqual({
      type: "finish",
      message: { role: "assistant", parts: [{ type: "text", text: "ok" }] },
      usage: { inputTokens: 0, outputTokens: 0 },
      stop: "stop",
    });
  });

  test("reasoning is read from the preset's reasoning field only", async () => {
    fake.script({ reasoning: "hidden", text: "shown" });
    const events = await collect(streamOpenAIChat(connectTo(fake, "openai-chat", { compat: findPreset("openrouter")!.compat }), requestOf()));
    expect(events.filter((event) => event.type === "reasoning-delta")).toEqual([]);
    expect(terminalOf(events)).toMatchObject({ message: { parts: [{ type: "text", text: "shown" }] } });
  });

  test("reasoning from another protocol and empty assistant turns are not sent", async () => {
    fake.script({ text: "ok" });
    const messages: Message[] = [
      { role: "user", content: "one" },
      { role: "assistant", parts: [{ type: "reasoning", text: "thought", protocol: "anthropic", signature: "sig" }] },
      { role: "user", content: "two" },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "more", protocol: "openai-chat" },
          { type: "text", text: "answer" },
        ],
      },
      { role: "user", content: "three" },
    ];
    await collect(streamOpenAIChat(connectTo(fake, "openai-chat"), requestOf({ messages, tools: [] })));
    expect(fake.violations).toEqual([]);
    expect(fake.requests[0]!.body.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "one" },
      { role: "user", content: "two" },
      { role: "assistant", content: "answer" },
      { role: "user", content: "three" },
    ]);
  });
});

/** Serves `chunks` as one chat-completions SSE body on 127.0.0.1, for vendor stream shapes the fake does not produce. */
async function _serveChunks(chunks: unknown[]): Promise<{ baseURL: string; close: () => Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("")}data: [DONE]\n\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("openai-chat stream shapes of OpenAI-compatible servers", () => {
  const _call = (call: Record<string, unknown>, name: string | undefined, args: string) => ({
    choices: [{ index: 0, delta: { tool_calls: [{ ...call, function: { ...(name ? { name } : {}), arguments: args } }] } }],
  });
  const _signed = { google: { thought_signature: "sig-1" } };

  test("parallel calls without an index, or all under index 0, stay separate calls; extra_content goes back as sent (Gemini)", async () => {
    const server = await _serveChunks([
      _call({ id: "call_1", type: "function", extra_content: _signed }, "read_file", '{"path":'),
      _call({}, undefined, '"a.ts"}'),
      _call({ index: 0, id: "call_2", type: "function" }, "read_file", '{"path":"b.ts"}'),
      _call({ id: "call_3", type: "function" }, "glob", '{"pattern":"*"}'),
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    ]);
    try {
      const connection = { protocol: "openai-chat" as const, baseURL: server.baseURL, compat: findPreset("gemini")!.compat, maxRetries: 0, timeoutMs: 10_000 };
      const events = await collect(streamOpenAIChat(connection, requestOf()));
      const message = {
        role: "assistant" as const,
        parts: [
          { type: "tool-call" as const, id: "call_1", name: "read_file", input: { path: "a.ts" }, extraContent: _signed },
          { type: "tool-call" as const, id: "call_2", name: "read_file", input: { path: "b.ts" } },
          { type: "tool-call" as const, id: "call_3", name: "glob", input: { pattern: "*" } },
        ],
      };
      expect(terminalOf(events)).toEqual({ type: "finish", stop: "tool-calls", usage: { inputTokens: 0, outputTokens: 0 }, message });
      expect(toChatMessages([message])).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' }, extra_content: _signed },
            { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"path":"b.ts"}' } },
            { id: "call_3", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } },
          ],
        },
      ]);
    } finally {
      await server.close();
    }
  });
});
