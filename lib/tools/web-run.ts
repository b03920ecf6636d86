/**
 * What web_fetch (web.ts) does when called, loaded at its first call: every hop vetted by
 * net-guard.ts before it connects, the connection pinned to the vetted addresses, the body read
 * and turned into text as web.ts describes it.
 */
import type { IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import { VERSION } from "../platform/version.ts";
import { checkUrl, lookupAll, parseUrl, type CheckedTarget, type GuardOptions, type LookupFn, type ResolvedAddress } from "./net-guard.ts";
import { RESULT_CAP, type ToolContext } from "./types.ts";
import { WEB_FETCH_TIMEOUT_MS } from "./tool-limits.ts";

export const BODY_CAP_BYTES = 524_288;
export const MAX_REDIRECTS = 5;

export interface WebFetchOptions {
  /** Hosts (exact host or host:port) that may be private/loopback and plain http: config `webFetch.allowHosts`. */
  allowHosts?: string[];
  /** DNS resolution; tests inject one. Default: the system resolver, all addresses. */
  lookup?: LookupFn;
  /** Deadline for the whole fetch, redirects included. Default 20 s. */
  timeoutMs?: number;
}

/** A call's arguments, as the declaration's schema (web.ts) produces them. */
export interface WebFetchArgs {
  url: string;
  maxChars?: number;
}

const _HEADERS = {
  accept: "text/html, text/plain;q=0.9, application/json;q=0.8, text/*;q=0.7, */*;q=0.1",
  "accept-encoding": "gzip, deflate",
  "user-agent": `shiro-neko/${VERSION} (web_fetch)`,
};

const _TEXT_APPLICATION_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-sh",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/x-ndjson",
  "application/graphql",
  "application/sql",
  "application/x-www-form-urlencoded",
]);

