/**
 * MCP client: one hub per session connects every configured server in parallel, in the
 * background, and offers the tools of those connected so far as `mcp__<server>__<tool>`.
 *
 * Guarantees: nothing here throws out of the hub (a server that cannot be started, answers
 * wrongly or not within the connect timeout is `failed` with a one-line message); the MCP SDK is
 * loaded only when a server is connected; `close()` ends every local server process, and a local
 * server that failed is ended at once, so no process outlives the hub.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sealedEnv } from "../../secrets/key-vault.ts";
import { checkServerName, describeTarget, isEnabled, isLocalServer, offersTool, serverKind, type McpRemoteServer, type McpServerConfig } from "./servers.ts";
import { connectTimeout, rememberConnected } from "./connect-timeout.ts";
import { createTransport, olderSseServer, sseTransport } from "./transport.ts";
import { expandServer } from "./expand.ts";
import { createMcpTool, describeProgress, toMcpToolName, type McpCallResult, type McpListedTool } from "./tools.ts";
import { createCapabilityTools, readOffers, type McpOffers, type McpResourceClient } from "./resources.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { PRODUCT, VERSION } from "../../platform/version.ts";
import { redactText } from "../../secrets/redact.ts";

export interface McpServerStatus {
  name: string;
  kind: "local" | "remote";
  /** The command line of a local server, or the URL of a remote one. */
  target: string;
  /** `closed`: not connected (before start(), after close(), or the server ended the connection). */
  state: "connecting" | "connected" | "failed" | "closed";
  /** Tools listed by the server; 0 unless connected. */
  tools: number;
  /** Why the server failed, on one line; only when `failed`. */
  error?: string;
  /** The prompts it listed (the REPL's `/mcp__<server>__<prompt>` commands); only when connected and it lists some. */
  prompts?: { name: string; description?: string }[];
}

export interface McpHub {
  /** Starts connecting every configured server in parallel; returns at once. Once per hub. */
  start(): void;
  /** Resolves when every server has connected or failed (each within its own connect timeout), or after timeoutMs when given; at once before start(). */
  ready(timeoutMs?: number): Promise<void>;
  /** Tools of the servers connected so far, as ToolDefinitions named mcp__<server>__<tool>. */
  tools(): ToolDefinition[];
  status(): McpServerStatus[];
  /**
   * Called on every change to connected (with the tool count, again when the server's tool list
   * changes), failed (with the message) or closed. Entering `connecting` is not reported.
   */
  onChange(listener: (status: McpServerStatus) => void): void;
  /** Disconnects every server and ends local server processes; the hub cannot be started again. */
  close(): Promise<void>;
}

export interface McpHubOptions {
  /** Where local servers run (their own `cwd` is resolved against it); default process.cwd(). */
  cwd?: string;
  clientName?: string;
  clientVersion?: string;
  /** How long every server has to start, answer the handshake and list its tools; default: per server (connect-timeout.ts). */
  connectTimeoutMs?: number;
  /** Where `${VAR}` references are read from; default the process environment with sealed keys put back. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Runs local servers in the sandbox (config `sandbox.mcp`): the argv to spawn, given the server's argv and working folder. */
  wrapCommand?: (argv: readonly string[], cwd: string) => string[];
}

/** How long a headless run holds its first model request for servers still connecting. */
export const MCP_HEADLESS_GRACE_MS = 3_000;
/** A tool call that runs longer than this fails (the SDK's own default is one minute). */
export const MCP_CALL_TIMEOUT_MS = 10 * 60_000;
const _MAX_TOOL_PAGES = 100;
/** How the SDK reports a request the server refused for an unknown or missing session. */
const _SESSION_LOST = /session|HTTP 404|HTTP 400/i;
const _STDERR_TAIL = 2_000;
const _STDERR_LINES = 3;

interface _Server {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus;
  tools: ToolDefinition[];
  client?: Client;
  pid?: number;
  stderrTail: string;
  /** Set when the connection ended without us closing it. */
  endedByPeer: boolean;
  shuttingDown: boolean;
  /** Resources and prompts the server lists: their tools join its own. */
  offers?: McpOffers;
  settled?: Promise<void>;
  shutdown?: Promise<void>;
}

