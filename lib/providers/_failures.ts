/**
 * What a failed model request means: the provider's message read out of an error body, the
 * decision retry-or-report, the one-line message that says what to do, and the wait a 429 asks
 * for. Used by `_http.ts`; no I/O here.
 */
import type { ProviderConnection, ProviderError } from "./types.ts";
import { redactText } from "../secrets/redact.ts";

/** An error the provider reported, from the HTTP status or from an error event in the stream. */
export interface WireFailure {
  status?: number;
  /** The provider's own message, trimmed to one line of at most ~200 characters. */
  message: string;
  /** The provider's error code or type (`context_length_exceeded`, `overloaded_error`, …). */
  code?: string;
}

/** A transient failure before any output: retry, or report `final(retries)` when out of retries. */
export interface RetryableFailure {
  kind: ProviderError["kind"];
  status?: number;
  reason: string;
  retryAfterMs?: number;
  final: (retries: number) => ProviderError;
}

const _MESSAGE_LIMIT = 200;
// OpenAI and most compatible servers, Anthropic, Gemini (`input token count … exceeds the maximum
// number of tokens`), xAI (`maximum prompt length`).
const _OVERFLOW =
  /context_length_exceeded|prompt is too long|maximum context length|context window|exceeds the maximum number of tokens|maximum prompt length/i;
const _SHAPE_STATUSES = new Set([400, 404, 405, 415, 422, 501]);

/**
 * Decides what a provider-reported failure means. `retry` for transient ones (its `final`
 * builds the message once retries are used up), `error` for the rest.
 */
export function classifyFailure(
  failure: WireFailure,
  where: { host: string; model: string; connection: ProviderConnection },
): { retry: RetryableFailure } | { error: ProviderError } {
  const { host, model, connection } = where;
  const status = failure.status ?? _statusForCode(failure.code);
  const label = status === undefined ? host : `${status} from ${host}`;
  const said = failure.message;
  if (_OVERFLOW.test(`${failure.code ?? ""} ${said}`)) {
    return {
      error: {
        kind: "context-overflow",
        status,
        message: `${label}: ${said} — the conversation is too long for ${model}; run /compact or start a new session`,
      },
    };
  }
  if (status === 401) {
    const variable = connection.keyEnv ?? "SHIRO_API_KEY";
    return { error: { kind: "auth", status, message: `${label}: the API key was rejected — set ${variable} or run /provider` } };
  }
  if (status === 403) {
    return { error: { kind: "auth", status, message: `${label}: this key may not use ${model} — check the model id or your plan` } };
  }
  if (status === 404) {
    return { error: { kind: "not-found", status, shapeRejected: true, message: `${label}: ${said} — check the model id and base URL` } };
  }
  if (status === 429 && failure.code === "insufficient_quota") {
    return { error: { kind: "rate-limit", status, message: `${label}: ${said} — check your plan and billing` } };
  }
  if (status === 429) {
    return {
      retry: {
        kind: "rate-limit",
        status,
        reason: `${label}: rate limited`,
        final: (retries) => ({
          kind: "rate-limit",
          status,
          message: `${label}: rate limited${retries > 0 ? ` after ${_retries(retries)}` : ""} — wait and try again`,
        }),
      },
    };
  }
  if (status !== undefined && _SHAPE_STATUSES.has(status)) {
    return {
      error: {
        kind: "bad-request",
        status,
        shapeRejected: true,
        message: `${label}: ${said} — the endpoint refused the request; check the model id and --protocol`,
      },
    };
  }
  if (status === 408 || (status !== undefined && status >= 500)) {
    return {
      retry: {
        kind: "server",
        status,
        reason: `${label}: ${said}`,
        final: (retries) => ({ kind: "server", status, message: `${label}${retries > 0 ? ` after ${_retries(retries)}` : ""}: ${said}` }),
      },
    };
  }
  return { error: { kind: "other", status, message: `${label}: ${said}` } };
}

/** Error codes providers send inside a stream, mapped to the HTTP status they stand for. */
function _statusForCode(code: string | undefined): number | undefined {
  if (code === undefined) return undefined;
  if (/overloaded/i.test(code)) return 529;
  if (/rate_limit/i.test(code)) return 429;
  if (/server_error|api_error|internal/i.test(code)) return 500;
  if (/invalid_request|bad_request/i.test(code)) return 400;
  if (/authentication/i.test(code)) return 401;
  if (/permission/i.test(code)) return 403;
  if (/not_found/i.test(code)) return 404;
  return undefined;
}

/**
 * Reads the provider's message and code out of an error body: OpenAI
 * `{error: {message, code, type}}`, Anthropic `{type: "error", error: {type, message}}`, or
 * plain text (an HTML error page collapses to its text).
 */
export function parseFailureBody(text: string, status?: number): { message: string; code?: string } {
  let message: string | undefined;
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const inner = body.error;
    if (inner && typeof inner === "object") {
      const error = inner as Record<string, unknown>;
      message = _string(error.message);
      code = _string(error.code) ?? _string(error.type);
    } else {
      message = _string(inner) ?? _string(body.message) ?? _string(body.detail);
      code = _string(body.code) ?? (body.type === "error" ? undefined : _string(body.type));
    }
  } catch {
    message = text.replace(/<[^>]*>/g, " ");
  }
  const line = (message ?? "").replace(/\s+/g, " ").trim().replace(/\.+$/, "");
  const fallback = status === undefined ? "the provider reported an error" : `HTTP ${status}`;
  return { message: line.length === 0 ? fallback : _trim(line), ...(code ? { code } : {}) };
}

function _string(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : typeof value === "number" ? String(value) : undefined;
}

/** Redacted before the cut: a provider may echo part of a key, and a cut key no longer matches its shape. */
function _trim(raw: string): string {
  const text = redactText(raw).text;
  return text.length <= _MESSAGE_LIMIT ? text : `${text.slice(0, _MESSAGE_LIMIT - 1)}…`;
}

/** `retry-after-ms` (milliseconds) wins over `retry-after` (seconds or an HTTP date). */
export function readRetryAfterMs(headers: Headers): { retryAfterMs?: number } {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return { retryAfterMs: Math.round(ms) };
  const value = headers.get("retry-after")?.trim();
  if (!value) return {};
  if (/^\d+(\.\d+)?$/.test(value)) return { retryAfterMs: Math.round(Number(value) * 1000) };
  const date = Date.parse(value);
  return Number.isNaN(date) ? {} : { retryAfterMs: Math.max(0, date - Date.now()) };
}

const _NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ECONNRESET: "connection reset",
  ConnectionClosed: "connection closed",
  ETIMEDOUT: "connection timed out",
  CERT_HAS_EXPIRED: "the TLS certificate has expired",
};

/**
 * One short line for a failed fetch: the innermost cause, a known network error code in words,
 * without ofetch's `[POST] "url": <no response>` prefix.
 */
export function describeFetchError(error: unknown): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (!(current instanceof Error)) return String(current);
  const code = (current as { code?: unknown }).code;
  if (typeof code === "string" && _NETWORK_CODES[code]) return _NETWORK_CODES[code];
  const message = current.message.replace(/^\[\w+\] "[^"]*": (<no response> )?/, "").trim();
  return typeof code === "string" && !message.includes(code) ? `${code}: ${message}` : message || current.name;
}

function _retries(count: number): string {
  return `${count} ${count === 1 ? "retry" : "retries"}`;
}
