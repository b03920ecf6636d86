/**
 * The transport to one MCP server: stdio for a local server (in the sandbox when the hub wraps
 * its command), streamable HTTP or SSE for a remote one. The SDK's transports load on first use.
 *
 * Contract: a remote `url` is checked (servers.ts checkServerUrl) before anything is sent; a
 * local server's stderr is handed to `sink.stderr` as it arrives (which also drains the pipe, so a
 * chatty server never blocks) and its pid to `sink.pid` once spawned, because the pid outlives the
 * SDK's handle on the process (dropped when a handshake fails) and close() must end the process.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { childEnv } from "../../secrets/child-env.ts";
import { checkServerUrl, isLocalServer, type McpRemoteServer, type McpServerConfig } from "./servers.ts";

export interface TransportSink {
  stderr(chunk: string): void;
  pid(pid: number | undefined): void;
}

/** `wrap` gives the argv to spawn for a local server's argv and working folder (the sandbox). */
export async function createTransport(
  config: McpServerConfig,
  hubCwd: string,
  wrap: ((argv: readonly string[], cwd: string) => string[]) | undefined,
  sink: TransportSink,
): Promise<Transport> {
  if (isLocalServer(config)) {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const cwd = resolve(hubCwd, config.cwd ?? ".");
    if (!existsSync(cwd)) throw new Error(`working directory not found: ${cwd}`);
    const [command, ...args] = wrap ? wrap([config.command, ...(config.args ?? [])], cwd) : [config.command, ...(config.args ?? [])];
    const transport = new StdioClientTransport({
      command: command!,
      args,
      cwd,
      stderr: "pipe",
      env: { ...childEnv(), ...config.env },
    });
    transport.stderr?.on("data", (chunk: Buffer | string) => sink.stderr(String(chunk)));
    const start = transport.start.bind(transport);
    transport.start = () => {
      const starting = start();
      sink.pid(transport.pid ?? undefined);
      return starting;
    };
    return transport;
  }
  const problem = checkServerUrl(config.url);
  if (problem) throw new Error(problem);
  if (config.type === "sse") return sseTransport(config);
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: _requestInit(config) });
}

/** The older HTTP-plus-server-sent-events transport to `config.url`. */
export async function sseTransport(config: McpRemoteServer): Promise<Transport> {
  const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
  return new SSEClientTransport(new URL(config.url), { requestInit: _requestInit(config) });
}

const _requestInit = (config: McpRemoteServer) => (config.headers ? { headers: config.headers } : undefined);

/**
 * True when a `url` entry without `type` refused the streamable HTTP handshake as an older
 * SSE-only server does: an HTTP 4xx other than 401 and 403 (an authorisation failure is told as
 * it is, not retried over another transport).
 */
export function olderSseServer(config: McpServerConfig, error: unknown): boolean {
  if (isLocalServer(config) || config.type !== undefined) return false;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403;
}
