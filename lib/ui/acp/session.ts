/**
 * One ACP session: a shiro agent session (createAgent, exactly as the REPL opens one, so memory,
 * episodes, recall, compaction, cost, the run log and `shiro -c` all come along) whose questions
 * go to the editor, whose file tools read and write through the editor's buffers when it offers
 * them, and whose turns stream as `session/update`s. Only one turn runs at a time; `cancel`
 * aborts it, which marks it interrupted in the history as Ctrl-C does in the REPL. A session is
 * answered once its MCP servers (configured ones and the editor's) have connected or failed, as a
 * headless run starts, so the first prompt already has their tools.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { createAgent, type Agent } from "../../agent/agent.ts";
import type { McpServers } from "../../config/config.ts";
import type { AgentFlags } from "../../config/flags.ts";
import { acceptsImages } from "../../providers/windows.ts";
import type { ToolDefinition, WorkspaceFiles } from "../../tools/types.ts";
import { AGENT_NAMES, type AgentName } from "../../vocabulary.ts";
import { deriveTitle, firstPrompt, UNTITLED } from "../../store/session-record.ts";
import { VARIANTS } from "../../agent/variants.ts";
import { describeNotices } from "../notices.ts";
import { writeErr } from "../output.ts";
import { useNormalJitPolicy } from "../../platform/runtime.ts";
import { createAcpDecision, createAcpQuestion } from "./permission.ts";
import { promptFromBlocks } from "./prompt-blocks.ts";
import { runSlashInEditor } from "./slash.ts";
import type { TurnTools } from "../../agent/turn-tools.ts";
import { createTerminalMirror, type TerminalPeer } from "./terminal-mirror.ts";
import { createTurnUpdates, stopReasonOf } from "./turn-updates.ts";

/** What a session needs of the connection. */
export interface AcpPeer extends TerminalPeer {
  readonly capabilities: acp.ClientCapabilities;
  update(sessionId: string, update: acp.SessionUpdate): Promise<void>;
  askPermission(params: acp.RequestPermissionRequest, signal?: AbortSignal): Promise<acp.RequestPermissionResponse>;
  readFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeFile(params: acp.WriteTextFileRequest): Promise<void>;
  diagnose(line: string): void;
}

export interface AcpSession {
  readonly id: string;
  readonly agent: Agent;
  readonly cwd: string;
  prompt(blocks: readonly acp.ContentBlock[]): Promise<acp.StopReason>;
  cancel(): void;
  /** Cancels a running turn, stops the editor terminals it opened, and closes (saves) the session. */
  close(): Promise<void>;
  setMode(mode: string): Promise<void>;
  modes(): acp.SessionModeState;
}

export interface OpenAcpSessionOptions {
  cwd: string;
  flags: AgentFlags;
  peer: AcpPeer;
  mcpServers: McpServers;
  /** Continue this saved session (`session/load`). */
  sessionId?: string;
}

