/**
 * The shared request runner and failure mapping, for the paths the scripted steps of the fake
 * provider cannot reach: failures after output streamed, in-stream provider errors, aborts with
 * a partial message. Real HTTP against the fake; the decoders here stand in for an adapter's.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { MessageDraft } from "../../lib/providers/_draft.ts";
import { classifyFailure, parseFailureBody, readRetryAfterMs, type WireFailure } from "../../lib/providers/_failures.ts";
import { streamWire, type DecodeEnd, type StreamDecoder } from "../../lib/providers/_http.ts";
import type { SseMessage } from "../../lib/providers/_sse.ts";
import type { AssistantMessage } from "../../lib/messages.ts";
import { buildChatRequest } from "../../lib/providers/openai-chat.ts";
import type { ModelEvent } from "../../lib/providers/types.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { API_KEY, collect, connectTo, hostOfFake, requestOf } from "./providers-harness.ts";

/** Optionally shows "partial" on the first SSE message, then ends as `end` says for this attempt ("read-on": reads to the end). */
function _decoder(end: (attempt: number) => DecodeEnd | "throw" | "read-on", options: { outputFirst: boolean }): StreamDecoder {
  let attempt = 0;
  return async function* (messages: AsyncIterable<SseMessage>, draft: MessageDraft): AsyncGenerator<ModelEvent, DecodeEnd, undefined> {
    const outcome = end(++attempt);
    for await (const _message of messages) {
      if (options.outputFirst && !draft.hasOutput) {
        draft.appendText("text", "partial");
        yield { type: "text-delta", text: "partial" };
      }
      if (outcome === "throw") throw new Error("socket hang up");
      if (outcome !== "read-on") return outcome;
    }
    return { kind: "truncated" };
  };
}

