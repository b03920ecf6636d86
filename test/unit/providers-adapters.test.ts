/**
 * Behaviour every adapter shares, driven against the fake provider for each wire protocol:
 * streaming, tool loops, usage, abort, retries, the deadline and error mapping.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { AssistantMessage, Protocol, ReasoningPart } from "../../lib/messages.ts";
import type { ModelEvent } from "../../lib/providers/types.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import {
  ADAPTERS,
  API_KEY,
  CALL_PREFIX,
  PROTOCOLS,
  collect,
  connectTo,
  finishOf,
  hostOfFake,
  requestOf,
  terminalOf,
  twoReadsHistory,
  withoutDeltas,
} from "./providers-harness.ts";

/** The opaque replay fields each protocol attaches to a reasoning part. */
function _reasoningPart(protocol: Protocol, text: string): ReasoningPart {
  if (protocol === "anthropic") return { type: "reasoning", text, protocol, signature: expect.any(String) };
  if (protocol === "openai-responses") {
    return { type: "reasoning", text, protocol, itemId: expect.stringMatching(/^rs_/), encryptedContent: expect.any(String), summary: [text] };
  }
  return { type: "reasoning", text, protocol };
}

function _usage(protocol: Protocol, input: number, output: number, reasoning: number) {
  return protocol === "anthropic"
    ? { inputTokens: input, outputTokens: output }
    : { inputTokens: input, outputTokens: output, cachedInputTokens: 0, reasoningTokens: reasoning };
}