export async function openAcpSession(options: OpenAcpSessionOptions): Promise<AcpSession> {
  const { peer, cwd } = options;
  let running: AbortController | undefined;
  let agent: Agent | undefined;
  const toolNamed = (name: string): ToolDefinition | undefined => agent?.registeredTools().find((tool) => tool.name === name);
  const fs = peer.capabilities.fs;
  const files: WorkspaceFiles | undefined =
    fs?.readTextFile && fs.writeTextFile
      ? {
          read: async (path) => (await peer.readFile({ sessionId: agent!.session.id, path })).content,
          write: (path, content) => peer.writeFile({ sessionId: agent!.session.id, path, content }),
        }
      : undefined;
  agent = await createAgent({
    cwd,
    flags: { ...options.flags, continue: false, resume: undefined },
    mode: "interactive",
    decide: createAcpDecision({
      sessionId: () => agent!.session.id,
      ask: (params, signal) => peer.askPermission(params, signal),
      toolNamed,
      turnSignal: () => running?.signal,
    }),
    editor: { mcpServers: options.mcpServers, ...(files ? { files } : {}) },
    // stdout carries the protocol; the session's own lines go to stderr, through the one writer.
    writeStderr: writeErr,
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
  });
  const opened = agent;
  const ask = createAcpQuestion({
    sessionId: () => opened.session.id,
    ask: (params, signal) => peer.askPermission(params, signal),
    turnSignal: () => running?.signal,
  });
  const mirror = peer.capabilities.terminal ? createTerminalMirror(() => opened.session.id, peer, cwd) : undefined;
  await _mcpSettled(opened);
  let shownTitle = _titleOf(opened);
  let notices = describeNotices(opened.startupNotices());
  for (const line of notices) peer.diagnose(line);
  const send = (update: acp.SessionUpdate) => peer.update(opened.session.id, update);

  return {
    id: opened.session.id,
    agent: opened,
    cwd,
    modes: () => ({
      currentModeId: opened.variant.name,
      availableModes: AGENT_NAMES.map((name) => ({ id: name, name, description: VARIANTS[name].summary })),
    }),
    async setMode(mode) {
      if (!(AGENT_NAMES as readonly string[]).includes(mode)) throw new Error(`unknown mode "${mode}"; modes: ${AGENT_NAMES.join(", ")}`);
      opened.configure({ agent: mode as AgentName });
      await send({ sessionUpdate: "current_mode_update", currentModeId: mode });
    },
    cancel() {
      running?.abort();
    },
    async close() {
      running?.abort();
      await mirror?.close();
      opened.close();
      await opened.closed;
    },
    async prompt(blocks) {
      if (running) throw new Error("a turn is already running in this session; cancel it first");
      running = new AbortController();
      const signal = running.signal;
      try {
        const imagesRefusedBy = acceptsImages(opened.model) ? undefined : opened.model;
        const taken = await promptFromBlocks(blocks, { root: cwd, imagesRefusedBy, ask, judge: (path) => opened.judgeAttachment(path) });
        for (const line of taken.report) peer.diagnose(line);
        let prompt = taken.prompt;
        let turnTools: TurnTools | undefined;
        if (prompt.startsWith("/")) {
          const slash = await runSlashInEditor(prompt, opened, cwd);
          if (slash.reply) await send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: slash.reply } });
          if (slash.prompt === undefined) return "end_turn";
          prompt = slash.prompt;
          turnTools = slash.turnTools;
        }
        const turn = createTurnUpdates({ root: cwd, toolNamed, files, mirror, diagnose: peer.diagnose });
        const startNotices = notices;
        notices = [];
        const options = { notices: startNotices, ...(taken.images.length > 0 ? { images: taken.images } : {}), ...turnTools };
        for await (const event of opened.turn(prompt, signal, options)) {
          for (const update of await turn.updates(event)) await send(update);
        }
        if (turn.context) await send(_usage(turn.context, opened));
        const title = _titleOf(opened);
        if (title !== shownTitle) {
          shownTitle = title;
          await send({ sessionUpdate: "session_info_update", title, updatedAt: opened.session.updatedAt });
        }
        const reason = stopReasonOf(turn.stop);
        if (reason) return reason;
        throw new Error(turn.error ?? `the turn ended: ${turn.stop ?? "no answer"}`);
      } finally {
        running = undefined;
        useNormalJitPolicy();
      }
    },
  };
}

/** How long a new session waits for its MCP servers before it answers anyway (their tools join when they connect). */
const _MCP_WAIT_MS = 30_000;

async function _mcpSettled(agent: Agent): Promise<void> {
  const until = Date.now() + _MCP_WAIT_MS;
  while (agent.mcpStatus().some((server) => server.state === "connecting") && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * The context in use against the compaction threshold (the budget the REPL reports a turn's
 * context against: past it, shiro compacts), and the session's cost so far.
 */
function _usage(context: { tokens: number; threshold: number }, agent: Agent): acp.SessionUpdate {
  const cost = agent.session.costUsd;
  return {
    sessionUpdate: "usage_update",
    used: Math.max(0, Math.round(context.tokens)),
    size: Math.max(1, Math.round(context.threshold)),
    ...(cost !== undefined ? { cost: { amount: cost, currency: "USD" } } : {}),
  };
}

/** The title `shiro sessions` lists (derived from the first prompt until the session is saved with one). */
function _titleOf(agent: Agent): string {
  return agent.session.title !== UNTITLED ? agent.session.title : deriveTitle(firstPrompt(agent.session));
}