describe("streamWire", () => {
  let fake: FakeProvider;
  let host: string;
  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: API_KEY });
    host = hostOfFake(fake);
  });
  afterEach(async () => {
    await fake.stop();
  });

  function _run(decode: StreamDecoder, overrides: Parameters<typeof connectTo>[2] = {}, signal?: AbortSignal) {
    const connection = connectTo(fake, "openai-chat", overrides);
    const request = requestOf({ tools: [], ...(signal ? { signal } : {}) });
    return collect(streamWire(connection, request, () => buildChatRequest(connection, request), decode));
  }

  const _partial: AssistantMessage = { role: "assistant", parts: [{ type: "text", text: "partial" }] };

  test("a connection lost after output is an error with the partial message, not a retry", async () => {
    fake.script({ text: "x" }, { text: "never used" });
    const events = await _run(_decoder(() => "throw", { outputFirst: true }));
    expect(events).toEqual([
      { type: "text-delta", text: "partial" },
      {
        type: "error",
        partial: _partial,
        usage: { inputTokens: 0, outputTokens: 0 },
        error: { kind: "network", beforeOutput: false, message: `the connection to ${host} dropped mid-response: socket hang up — try again` },
      },
    ]);
    expect(fake.requests).toHaveLength(1);
  });

  test("a stream that ends early after output is reported the same way", async () => {
    fake.script({ text: "x" });
    const events = await _run(_decoder(() => ({ kind: "truncated" }), { outputFirst: true }));
    expect(events.at(-1)).toMatchObject({
      type: "error",
      partial: _partial,
      error: {
        kind: "network",
        beforeOutput: false,
        message: `the connection to ${host} dropped mid-response: the stream ended before the response was complete — try again`,
      },
    });
  });

  test("an overloaded error inside the stream before output is retried", async () => {
    fake.script({ text: "x" }, { text: "y" });
    const overloaded: DecodeEnd = { kind: "failed", failure: { message: "Overloaded", code: "overloaded_error" } };
    const events = await _run(_decoder((attempt) => (attempt === 1 ? overloaded : { kind: "complete", stop: "stop" }), { outputFirst: false }));
    expect(events).toEqual([
      { type: "retry", attempt: 1, delayMs: expect.any(Number), reason: `529 from ${host}: Overloaded` },
      { type: "finish", message: { role: "assistant", parts: [] }, usage: { inputTokens: 0, outputTokens: 0 }, stop: "stop" },
    ]);
    expect(fake.requests).toHaveLength(2);
  });

  test("an error inside the stream after output ends with the partial message", async () => {
    fake.script({ text: "x" });
    const events = await _run(_decoder(() => ({ kind: "failed", failure: { message: "Overloaded", code: "overloaded_error" } }), { outputFirst: true }));
    expect(events.at(-1)).toEqual({
      type: "error",
      partial: _partial,
      usage: { inputTokens: 0, outputTokens: 0 },
      error: { kind: "server", status: 529, beforeOutput: false, message: `529 from ${host}: Overloaded — the response was cut short; try again` },
    });
    expect(fake.requests).toHaveLength(1);
  });

  test("an abort after output ends with aborted and the partial message", async () => {
    fake.script({ text: ["a", "b"], stallMidStreamMs: 5_000 });
    const controller = new AbortController();
    const connection = connectTo(fake, "openai-chat");
    const request = requestOf({ tools: [], signal: controller.signal });
    const events: ModelEvent[] = [];
    for await (const event of streamWire(
      connection,
      request,
      () => buildChatRequest(connection, request),
      _decoder(() => "read-on", { outputFirst: true }),
    )) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    expect(events).toEqual([
      { type: "text-delta", text: "partial" },
      { type: "aborted", partial: _partial, usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  test("the deadline after output is a timeout that keeps the partial message", async () => {
    fake.script({ text: ["a", "b"], stallMidStreamMs: 5_000 });
    const events = await _run(
      _decoder(() => "read-on", { outputFirst: true }),
      { timeoutMs: 300 },
    );
    expect(events.at(-1)).toEqual({
      type: "error",
      partial: _partial,
      usage: { inputTokens: 0, outputTokens: 0 },
      error: { kind: "timeout", beforeOutput: false, message: `no answer from ${host} within 0.3s — the request deadline passed` },
    });
  });

  test("a request that cannot be built is an error event, not a throw", async () => {
    const connection = connectTo(fake, "openai-chat");
    const events = await collect(
      streamWire(
        connection,
        requestOf(),
        () => {
          throw new Error("tool schema is not an object");
        },
        _decoder(() => "read-on", { outputFirst: false }),
      ),
    );
    expect(events).toEqual([
      { type: "error", error: { kind: "other", beforeOutput: true, message: "cannot build the request: tool schema is not an object" } },
    ]);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("failure mapping", () => {
  const where = { host: "api.example.com", model: "m-1", connection: { keyEnv: "EXAMPLE_KEY" } as Parameters<typeof classifyFailure>[1]["connection"] };
  const _classify = (failure: WireFailure) => classifyFailure(failure, where);

  test("reads OpenAI, Anthropic, plain-text and HTML error bodies", () => {
    expect(parseFailureBody('{"error":{"message":"Bad thing.","type":"invalid_request_error","code":"context_length_exceeded"}}', 400)).toEqual({
      message: "Bad thing",
      code: "context_length_exceeded",
    });
    expect(parseFailureBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 529)).toEqual({
      message: "Overloaded",
      code: "overloaded_error",
    });
    expect(parseFailureBody('{"detail":"Not Found"}', 404)).toEqual({ message: "Not Found" });
    expect(parseFailureBody("<html><body><h1>502 Bad Gateway</h1>\n<p>nginx</p></body></html>", 502)).toEqual({ message: "502 Bad Gateway nginx" });
    expect(parseFailureBody("", 503)).toEqual({ message: "HTTP 503" });
    expect(parseFailureBody("x".repeat(500)).message).toBe(`${"x".repeat(199)}…`);
  });

  test("gateway error bodies in every common shape become one readable line", () => {
    const table: [string, { message: string; code?: string }][] = [
      ['{"html-message":"<p>Portkey: <b>invalid</b> x-portkey-config &amp; provider</p>"}', { message: "Portkey: invalid x-portkey-config & provider" }],
      ['{"status":"failure","message":"Invalid API key provided."}', { message: "Invalid API key provided" }],
      ['{"error":"upstream timed out"}', { message: "upstream timed out" }],
      ['{"error":{"html-message":"no route for model"}}', { message: "no route for model" }],
      ['{"detail":[{"loc":["body","model"],"msg":"field required"},{"msg":"bad"}]}', { message: "body.model: field required; bad" }],
      ['{"errors":[{"message":"rate exceeded"}]}', { message: "rate exceeded" }],
      ['{"unexpected":{"shape":1}}', { message: '{"unexpected":{"shape":1}}' }],
      ["Service Unavailable\n\n", { message: "Service Unavailable" }],
      ["<html><head><style>p{color:red}</style><script>x()</script></head><body>Gateway&nbsp;error</body></html>", { message: "Gateway error" }],
    ];
    for (const [body, expected] of table) expect({ body, got: parseFailureBody(body, 500) }).toEqual({ body, got: expected });
  });

  test("overflow, quota and 501 are final; 408 is retried", () => {
    expect(_classify({ status: 400, message: "prompt is too long: 300000 tokens > 200000 maximum" })).toEqual({
      error: {
        kind: "context-overflow",
        status: 400,
        message:
          "400 from api.example.com: prompt is too long: 300000 tokens > 200000 maximum — the conversation is too long for m-1; run /compact or start a new session",
      },
    });
    for (const message of [
      "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)",
      "This model's maximum prompt length is 131072 but the request contains 150000 tokens",
    ]) {
      expect(_classify({ status: 400, message })).toMatchObject({ error: { kind: "context-overflow", status: 400 } });
    }
    expect(_classify({ status: 429, message: "You exceeded your current quota", code: "insufficient_quota" })).toEqual({
      error: { kind: "rate-limit", status: 429, message: "429 from api.example.com: You exceeded your current quota — check your plan and billing" },
    });
    expect(_classify({ status: 501, message: "Not Implemented" })).toEqual({
      error: {
        kind: "bad-request",
        status: 501,
        shapeRejected: true,
        message: "501 from api.example.com: Not Implemented — the endpoint refused the request; check the model id and --protocol",
      },
    });
    expect("retry" in _classify({ status: 408, message: "Request Timeout" })).toBe(true);
    expect(_classify({ status: 418, message: "teapot" })).toEqual({ error: { kind: "other", status: 418, message: "418 from api.example.com: teapot" } });
  });

  test("retry-after-ms wins over retry-after, which may be seconds or an HTTP date", () => {
    expect(readRetryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toEqual({ retryAfterMs: 250 });
    expect(readRetryAfterMs(new Headers({ "retry-after": "2" }))).toEqual({ retryAfterMs: 2000 });
    const date = readRetryAfterMs(new Headers({ "retry-after": new Date(Date.now() + 30_000).toUTCString() })).retryAfterMs!;
    expect(date).toBeGreaterThan(25_000);
    expect(date).toBeLessThanOrEqual(30_000);
    expect(readRetryAfterMs(new Headers({ "retry-after": "Wed, 21 Oct 2015 07:28:00 GMT" }))).toEqual({ retryAfterMs: 0 });
    expect(readRetryAfterMs(new Headers({ "retry-after": "soon" }))).toEqual({});
    expect(readRetryAfterMs(new Headers())).toEqual({});
  });
});