export function createMcpHub(servers: Record<string, McpServerConfig>, options: McpHubOptions = {}): McpHub {
  const cwd = options.cwd ?? process.cwd();
  const clientInfo = { name: options.clientName ?? PRODUCT, version: options.clientVersion ?? VERSION };
  const listeners: ((status: McpServerStatus) => void)[] = [];
  let started = false;
  let closed = false;

  const entries: _Server[] = Object.entries(servers)
    .filter(([, config]) => isEnabled(config))
    .map(([name, config]) => ({
      name,
      config,
      tools: [],
      stderrTail: "",
      endedByPeer: false,
      shuttingDown: false,
      status: { name, kind: serverKind(config), target: describeTarget(config), state: "closed", tools: 0 },
    }));

  function setState(server: _Server, state: McpServerStatus["state"], error?: string): void {
    const { name, kind, target } = server.status;
    const prompts = state === "connected" && server.offers?.prompts.length ? { prompts: server.offers.prompts } : {};
    server.status = {
      name,
      kind,
      target,
      state,
      tools: state === "connected" ? server.tools.length : 0,
      ...prompts,
      ...(error === undefined ? {} : { error }),
    };
    if (state === "connecting") return;
    for (const listener of listeners) {
      try {
        listener({ ...server.status });
      } catch {
        // A listener's failure must not change a server's state or escape the hub.
      }
    }
  }

  function setTools(server: _Server, listed: readonly McpListedTool[]): void {
    const taken = new Set<string>();
    server.tools = listed
      .filter((tool) => offersTool(server.config, tool.name))
      .map((tool) => {
        const name = toMcpToolName(server.name, tool.name, taken);
        taken.add(name);
        return createMcpTool(name, tool, (toolName, args, signal, onProgress) => callTool(server, toolName, args, signal, onProgress));
      });
    const offers = server.offers && { resources: server.offers.resources, prompts: server.offers.prompts.length > 0 };
    server.tools.push(...createCapabilityTools(server.name, offers, () => _connectedClient(server) as unknown as McpResourceClient, taken));
  }

  function _connectedClient(server: _Server): Client {
    if (!server.client || server.status.state !== "connected") throw new Error(`MCP server ${server.name} is not connected (${server.status.state})`);
    return server.client;
  }

  async function callTool(
    server: _Server,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (line: string) => void,
  ): Promise<McpCallResult> {
    const client = _connectedClient(server);
    const progress = onProgress ? { onprogress: (update: { progress: number; total?: number; message?: string }) => onProgress(describeProgress(update)) } : {};
    try {
      return (await client.callTool({ name, arguments: args }, undefined, { signal, timeout: MCP_CALL_TIMEOUT_MS, ...progress })) as McpCallResult;
    } catch (error) {
      // A remote server that restarted has forgotten our session: connect again once, then retry.
      if (isLocalServer(server.config) || signal.aborted || !_SESSION_LOST.test(String(error)) || closed || server.shuttingDown) throw error;
      await reconnect(server, client);
      return (await server.client!.callTool({ name, arguments: args }, undefined, { signal, timeout: MCP_CALL_TIMEOUT_MS })) as McpCallResult;
    }
  }

  /** Replaces a remote server's client whose session the server no longer knows (its tools are listed again). */
  async function reconnect(server: _Server, stale: Client): Promise<void> {
    stale.onclose = undefined;
    await stale.close().catch(() => {});
    setTools(server, await open(server));
    setState(server, "connected");
  }

  async function open(server: _Server): Promise<McpListedTool[]> {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const config = expandServer(server.config, options.env ?? sealedEnv(), cwd);
    const transport = await createTransport(config, cwd, options.wrapCommand, {
      stderr: (chunk) => (server.stderrTail = (server.stderrTail + chunk).slice(-_STDERR_TAIL)),
      pid: (pid) => (server.pid = pid),
    });
    if (closed || server.shuttingDown) throw new Error("closed before connecting");
    const newClient = () => {
      const client = new Client(clientInfo, {
        listChanged: {
          tools: {
            onChanged: (error, tools) => {
              if (error || !tools || server.status.state !== "connected") return;
              const before = server.tools.map((tool) => tool.name).join("\n");
              setTools(server, tools as McpListedTool[]);
              if (server.tools.map((tool) => tool.name).join("\n") !== before) setState(server, "connected");
            },
          },
        },
      });
      client.onclose = () => onEnded(server);
      return client;
    };
    let client = newClient();
    // connect() spawns a local server synchronously, so from here on close() can end it.
    server.client = client;
    try {
      await client.connect(transport);
    } catch (error) {
      if (!olderSseServer(config, error) || closed || server.shuttingDown) throw error;
      // A `url` with no `type` that refuses the streamable HTTP POST may be an older SSE server
      // (Gemini CLI's bare `url` means SSE): the MCP specification's fallback, one GET for the stream.
      client.onclose = undefined;
      await client.close().catch(() => {});
      client = newClient();
      server.client = client;
      try {
        await client.connect(await sseTransport(config as McpRemoteServer));
      } catch (sseError) {
        // Both failed: the streamable HTTP refusal is the message (with its status), the SSE one beside it.
        const code = (error as { code: number }).code;
        const first = _messageOf(error).includes(String(code)) ? _messageOf(error) : `${_messageOf(error)} (HTTP ${code})`;
        throw Object.assign(new Error(`${first}; over SSE: ${_messageOf(sseError)}`), { code });
      }
    }
    server.offers = await readOffers(client as unknown as McpResourceClient, client.getServerCapabilities());
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: McpListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < _MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...(result.tools as McpListedTool[]));
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  function onEnded(server: _Server): void {
    if (server.shuttingDown) return;
    server.endedByPeer = true;
    if (server.status.state !== "connected") return;
    server.tools = [];
    setState(server, "closed");
    void shutdown(server);
  }

  async function connect(server: _Server): Promise<void> {
    const problem = checkServerName(server.name);
    if (problem) return setState(server, "failed", `invalid server name: ${problem}`);
    setState(server, "connecting");
    const connectTimeoutMs = options.connectTimeoutMs ?? connectTimeout(server.name, server.config).ms;
    const began = Date.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${_seconds(connectTimeoutMs)}`)), connectTimeoutMs);
    });
    const opening = open(server);
    opening.catch(() => {});
    try {
      const listed = await Promise.race([opening, deadline]);
      if (closed) return;
      setTools(server, listed);
      setState(server, "connected");
      rememberConnected(server.name, server.config, Date.now() - began);
    } catch (error) {
      if (closed) return;
      setState(server, "failed", _describeFailure(server, error));
      void shutdown(server);
    } finally {
      clearTimeout(timer);
    }
  }

  function shutdown(server: _Server): Promise<void> {
    server.shuttingDown = true;
    server.shutdown ??= (async () => {
      try {
        await server.client?.close();
      } catch {
        // Closing a connection that already broke has nothing left to report.
      }
      if (server.pid !== undefined) await _ensureExited(server.pid);
    })();
    return server.shutdown;
  }

  return {
    start() {
      if (started || closed) return;
      started = true;
      for (const server of entries) server.settled = connect(server);
    },
    async ready(timeoutMs) {
      const pending = entries.flatMap((server) => (server.settled ? [server.settled] : []));
      if (pending.length === 0) return;
      if (timeoutMs === undefined) return void (await Promise.all(pending));
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(pending),
        new Promise<void>((done) => {
          timer = setTimeout(done, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
    tools() {
      return entries.flatMap((server) => (server.status.state === "connected" ? server.tools : []));
    },
    status() {
      return entries.map((server) => ({ ...server.status }));
    },
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      await Promise.all(
        entries.map(async (server) => {
          if (server.status.state === "connecting" || server.status.state === "connected") {
            server.tools = [];
            setState(server, "closed");
          }
          await shutdown(server);
        }),
      );
    },
  };
}

const _messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function _describeFailure(server: _Server, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  let message = _messageOf(error);
  if (code === "ENOENT" && isLocalServer(server.config)) message = `command not found: ${server.config.command}`;
  // The SDK's HTTP errors carry the status in `code`, not in the message.
  if (typeof code === "number" && code >= 100 && code < 600 && !message.includes(String(code))) message += ` (HTTP ${code})`;
  // A broken start says why in the server's own words: the last lines it wrote to stderr.
  const stderr = server.stderrTail
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-_STDERR_LINES)
    .join(" | ");
  if (stderr) message += ` (stderr: ${stderr})`;
  const line = redactText(message).text.replace(/\s+/g, " ").trim();
  return line.length > 500 ? `${line.slice(0, 499)}…` : line;
}

function _seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function _isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

async function _waitForExit(pid: number, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 25) {
    if (!_isAlive(pid)) return true;
    await new Promise((done) => setTimeout(done, 25));
  }
  return !_isAlive(pid);
}

/** SIGTERM, then SIGKILL, a server process the SDK left running; waits until it is gone. */
async function _ensureExited(pid: number): Promise<void> {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    if (!_isAlive(pid)) return;
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await _waitForExit(pid, 2_000)) return;
  }
}