describe.each(PROTOCOLS)("%s adapter against the fake provider", (protocol) => {
  const adapter = ADAPTERS[protocol];
  const a = `${CALL_PREFIX[protocol]}a1`;
  const b = `${CALL_PREFIX[protocol]}b2`;
  let fake: FakeProvider;
  let host: string;

  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: API_KEY });
    host = hostOfFake(fake);
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("streams reasoning, text and parallel tool calls, then finishes with the whole message and usage", async () => {
    fake.script({
      reasoning: ["Let me ", "look."],
      text: ["I'll ", "check."],
      toolCalls: [
        { id: a, name: "read_file", input: { path: "a.ts" } },
        { id: b, name: "glob", input: { pattern: "*.md" } },
      ],
      usage: { input: 120, output: 30 },
    });
    const events = await collect(adapter(connectTo(fake, protocol), requestOf({ thinking: "low" })));

    expect(events.filter((event) => event.type === "reasoning-delta")).toEqual([
      { type: "reasoning-delta", text: "Let me " },
      { type: "reasoning-delta", text: "look." },
    ]);
    expect(events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "I'll " },
      { type: "text-delta", text: "check." },
    ]);
    expect(events.filter((event) => event.type === "tool-call-start")).toEqual([
      { type: "tool-call-start", id: a, name: "read_file" },
      { type: "tool-call-start", id: b, name: "glob" },
    ]);
    const args = (id: string) => events.flatMap((event) => (event.type === "tool-call-delta" && event.id === id ? [event.argsDelta] : [])).join("");
    expect([args(a), args(b)]).toEqual(['{"path":"a.ts"}', '{"pattern":"*.md"}']);
    const order = [...new Set(events.map((event) => event.type))];
    expect(order).toEqual(["reasoning-delta", "text-delta", "tool-call-start", "tool-call-delta", "finish"]);
    expect(terminalOf(events)).toEqual({
      type: "finish",
      message: {
        role: "assistant",
        parts: [
          _reasoningPart(protocol, "Let me look."),
          { type: "text", text: "I'll check." },
          { type: "tool-call", id: a, name: "read_file", input: { path: "a.ts" } },
          { type: "tool-call", id: b, name: "glob", input: { pattern: "*.md" } },
        ],
      },
      usage: _usage(protocol, 120, 30, 3),
      stop: "tool-calls",
    });
    expect(fake.violations).toEqual([]);
  });

  test("a multi-step tool loop sends the results back and the provider accepts the history", async () => {
    fake.script(
      {
        reasoning: "Two reads.",
        toolCalls: [
          { id: a, name: "read_file", input: { path: "a.ts" } },
          { id: b, name: "read_file", input: { path: "b.ts" } },
        ],
      },
      { text: "b.ts is missing.", usage: { input: 300, output: 7 } },
    );
    const connection = connectTo(fake, protocol);
    const first = finishOf(await collect(adapter(connection, requestOf({ thinking: "medium" }))));
    expect(first.stop).toBe("tool-calls");

    const second = await collect(adapter(connection, requestOf({ messages: twoReadsHistory(first.message, a, b), thinking: "medium" })));
    expect(withoutDeltas(second)).toEqual([
      {
        type: "finish",
        message: { role: "assistant", parts: [{ type: "text", text: "b.ts is missing." }] },
        usage: _usage(protocol, 300, 7, 0),
        stop: "stop",
      },
    ]);
    expect(fake.violations).toEqual([]);
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]!.body)).toContain("no such file: b.ts");
  });

  test("unparsable tool arguments become input {} with the raw text in inputError", async () => {
    fake.script({ toolCalls: [{ id: a, name: "read_file", rawArgs: '{"path": "a.ts"' }] });
    const end = terminalOf(await collect(adapter(connectTo(fake, protocol), requestOf())));
    const expected: AssistantMessage = {
      role: "assistant",
      parts: [{ type: "tool-call", id: a, name: "read_file", input: {}, inputError: '{"path": "a.ts"' }],
    };
    expect(end).toMatchObject({ type: "finish", message: expected, stop: "tool-calls" });
  });

  test("a response cut by the output limit stops with length", async () => {
    fake.script({ text: "partial answ", stop: "length" });
    const end = terminalOf(await collect(adapter(connectTo(fake, protocol), requestOf({ maxOutputTokens: 5 }))));
    expect(end).toMatchObject({ type: "finish", message: { role: "assistant", parts: [{ type: "text", text: "partial answ" }] }, stop: "length" });
  });

  test("aborting mid-stream ends with aborted, once, without retrying", async () => {
    fake.script({ text: ["never", " shown"], stallMidStreamMs: 5_000 });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 150);
    const events = await collect(adapter(connectTo(fake, protocol), requestOf({ signal: controller.signal })));
    clearTimeout(timer);
    expect(events.map((event) => event.type)).toEqual(["aborted"]);
    expect(terminalOf(events)).toMatchObject({ type: "aborted", partial: undefined });
    expect(fake.requests).toHaveLength(1);
  });

  test("an abort before the request ends at once with aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(adapter(connectTo(fake, protocol), requestOf({ signal: controller.signal })));
    expect(events).toEqual([{ type: "aborted" }]);
    expect(fake.requests).toHaveLength(0);
  });

  test("429 is retried after the retry-after the server asked for, with the same body", async () => {
    fake.script({ error: { status: 429, headers: { "retry-after": "1" } } }, { text: "ok" });
    const events = await collect(adapter(connectTo(fake, protocol), requestOf()));
    expect(withoutDeltas(events)[0]).toEqual({ type: "retry", attempt: 1, delayMs: 1000, reason: `429 from ${host}: rate limited` });
    expect(terminalOf(events)).toMatchObject({ type: "finish", message: { parts: [{ type: "text", text: "ok" }] } });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body).toEqual(fake.requests[0]!.body);
  });

  test("500 is retried with backoff from retryBaseMs", async () => {
    fake.script({ error: { status: 500, message: "upstream hiccup" } }, { text: "ok" });
    const events = await collect(adapter(connectTo(fake, protocol, { retryBaseMs: 20 }), requestOf()));
    const retry = withoutDeltas(events)[0];
    expect(retry).toEqual({ type: "retry", attempt: 1, delayMs: expect.any(Number), reason: `500 from ${host}: upstream hiccup` });
    if (retry?.type !== "retry") throw new Error("no retry event");
    expect(retry.delayMs).toBeGreaterThanOrEqual(20);
    expect(retry.delayMs).toBeLessThanOrEqual(25);
    expect(terminalOf(events).type).toBe("finish");
    expect(fake.requests).toHaveLength(2);
  });

  test("a connection dropped before any output is retried", async () => {
    fake.script({ text: "lost", dropMidStream: true }, { text: "ok" });
    const events = await collect(adapter(connectTo(fake, protocol), requestOf()));
    expect(withoutDeltas(events)).toEqual([
      { type: "retry", attempt: 1, delayMs: expect.any(Number), reason: `the connection to ${host} dropped: connection reset` },
      { type: "finish", message: { role: "assistant", parts: [{ type: "text", text: "ok" }] }, usage: expect.any(Object), stop: "stop" },
    ]);
    expect(fake.requests).toHaveLength(2);
  });

  test("5xx after the last retry is one error line naming the host and the retries", async () => {
    const failure = { error: { status: 503, message: "try later" } };
    fake.script(failure, failure, failure);
    const events = await collect(adapter(connectTo(fake, protocol, { maxRetries: 2 }), requestOf()));
    expect(events.map((event) => event.type)).toEqual(["retry", "retry", "error"]);
    expect(terminalOf(events)).toEqual({
      type: "error",
      error: { kind: "server", status: 503, message: `503 from ${host} after 2 retries: try later`, beforeOutput: true },
    });
    expect(fake.requests).toHaveLength(3);
  });

  test("429 after the last retry says to wait", async () => {
    fake.script({ error: { status: 429, headers: { "retry-after-ms": "10" } } }, { error: { status: 429, headers: { "retry-after-ms": "10" } } });
    const events = await collect(adapter(connectTo(fake, protocol, { maxRetries: 1 }), requestOf()));
    expect(events).toEqual([
      { type: "retry", attempt: 1, delayMs: 10, reason: `429 from ${host}: rate limited` },
      {
        type: "error",
        error: { kind: "rate-limit", status: 429, message: `429 from ${host}: rate limited after 1 retry — wait and try again`, beforeOutput: true },
      },
    ]);
  });

  test("a retry-after longer than a minute is not waited on: the error says how long the provider asked", async () => {
    fake.script({ error: { status: 429, headers: { "retry-after": "3600" } } });
    const events = await collect(adapter(connectTo(fake, protocol, { maxRetries: 3 }), requestOf()));
    expect(events).toEqual([
      {
        type: "error",
        error: {
          kind: "rate-limit",
          status: 429,
          message: `429 from ${host}: rate limited — wait and try again (the provider asks to wait 3600s before retrying)`,
          beforeOutput: true,
        },
      },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  test("a rejected key is not retried: one request, one line naming the variable", async () => {
    const events = await collect(adapter(connectTo(fake, protocol, { apiKey: "sk-wrong-key-000000" }), requestOf()));
    const variable = protocol === "anthropic" ? "ANTHROPIC_API_KEY" : protocol === "openai-responses" ? "OPENAI_API_KEY" : "DEEPSEEK_API_KEY";
    expect(events).toEqual([
      {
        type: "error",
        error: { kind: "auth", status: 401, message: `401 from ${host}: the API key was rejected — set ${variable} or run /provider`, beforeOutput: true },
      },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  test("without keyEnv the 401 line points at SHIRO_API_KEY", async () => {
    fake.script({ error: { status: 401 } });
    const events = await collect(adapter(connectTo(fake, protocol, { keyEnv: undefined }), requestOf()));
    expect(terminalOf(events)).toMatchObject({ error: { message: `401 from ${host}: the API key was rejected — set SHIRO_API_KEY or run /provider` } });
  });

  test("403 and 404 are not retried and say what to check", async () => {
    fake.script({ error: { status: 403 } }, { error: { status: 404, message: "model fake-model does not exist" } });
    const connection = connectTo(fake, protocol);
    const forbidden = await collect(adapter(connection, requestOf()));
    const missing = await collect(adapter(connection, requestOf()));
    expect(forbidden).toEqual([
      {
        type: "error",
        error: {
          kind: "auth",
          status: 403,
          message: `403 from ${host}: this key may not use fake-model — check the model id or your plan`,
          beforeOutput: true,
        },
      },
    ]);
    expect(missing).toEqual([
      {
        type: "error",
        error: {
          kind: "not-found",
          status: 404,
          shapeRejected: true,
          beforeOutput: true,
          message: `404 from ${host}: model fake-model does not exist — check the model id and base URL`,
        },
      },
    ]);
    expect(fake.requests).toHaveLength(2);
  });

  test("the deadline ends the request with a timeout error and no retry", async () => {
    fake.script({ text: "too late", stallMs: 3_000 });
    const events = await collect(adapter(connectTo(fake, protocol, { timeoutMs: 200 }), requestOf()));
    expect(events).toEqual([
      {
        type: "error",
        error: { kind: "timeout", message: `no answer from ${host} within 0.2s — the request deadline passed`, beforeOutput: true },
      },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  test("the deadline also covers a stream that stalls midway", async () => {
    fake.script({ text: ["a", "b"], stallMidStreamMs: 3_000 });
    const events = await collect(adapter(connectTo(fake, protocol, { timeoutMs: 300 }), requestOf()));
    expect(terminalOf(events)).toMatchObject({
      type: "error",
      error: { kind: "timeout", message: `no answer from ${host} within 0.3s — the request deadline passed` },
    });
    expect(events.filter((event: ModelEvent) => event.type === "retry")).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  test("a conversation over the context window is a context-overflow error, not retried", async () => {
    await fake.stop();
    fake = await startFakeProvider({ apiKey: API_KEY, contextWindow: 20 });
    host = hostOfFake(fake);
    const events = await collect(adapter(connectTo(fake, protocol), requestOf()));
    expect(events).toHaveLength(1);
    expect(terminalOf(events)).toMatchObject({ type: "error", error: { kind: "context-overflow", status: 400, beforeOutput: true } });
    const error = terminalOf(events);
    if (error.type !== "error") throw new Error("expected an error");
    expect(error.error.shapeRejected).toBeUndefined();
    expect(error.error.message).toStartWith(`400 from ${host}: `);
    expect(error.error.message).toEndWith("— the conversation is too long for fake-model; run /compact or start a new session");
    expect(fake.requests).toHaveLength(1);
  });

  test("an unreachable server is retried, then reported as a network error", async () => {
    await fake.stop();
    const events = await collect(adapter(connectTo(fake, protocol, { maxRetries: 1 }), requestOf()));
    expect(events.map((event) => event.type)).toEqual(["retry", "error"]);
    expect(terminalOf(events)).toEqual({
      type: "error",
      error: { kind: "network", beforeOutput: true, message: `cannot reach ${host}: connection refused — check the base URL or your network` },
    });
    fake = await startFakeProvider();
  });
});
