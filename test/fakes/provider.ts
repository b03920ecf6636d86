/**
 * The fake model provider every test runs against: a real HTTP server on 127.0.0.1 (node:http, so
 * it also runs under Deno) speaking OpenAI chat completions, OpenAI Responses and Anthropic
 * Messages, streaming and whole, scripted per test.
 *
 * Every model request is recorded, then checked the way the real provider checks it: key and
 * required headers, the OpenAPI schema (chat/responses), the protocol's pairing invariants and
 * the context window. A refused request is answered with the real status and error body, is
 * recorded in `violations`, and consumes no scripted step. An accepted request takes the next
 * scripted step (or asks the responder); with neither, it gets a 500 saying the script ran out.
 * `POST /v1/embeddings` (provider-embeddings.ts) is answered from an embedder, not the script,
 * and recorded in `embeddingRequests`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { anthropicProtocol } from "./provider-anthropic.ts";
import { chatProtocol } from "./provider-chat.ts";
import { answerEmbeddings, embedBagOfWords, type FakeEmbedder } from "./provider-embeddings.ts";
import { toOpenAIErrorBody } from "./provider-openai-errors.ts";
import { responsesProtocol } from "./provider-responses.ts";
import { checkSchema, loadSchemaValidators, type SchemaName } from "./provider-schema.ts";
import { createIdSource, estimateTokens, planStep, type CheckContext, type Refusal, type WireProtocol } from "./provider-wire.ts";

export { estimateTokens };

export interface FakeToolCall {
  id?: string;
  name: string;
  input?: unknown;
  /** Sent verbatim instead of JSON.stringify(input). */
  rawArgs?: string;
}

/** One model response. Output order is reasoning, text, then tool calls. */
export interface FakeStep {
  /** A string[] is streamed as these chunks. */
  text?: string | string[];
  /** chat: reasoning_content deltas; responses: a reasoning item (encrypted_content + summary); anthropic: a signed thinking block. */
  reasoning?: string | string[];
  /** Several = parallel calls in one response. */
  toolCalls?: FakeToolCall[];
  /** Default: input = estimateTokens(body), output estimated from what is sent. */
  usage?: { input?: number; output?: number };
  /** Answer with this error instead (e.g. 429 with {"retry-after": "1"}, 500, 401). */
  error?: { status: number; message?: string; type?: string; code?: string; headers?: Record<string, string> };
  /** Wait before sending headers (for deadline tests). */
  stallMs?: number;
  /** Wait after the first chunk (a non-streaming body's first half counts as its first chunk). */
  stallMidStreamMs?: number;
  /** Like stallMs, until this settles: the test, not a clock, says when the answer starts. */
  holdUntil?: Promise<unknown>;
  /** Like stallMidStreamMs, until this settles. */
  holdMidStreamUntil?: Promise<unknown>;
  /** Close the connection after the first chunk, leaving the body unfinished. */
  dropMidStream?: boolean;
  /** Finish reason when there are no tool calls. */
  stop?: "stop" | "length";
}

export type FakeResponder = (request: RecordedRequest, index: number) => FakeStep | Promise<FakeStep>;

export interface RecordedRequest {
  protocol: "openai-chat" | "openai-responses" | "anthropic" | "openai-embeddings";
  method: string;
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON, or the raw text when it did not parse. */
  body: any;
}

/** What SHIRO_PROTOCOL names: the wire protocol shiro speaks to the fake. */
export type ShiroProtocol = "chat" | "responses" | "anthropic";

/** Env that points shiro (the binary or an in-process agent) at the fake provider with the given protocol. */
export function fakeEnv(baseURL: string, protocol: ShiroProtocol): Record<string, string> {
  return { SHIRO_BASE_URL: baseURL, SHIRO_API_KEY: "test-key", SHIRO_PROTOCOL: protocol, SHIRO_PROVIDER: protocol === "anthropic" ? "anthropic" : "openai" };
}

export interface FakeProviderOptions {
  /** Tokens; a body estimated over it is refused as the provider would. */
  contextWindow?: number;
  /** When set, a missing/wrong key gets the real 401. */
  apiKey?: string;
  /** Default true: validate chat/responses bodies against the OpenAPI spec. */
  schemaCheck?: boolean;
  /** Ids listed by GET /v1/models. Default ["fake-model"]. */
  models?: string[];
  /** Windows listed with those ids as OpenRouter does (`context_length`), by id. */
  modelWindows?: Record<string, number>;
  /**
   * Called as each request's handler starts, before its body is read or checked: when a request
   * arrives, measured where a bare HTTP server would (the benches' time to the first request).
   */
  onArrival?: (method: string, path: string) => void;
  /** Called as each TCP connection is accepted, before any request on it (a client's preconnect shows here first). */
  onConnection?: () => void;
}