/** web_fetch, under the tool's options (web.ts). */
export async function fetchPage(input: WebFetchArgs, ctx: ToolContext, options: WebFetchOptions): Promise<string> {
  const guard: GuardOptions = { allowHosts: options.allowHosts ?? [], lookup: options.lookup ?? lookupAll };
  const timeoutMs = options.timeoutMs ?? WEB_FETCH_TIMEOUT_MS;
  const start = parseUrl(input.url);
  const deadline = new AbortController();
  const onAbort = () => deadline.abort(new Error("web_fetch was interrupted."));
  const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${timeoutMs / 1000} s fetching ${start.href}`)), timeoutMs);
  if (ctx.signal.aborted) onAbort();
  else ctx.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const page = await _fetchText(start, guard, deadline.signal);
    return _formatResult(start, page, Math.min(input.maxChars ?? RESULT_CAP, RESULT_CAP));
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener("abort", onAbort);
  }
}

interface _Page {
  finalUrl: URL;
  text: string;
  capped: boolean;
}

/** What a fetch needs beyond the tool's declaration, loaded at the first fetch: start-up does not pay for HTTP, zlib or the HTML reader. */
interface _FetchModules {
  http: typeof import("node:http");
  https: typeof import("node:https");
  zlib: typeof import("node:zlib");
  htmlToMarkdown: (html: string, base: string) => string;
}

let _modules: Promise<_FetchModules> | undefined;
const _loadModules = (): Promise<_FetchModules> =>
  (_modules ??= Promise.all([import("node:http"), import("node:https"), import("node:zlib"), import("./html-to-markdown.ts")]).then(
    ([http, https, zlib, html]) => ({ http, https, zlib, htmlToMarkdown: html.htmlToMarkdown }),
  ));

async function _fetchText(start: URL, guard: GuardOptions, signal: AbortSignal): Promise<_Page> {
  const modules = await _loadModules();
  let target = await _raceAbort(checkUrl(start, guard), signal);
  for (let redirects = 0; ; redirects++) {
    const response = await _request(target, signal, modules);
    const href = target.url.href;
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.destroy();
      if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      target = await _raceAbort(_checkRedirect(location, target.url, guard), signal);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw new Error(`${href} returned ${status} ${response.statusMessage ?? ""}`.trimEnd());
    }
    const type = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type && !_isTextType(type)) {
      response.destroy();
      throw new Error(`${href} is ${type}, not text. web_fetch returns text only.`);
    }
    const { bytes, capped } = await _readBody(response, href, signal, modules.zlib);
    if (!type && bytes.subarray(0, 8192).includes(0)) {
      throw new Error(`${href} is application/octet-stream, not text. web_fetch returns text only.`);
    }
    const raw = _decode(bytes, response.headers["content-type"] ?? "");
    const isHtml = type === "text/html" || type === "application/xhtml+xml" || (!type && /^\s*<(?:!doctype html|html)/i.test(raw));
    return { finalUrl: target.url, text: isHtml ? modules.htmlToMarkdown(raw, href) : raw.trim(), capped };
  }
}

async function _checkRedirect(location: string, from: URL, guard: GuardOptions): Promise<CheckedTarget> {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new Error(`redirect to a refused URL: not a URL: ${location}`);
  }
  try {
    return await checkUrl(next, guard);
  } catch (error) {
    throw new Error(`redirect to a refused URL: ${(error as Error).message}`);
  }
}

/** Sends the GET, resolving once headers arrive. Connects only to the vetted addresses. */
function _request(target: CheckedTarget, signal: AbortSignal, { http, https }: _FetchModules): Promise<IncomingMessage> {
  const { url } = target;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(url, { method: "GET", headers: _HEADERS, lookup: _createPinnedLookup(target.addresses), agent: false });
    const onAbort = () => request.destroy(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    request.once("response", (response) => {
      signal.removeEventListener("abort", onAbort);
      resolve(response);
    });
    request.once("error", (error: NodeJS.ErrnoException) => {
      signal.removeEventListener("abort", onAbort);
      reject(signal.aborted ? signal.reason : new Error(`could not fetch ${url.href}: ${error.code ?? error.message}`));
    });
    request.end();
  });
}

/** A `lookup` for node:http that answers only with addresses the guard already checked. */
function _createPinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return ((_hostname: string, options: unknown, callback?: unknown) => {
    const done = (typeof options === "function" ? options : callback) as (...args: unknown[]) => void;
    const opts = (typeof options === "object" && options ? options : {}) as { family?: number | string; all?: boolean };
    const family = opts.family === "IPv6" || opts.family === 6 ? 6 : opts.family === "IPv4" || opts.family === 4 ? 4 : 0;
    const matching = family ? addresses.filter((entry) => entry.family === family) : addresses;
    const list = matching.length ? matching : addresses;
    if (opts.all) done(null, list);
    else done(null, list[0]!.address, list[0]!.family);
  }) as LookupFunction;
}

/** Reads at most BODY_CAP_BYTES of the (decompressed) body. */
function _readBody(
  response: IncomingMessage,
  href: string,
  signal: AbortSignal,
  { createGunzip, createInflate }: typeof import("node:zlib"),
): Promise<{ bytes: Uint8Array; capped: boolean }> {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const stream =
    encoding === "gzip" || encoding === "x-gzip" ? response.pipe(createGunzip()) : encoding === "deflate" ? response.pipe(createInflate()) : response;
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const finish = (capped: boolean) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      const bytes = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.length;
      }
      resolve({ bytes, capped });
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      response.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    stream.on("data", (chunk: Uint8Array) => {
      if (settled) return;
      const room = BODY_CAP_BYTES - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        response.destroy();
        finish(true);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.once("end", () => finish(false));
    stream.once("error", (error: Error) => fail(new Error(`could not read ${href}: ${error.message}`)));
    response.once("error", (error: Error) => fail(new Error(`could not read ${href}: ${error.message}`)));
  });
}

function _decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    // Any WHATWG encoding label is valid at run time; unknown ones throw and fall back to UTF-8.
    return new TextDecoder(charset as ConstructorParameters<typeof TextDecoder>[0]).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

function _isTextType(type: string): boolean {
  return type.startsWith("text/") || /\+(?:json|xml)$/.test(type) || _TEXT_APPLICATION_TYPES.has(type);
}

function _formatResult(start: URL, page: _Page, limit: number): string {
  const head = page.finalUrl.href === start.href ? start.href : `${start.href} -> ${page.finalUrl.href}`;
  const notes: string[] = [];
  let body = page.text;
  if (body.length > limit) {
    notes.push(`[truncated ${body.length - limit} chars]`);
    body = body.slice(0, limit);
  }
  if (page.capped) notes.push(`[response body capped at ${BODY_CAP_BYTES} bytes]`);
  return `${head}\n\n${body || "(empty response body)"}${notes.length ? `\n\n${notes.join("\n")}` : ""}`;
}

function _raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
