/**
 * `shiro acp`: an Agent Client Protocol agent (protocol v1, @agentclientprotocol/sdk) on stdin
 * and stdout. stdout carries protocol messages only: every other write to it is sent to stderr
 * for as long as the server runs, so no notice, warning or stray print can break the stream.
 *
 * What `initialize` advertises is what works: loading saved sessions, images and embedded
 * resources in prompts, MCP servers over HTTP and SSE (stdio ones too, as every agent must).
 * Sessions are shiro sessions (their ids are the session ids `shiro sessions` lists); modes are
 * the agent variants. docs/editors.md maps every feature.
 */
import { Readable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import type { McpServers } from "../../config/config.ts";
import type { AgentFlags } from "../../config/flags.ts";
import { PRODUCT, VERSION } from "../../platform/version.ts";
import { openAcpSession, type AcpPeer, type AcpSession } from "./session.ts";
import { availableCommands } from "./slash.ts";
import { replaySession } from "./replay.ts";

export interface AcpServerOptions {
  flags: AgentFlags;
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
  diagnose: (line: string) => void;
}

/** Serves one connection until the client closes it; every session is closed (saved) then. */
export async function serveAcp(options: AcpServerOptions): Promise<void> {
  const sessions = new Map<string, AcpSession>();
  let capabilities: acp.ClientCapabilities = {};
  let client: acp.AgentContext | undefined;
  const peer: AcpPeer = {
    get capabilities() {
      return capabilities;
    },
    update: (sessionId, update) => client!.notify(acp.methods.client.session.update, { sessionId, update }),
    askPermission: (params, signal) =>
      client!.request(acp.methods.client.session.requestPermission, params, signal ? { cancellationSignal: signal, stopWaitingOnCancel: true } : undefined),
    readFile: (params) => client!.request(acp.methods.client.fs.readTextFile, params),
    writeFile: async (params) => void (await client!.request(acp.methods.client.fs.writeTextFile, params)),
    createTerminal: (params) => client!.request(acp.methods.client.terminal.create, params),
    terminalOutput: (params) => client!.request(acp.methods.client.terminal.output, params),
    killTerminal: async (params) => void (await client!.request(acp.methods.client.terminal.kill, params)),
    releaseTerminal: async (params) => void (await client!.request(acp.methods.client.terminal.release, params)),
    diagnose: options.diagnose,
  };
  const session = (id: string): AcpSession => {
    const found = sessions.get(id);
    if (!found) throw acp.RequestError.sessionNotFound(id);
    return found;
  };
  const open = async (params: acp.NewSessionRequest | acp.LoadSessionRequest, sessionId?: string): Promise<AcpSession> => {
    // Loading a session this connection has open reopens it from what the open one saves on closing.
    const already = sessionId ? sessions.get(sessionId) : undefined;
    if (already) {
      await already.close();
      sessions.delete(already.id);
    }
    const opened = await openAcpSession({ cwd: params.cwd, flags: options.flags, peer, mcpServers: mcpServersFrom(params.mcpServers), sessionId }).catch(
      (error: unknown) => {
        throw acp.RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
      },
    );
    sessions.set(opened.id, opened);
    return opened;
  };
  // The commands follow the answer that names the session, so the client knows the session they belong to.
  const advertiseCommands = (opened: AcpSession) =>
    setTimeout(() => void peer.update(opened.id, { sessionUpdate: "available_commands_update", availableCommands: availableCommands(opened.cwd) }), 0);

  const app = acp
    .agent({ name: PRODUCT })
    .onConnect((connection) => {
      client = connection.client;
    })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
        agentInfo: { name: PRODUCT, title: "shiro", version: VERSION },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const opened = await open(params);
      advertiseCommands(opened);
      return { sessionId: opened.id, modes: opened.modes() };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      const opened = await open(params, params.sessionId);
      const { session } = opened.agent;
      const toolNamed = (name: string) => opened.agent.registeredTools().find((tool) => tool.name === name);
      for (const update of replaySession(session.messages, session.notebook.todos, opened.cwd, toolNamed)) await peer.update(opened.id, update);
      advertiseCommands(opened);
      return { modes: opened.modes() };
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await session(params.sessionId)
        .setMode(params.modeId)
        .catch((error: Error) => {
          throw acp.RequestError.invalidParams(undefined, error.message);
        });
      return {};
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const target = session(params.sessionId);
      try {
        return { stopReason: await target.prompt(params.prompt) };
      } catch (error) {
        throw acp.RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
      }
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const connection = app.connect(acp.ndJsonStream(options.output, options.input));
  // An editor that stops the agent with a signal still gets every session saved (as the REPL does on SIGHUP).
  const stop = () => connection.close();
  process.once("SIGTERM", stop);
  process.once("SIGHUP", stop);
  await connection.closed;
  process.off("SIGTERM", stop);
  process.off("SIGHUP", stop);
  await Promise.all([...sessions.values()].map((opened) => opened.close()));
}

/** The client's MCP servers in config form, by name (a configured server of the same name wins: lib/agent/session-extensions.ts). */
export function mcpServersFrom(servers: readonly acp.McpServer[]): McpServers {
  const out: McpServers = {};
  for (const server of servers) {
    if ("type" in server && (server.type === "http" || server.type === "sse")) {
      out[server.name] = { url: server.url, type: server.type, headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])) };
    } else if ("command" in server) {
      out[server.name] = { command: server.command, args: server.args, env: Object.fromEntries(server.env.map((entry) => [entry.name, entry.value])) };
    }
  }
  return out;
}

/**
 * stdin as a web stream, and a web stream that writes to the real stdout; until `restore`, every
 * other write to stdout (`process.stdout.write`, `console.log` and its kin, which a plugin or a
 * library may call) goes to stderr instead.
 */
export function stdioStreams(): { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array>; restore: () => void } {
  const write = process.stdout.write.bind(process.stdout) as (chunk: Uint8Array, done: (error?: Error | null) => void) => boolean;
  const original = process.stdout.write;
  const consoled = { log: console.log, info: console.info, debug: console.debug };
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  console.log = console.info = console.debug = console.error;
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => void write(chunk, (error) => (error ? reject(error) : resolve()))),
  });
  return {
    input: Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
    output,
    restore: () => {
      process.stdout.write = original;
      Object.assign(console, consoled);
    },
  };
}