export interface FakeProvider {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + "/v1" */
  baseURL: string;
  /** Appends to a FIFO; one step per accepted model request. */
  script(...steps: FakeStep[]): void;
  /** Used when the FIFO is empty; `index` is the request's position in `requests`. */
  respond(fn: FakeResponder): void;
  /** Forgets leftover scripted steps, the responder, and what was recorded: a clean slate per test. */
  reset(): void;
  /** Every model request (valid or not), in order. */
  requests: RecordedRequest[];
  /** Every request refused by a check; `index` is its position in `requests` (-1 for an embeddings request). */
  violations: { index: number; status: number; message: string }[];
  /** Every `POST /v1/embeddings` request, in order (kept apart from `requests`, the model requests). */
  embeddingRequests: RecordedRequest[];
  /** Every `GET /v1/models` request, recorded once its answer was sent. */
  modelListings: { headers: Record<string, string> }[];
  /** How embeddings are made (default: a hashed bag of words, see provider-embeddings.ts). */
  embedWith(fn: FakeEmbedder): void;
  /** Closes the server, ending open connections and pending stalls. */
  stop(): Promise<void>;
}

const _DROP_GRACE_MS = 25;
const _PROTOCOLS: WireProtocol[] = [chatProtocol, responsesProtocol, anthropicProtocol];
const _SCHEMAS: Partial<Record<WireProtocol["name"], SchemaName>> = {
  "openai-chat": "CreateChatCompletionRequest",
  "openai-responses": "CreateResponse",
};

export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const schemaCheck = options.schemaCheck ?? true;
  if (schemaCheck) loadSchemaValidators();
  const steps: FakeStep[] = [];
  let responder: FakeResponder | undefined;
  const ids = createIdSource();
  const sockets = new Set<Socket>();
  const stopping = new AbortController();
  const provider = { requests: [] as RecordedRequest[], violations: [] as FakeProvider["violations"] };
  const embeddingRequests: RecordedRequest[] = [];
  const modelListings: FakeProvider["modelListings"] = [];
  let embedder: FakeEmbedder = embedBagOfWords;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    options.onArrival?.(req.method ?? "GET", (req.url ?? "/").split("?")[0]!);
    const raw = await _readBody(req);
    const path = (req.url ?? "/").split("?")[0]!;
    const headers = _flattenHeaders(req);
    const context: CheckContext = { headers, apiKey: options.apiKey, contextWindow: options.contextWindow };
    const protocol = _PROTOCOLS.find((candidate) => `/v1${candidate.path}` === path);
    if (req.method === "GET" && path === "/v1/models") {
      _answerModels(res, context, options.models ?? ["fake-model"], options.modelWindows ?? {});
      modelListings.push({ headers });
      return;
    }
    if (req.method === "POST" && path === "/v1/embeddings") {
      const body = _parseJson(raw);
      embeddingRequests.push({ protocol: "openai-embeddings", method: req.method, path, headers, body });
      const answer = answerEmbeddings(body, context, embedder, schemaCheck);
      if ("body" in answer) return _sendJson(res, 200, answer.body);
      provider.violations.push({ index: -1, status: answer.status, message: answer.refusal.message });
      return _sendJson(res, answer.status, toOpenAIErrorBody(answer.refusal));
    }
    if (!protocol || req.method !== "POST") return _answerUnknownRoute(res, req.method ?? "GET", path, headers);

    const body = _parseJson(raw);
    const index = provider.requests.push({ protocol: protocol.name, method: req.method, path, headers, body }) - 1;
    const refusal = _check(protocol, body, raw, context, schemaCheck);
    if (refusal) {
      provider.violations.push({ index, status: refusal.status, message: refusal.message });
      return _sendJson(res, refusal.status, protocol.errorBody(refusal));
    }
    const step = steps.shift() ?? (await responder?.(provider.requests[index]!, index));
    if (!step) return _sendJson(res, 500, protocol.errorBody({ ...protocol.defaultError(500), message: "fake provider: script exhausted" }));
    if (step.stallMs && !(await _wait(step.stallMs, res, stopping.signal))) return;
    if (step.holdUntil && !(await _wait(step.holdUntil, res, stopping.signal))) return;
    if (step.error) {
      const { status, message, type, code, headers: extraHeaders } = step.error;
      const fallback = protocol.defaultError(status);
      const errorBody = protocol.errorBody({ status, message: message ?? fallback.message, type: type ?? fallback.type, code: code ?? fallback.code });
      return _sendJson(res, status, errorBody, extraHeaders);
    }
    const plan = planStep(step, body);
    if (body.stream === true) {
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
        ..._requestIdHeader(protocol),
      });
      await _sendChunks(res, protocol.renderStream(plan, body, ids), step, stopping.signal);
    } else {
      const bytes = Buffer.from(JSON.stringify(protocol.renderJson(plan, body, ids)));
      const half = Math.ceil(bytes.length / 2);
      res.writeHead(200, { "content-type": "application/json", "content-length": String(bytes.length), ..._requestIdHeader(protocol) });
      await _sendChunks(res, [bytes.subarray(0, half), bytes.subarray(half)], step, stopping.signal);
    }
  };

  const server = createServer((req, res) => {
    // Only a throwing responder gets here: answer so the test sees its message.
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        _sendJson(res, 500, { error: { message: `fake provider: ${(error as Error).message}`, type: "server_error", param: null, code: null } });
      else res.destroy();
    });
  });
  server.on("connection", (socket: Socket) => {
    options.onConnection?.();
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    requests: provider.requests,
    violations: provider.violations,
    script: (...more) => void steps.push(...more),
    respond: (fn) => void (responder = fn),
    embeddingRequests,
    modelListings,
    embedWith: (fn) => void (embedder = fn),
    reset: () => {
      steps.length = 0;
      responder = undefined;
      embedder = embedBagOfWords;
      embeddingRequests.length = 0;
      modelListings.length = 0;
      provider.requests.length = 0;
      provider.violations.length = 0;
    },
    stop: async () => {
      stopping.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function _check(protocol: WireProtocol, body: any, raw: string, context: CheckContext, schemaCheck: boolean): Refusal | undefined {
  const denied = protocol.authorize(context);
  if (denied) return denied;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { status: 400, message: `We could not parse the JSON body of your request: expected a JSON object, got ${JSON.stringify(raw.slice(0, 40))}` };
  }
  const schema = _SCHEMAS[protocol.name];
  const issue = schemaCheck && schema ? checkSchema(schema, body) : undefined;
  if (issue) return { status: 400, param: issue.param || null, code: "invalid_value", message: `Invalid request body: ${issue.message}.` };
  const broken = protocol.check(body);
  if (broken) return broken;
  const tokens = estimateTokens(body);
  if (context.contextWindow !== undefined && tokens > context.contextWindow) return protocol.overflow(tokens, context.contextWindow);
  return undefined;
}

/** Writes the first chunk, applies the step's mid-stream stall or drop, then the rest. */
async function _sendChunks(res: ServerResponse, chunks: (string | Uint8Array)[], step: FakeStep, stopping: AbortSignal): Promise<void> {
  const [first, ...rest] = chunks;
  await new Promise<void>((resolve) => res.write(first ?? "", () => resolve()));
  if (step.dropMidStream) {
    // A short pause, then FIN rather than reset: either a reset or an immediate close can make the
    // client's stream error before its reader has taken the first chunk.
    if (await _wait(_DROP_GRACE_MS, res, stopping)) res.socket?.end();
    return;
  }
  if (step.stallMidStreamMs && !(await _wait(step.stallMidStreamMs, res, stopping))) return;
  if (step.holdMidStreamUntil && !(await _wait(step.holdMidStreamUntil, res, stopping))) return;
  for (const chunk of rest) res.write(chunk);
  res.end();
}

/** Resolves true after `ms`, or false as soon as the client goes away or the server stops. */
/** Waits `ms`, or until the promise settles; false when the connection closed (or the fake stopped) first. */
function _wait(until: number | Promise<unknown>, res: ServerResponse, stopping: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (open: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      res.off("close", onClose);
      stopping.removeEventListener("abort", onClose);
      resolve(open);
    };
    const onClose = () => finish(false);
    const timer = typeof until === "number" ? setTimeout(() => finish(!res.destroyed), until) : undefined;
    if (typeof until !== "number")
      void until.then(
        () => finish(!res.destroyed),
        () => finish(!res.destroyed),
      );
    res.on("close", onClose);
    stopping.addEventListener("abort", onClose);
  });
}

