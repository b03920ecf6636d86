/**
 * One model request over HTTP, shared by every adapter: POST the JSON body with ofetch, read
 * the SSE stream through the adapter's decoder, retry transient failures, enforce the deadline,
 * and end with one terminal event. What each failure means is decided in `_failures.ts`.
 *
 * Retry policy (one table for all protocols):
 * - retried, up to `connection.maxRetries` times with exponential backoff and jitter from
 *   `connection.retryBaseMs` (default 500 ms): 408, 429 (waiting what `retry-after-ms` or
 *   `retry-after` asks, in seconds or as an HTTP date), 5xx other than 501, an error the provider
 *   reports in the stream as overloaded / rate limited / internal, and a connection that fails or
 *   ends early before any output streamed;
 * - never retried: 400, 401, 403, 404, 405, 415, 422, 501, context overflow, a 429 for an
 *   exhausted quota, the deadline (`connection.timeoutMs` for one attempt, streaming included),
 *   and any failure after output streamed (the caller cannot take back shown text).
 * Each retry is announced by a `retry` event before the wait.
 */
import { ofetch } from "ofetch";
import { createDraft, type MessageDraft } from "./_draft.ts";
import { classifyFailure, describeFetchError, parseFailureBody, readRetryAfterMs, type RetryableFailure, type WireFailure } from "./_failures.ts";
import { readSse, type SseMessage } from "./_sse.ts";
import type { StopReason } from "../messages.ts";
import type { ModelEvent, ModelRequest, ProviderConnection, ProviderError } from "./types.ts";

export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** How a decoder's stream ended. */
export type DecodeEnd =
  | { kind: "complete"; stop: StopReason }
  | { kind: "failed"; failure: WireFailure }
  /** The body ended without the protocol's final event: treated as a dropped connection. */
  | { kind: "truncated" };

/**
 * Turns one response's SSE messages into deltas, recording the message in `draft`. Decoders
 * yield only `text-delta`, `reasoning-delta`, `tool-call-start` and `tool-call-delta`; the
 * terminal event is this module's job.
 */
export type StreamDecoder = (messages: AsyncIterable<SseMessage>, draft: MessageDraft) => AsyncGenerator<ModelEvent, DecodeEnd, undefined>;

/**
 * Runs `request` until it finishes, fails for good, or is aborted; yields exactly one terminal
 * event. Never throws: a `build` that throws ends the stream with an error event.
 */
export async function* streamWire(
  connection: ProviderConnection,
  request: ModelRequest,
  build: () => WireRequest,
  decode: StreamDecoder,
): AsyncGenerator<ModelEvent, void, undefined> {
  let wire: WireRequest;
  try {
    wire = build();
  } catch (error) {
    yield { type: "error", error: { kind: "other", message: `cannot build the request: ${_errorText(error)}`, beforeOutput: true } };
    return;
  }
  const context: _AttemptContext = { connection, wire, decode, signal: request.signal, host: hostOf(connection.baseURL), model: request.model };
  const maxRetries = Math.max(0, connection.maxRetries);
  for (let attempt = 0; ; attempt++) {
    const outcome = yield* _attempt(context);
    if (outcome === undefined) return;
    if (attempt >= maxRetries) {
      yield { type: "error", error: { ...outcome.final(maxRetries), beforeOutput: true } };
      return;
    }
    // A provider asking for a longer wait than MAX_RETRY_WAIT_MS is not waited on in silence:
    // the request fails now and the message says how long the provider asked for.
    if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > MAX_RETRY_WAIT_MS) {
      const final = outcome.final(attempt);
      const wait = Math.ceil(outcome.retryAfterMs / 1000);
      yield { type: "error", error: { ...final, beforeOutput: true, message: `${final.message} (the provider asks to wait ${wait}s before retrying)` } };
      return;
    }
    const delayMs = outcome.retryAfterMs ?? _backoffMs(connection.retryBaseMs ?? 500, attempt);
    yield { type: "retry", attempt: attempt + 1, delayMs, reason: outcome.reason };
    if (!(await _sleep(delayMs, request.signal))) {
      yield { type: "aborted" };
      return;
    }
  }
}

/** The longest `retry-after` waited on; beyond it the request fails with the wait in its message. */
export const MAX_RETRY_WAIT_MS = 60_000;

/** The host of a URL for messages (`api.openai.com`, `127.0.0.1:8080`); the input when unparsable. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

interface _AttemptContext {
  connection: ProviderConnection;
  wire: WireRequest;
  decode: StreamDecoder;
  signal?: AbortSignal;
  host: string;
  model: string;
}

/** One attempt. Returns undefined after yielding a terminal event, or a retryable failure. */
async function* _attempt(context: _AttemptContext): AsyncGenerator<ModelEvent, RetryableFailure | undefined, undefined> {
  const { connection, wire, host, signal } = context;
  const deadline = _startDeadline(connection.timeoutMs, signal);
  const timeout = (beforeOutput: boolean): ProviderError => ({
    kind: "timeout",
    beforeOutput,
    message: `no answer from ${host} within ${_seconds(connection.timeoutMs)}s — the request deadline passed`,
  });
  try {
    let response: Response;
    try {
      response = await ofetch.raw(wire.url, {
        method: "POST",
        body: wire.body,
        headers: { accept: "text/event-stream", ...wire.headers, ...connection.headers },
        responseType: "stream",
        retry: 0,
        ignoreResponseError: true,
        signal: deadline.signal,
      });
    } catch (error) {
      if (signal?.aborted) return yield* _end({ type: "aborted" });
      if (deadline.expired) return yield* _end({ type: "error", error: timeout(true) });
      return _networkRetry(host, describeFetchError(error));
    }

    if (response.status >= 400) {
      let text = "";
      try {
        text = await response.text();
      } catch {
        if (signal?.aborted) return yield* _end({ type: "aborted" });
        if (deadline.expired) return yield* _end({ type: "error", error: timeout(true) });
      }
      const failure = { status: response.status, ...parseFailureBody(text, response.status) };
      return yield* _failWith(context, failure, response.headers, undefined);
    }

    const draft = createDraft();
    let end: DecodeEnd;
    try {
      if (!response.body) throw new Error("the response had no body");
      end = yield* context.decode(readSse(response.body, deadline.signal), draft);
    } catch (error) {
      const partial = draft.partial();
      if (signal?.aborted) return yield* _end({ type: "aborted", partial, usage: draft.usage });
      if (deadline.expired) return yield* _end({ type: "error", error: timeout(!draft.hasOutput), partial, usage: draft.usage });
      return yield* _dropped(host, draft, describeFetchError(error));
    }
    if (end.kind === "complete") return yield* _end({ type: "finish", message: draft.build(), usage: draft.usage, stop: end.stop });
    if (end.kind === "truncated") return yield* _dropped(host, draft, "the stream ended before the response was complete");
    return yield* _failWith(context, end.failure, undefined, draft);
  } finally {
    deadline.dispose();
  }
}

