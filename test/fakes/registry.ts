/**
 * The fake registry: a real HTTP server on 127.0.0.1 (node:http, so it also runs under Deno)
 * serving an index and entry bodies, scripted per test by path. Every request is recorded.
 * A path with no script gets `404 Not Found`. Stalled responses end when the server closes, so
 * `close()` always returns.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface FakeRegistryResponse {
  status?: number;
  /** Sent as is; `json` is serialised instead when given. */
  body?: string;
  json?: unknown;
  headers?: Record<string, string>;
  /** Answer 302 with this Location (absolute, or a path on this server). */
  redirectTo?: string;
  /** Send the body without a Content-Length (chunked), so only reading it reveals its size. */
  chunked?: boolean;
  /** Wait this long before answering. */
  stallMs?: number;
}

export interface FakeRegistry {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  url(path: string): string;
  serve(path: string, response: FakeRegistryResponse): void;
  /** Serves `{skills, plugins}` at /index.json and returns its URL. */
  serveIndex(index: unknown): string;
  /** Method and path of every request, in arrival order. */
  readonly requests: { method: string; path: string }[];
  close(): Promise<void>;
}

export async function startFakeRegistry(): Promise<FakeRegistry> {
  const routes = new Map<string, FakeRegistryResponse>();
  const requests: { method: string; path: string }[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push({ method: request.method ?? "GET", path });
    const script = routes.get(path);
    if (!script) return _send(response, { status: 404, body: "no such file" });
    if (!script.stallMs) return _send(response, script);
    const timer = setTimeout(() => {
      timers.delete(timer);
      _send(response, script);
    }, script.stallMs);
    timers.add(timer);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    url: (path) => `${origin}${path}`,
    serve(path, response) {
      routes.set(path, response);
    },
    serveIndex(index) {
      routes.set("/index.json", { json: index });
      return `${origin}/index.json`;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function _send(response: ServerResponse, script: FakeRegistryResponse): void {
  if (script.redirectTo !== undefined) {
    response.writeHead(script.status ?? 302, { location: script.redirectTo, ...script.headers });
    response.end();
    return;
  }
  const body = script.json !== undefined ? JSON.stringify(script.json) : (script.body ?? "");
  const type = script.json !== undefined ? "application/json" : "text/plain; charset=utf-8";
  const length = script.chunked ? {} : { "content-length": String(Buffer.byteLength(body)) };
  response.writeHead(script.status ?? 200, { "content-type": type, ...length, ...script.headers });
  if (script.chunked) response.write(body);
  response.end(script.chunked ? undefined : body);
}