function _answerModels(res: ServerResponse, context: CheckContext, models: string[], windows: Record<string, number>): void {
  const anthropic = context.headers["anthropic-version"] !== undefined;
  const protocol = anthropic ? anthropicProtocol : chatProtocol;
  const denied = protocol.authorize(context);
  if (denied) return _sendJson(res, denied.status, protocol.errorBody(denied));
  const created = 1_700_000_000;
  if (anthropic) {
    const data = models.map((id) => ({ type: "model", id, display_name: id, created_at: new Date(created * 1000).toISOString() }));
    return _sendJson(res, 200, { data, has_more: false, first_id: models[0] ?? null, last_id: models.at(-1) ?? null });
  }
  const entry = (id: string) => ({ id, object: "model", created, owned_by: "fake-provider", ...(windows[id] ? { context_length: windows[id] } : {}) });
  _sendJson(res, 200, { object: "list", data: models.map(entry) });
}

function _answerUnknownRoute(res: ServerResponse, method: string, path: string, headers: Record<string, string>): void {
  if (headers["anthropic-version"] !== undefined) return _sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: "Not Found" } });
  _sendJson(res, 404, { error: { message: `Invalid URL (${method} ${path})`, type: "invalid_request_error", param: null, code: null } });
}

function _sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function _requestIdHeader(protocol: WireProtocol): Record<string, string> {
  return protocol.name === "anthropic" ? { "request-id": "req_fake" } : { "x-request-id": "req_fake" };
}

function _readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function _parseJson(raw: string): any {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function _flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}