async function* _end(event: ModelEvent): AsyncGenerator<ModelEvent, undefined, undefined> {
  yield event;
  return undefined;
}

async function* _dropped(host: string, draft: MessageDraft, cause: string): AsyncGenerator<ModelEvent, RetryableFailure | undefined, undefined> {
  if (!draft.hasOutput) {
    return {
      kind: "network",
      reason: `the connection to ${host} dropped: ${cause}`,
      final: () => ({ kind: "network", message: `the connection to ${host} dropped before the answer: ${cause} — check your network and try again` }),
    };
  }
  yield {
    type: "error",
    partial: draft.partial(),
    usage: draft.usage,
    error: { kind: "network", beforeOutput: false, message: `the connection to ${host} dropped mid-response: ${cause} — try again` },
  };
  return undefined;
}

function _networkRetry(host: string, cause: string): RetryableFailure {
  return {
    kind: "network",
    reason: `cannot reach ${host}: ${cause}`,
    final: () => ({ kind: "network", beforeOutput: true, message: `cannot reach ${host}: ${cause} — check the base URL or your network` }),
  };
}

/** Maps a provider-reported failure to a retry or a terminal error (with the partial, if any). */
async function* _failWith(
  context: _AttemptContext,
  failure: WireFailure,
  headers: Headers | undefined,
  draft: MessageDraft | undefined,
): AsyncGenerator<ModelEvent, RetryableFailure | undefined, undefined> {
  const beforeOutput = !draft?.hasOutput;
  const classified = classifyFailure(failure, context);
  if ("retry" in classified && beforeOutput) {
    return { ...classified.retry, ...(headers ? readRetryAfterMs(headers) : {}) };
  }
  const error: ProviderError =
    "error" in classified
      ? classified.error
      : {
          kind: classified.retry.kind,
          status: classified.retry.status,
          message: `${classified.retry.reason} — the response was cut short; try again`,
        };
  yield { type: "error", error: { ...error, beforeOutput }, ...(draft ? { partial: draft.partial(), usage: draft.usage } : {}) };
  return undefined;
}

function _backoffMs(baseMs: number, attempt: number): number {
  const exponential = baseMs * 2 ** attempt;
  return Math.round(exponential + Math.random() * exponential * 0.25);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function _sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface _Deadline {
  readonly signal: AbortSignal;
  readonly expired: boolean;
  /** Stops the timer and releases the connection if the body is still open. */
  dispose(): void;
}

function _startDeadline(timeoutMs: number, outer?: AbortSignal): _Deadline {
  const controller = new AbortController();
  let expired = false;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error("request deadline passed"));
  }, timeoutMs);
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
      if (!controller.signal.aborted) controller.abort(new Error("request finished"));
    },
  };
}

function _seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(1)));
}

function _errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Preconnect: opening the provider's connection while start-up goes on: a headless run sends its first
 * request a few milliseconds after its configuration is read, and the TCP (and, for https, TLS)
 * handshake can happen in the meantime on the runtime's HTTP thread instead of after the body is
 * built. Bun's `fetch.preconnect` does exactly that and fills the pool the request then takes.
 *
 * Contract: at most one preconnect per origin per process; nothing is sent (no HTTP request, no
 * key); nothing happens where the runtime has no `fetch.preconnect` (Deno, Node), when the URL
 * is not http(s), or when a proxy variable is set (the request would go through the proxy, so a
 * direct connection would be wasted, and may be exactly what the network forbids).
 */
const _PROXY_VARIABLES = ["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"];
const _warmed = new Set<string>();

type Preconnect = (url: string) => void;

/** True when a preconnect to `baseURL`'s origin was started; `preconnect` is the runtime's unless a test brings one. */
export function preconnectProvider(
  baseURL: string,
  env: NodeJS.ProcessEnv = process.env,
  preconnect: Preconnect | undefined = (fetch as { preconnect?: Preconnect }).preconnect,
): boolean {
  if (typeof preconnect !== "function") return false;
  if (_PROXY_VARIABLES.some((name) => env[name] || env[name.toLowerCase()])) return false;
  let origin: string;
  try {
    const url = new URL(baseURL);
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    origin = url.origin;
  } catch {
    return false;
  }
  if (_warmed.has(origin)) return false;
  _warmed.add(origin);
  try {
    preconnect.call(fetch, origin);
  } catch {
    // A refused preconnect costs nothing: the request connects as it always did.
    return false;
  }
  return true;
}
