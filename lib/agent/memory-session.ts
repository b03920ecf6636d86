/**
 * One session's memory, wired: the shelf of every scope, the memory tools over it, the prompt
 * section chosen per run (memory-prompt.ts) and what a run tells about memory.
 *
 * Contract:
 * - `beginRun(prompt)` (a new run, not a resumed one) empties the run store, chooses the notes for
 *   this request and returns the `memory` event the run log records (none when nothing was
 *   there to carry), after a notice when the recall index had to be rebuilt.
 * - Every note remembered records its provenance from what shiro observed of the turn so far:
 *   files read or changed by tool calls since the last user message, and the tools that brought
 *   untrusted text (web_fetch, MCP); memory-provenance.ts adds the commit and content hashes.
 * - `endRun()` returns one notice listing every note stored during the run, or nothing.
 * Not opened at all under --no-memory (agent.ts), so no scope is read or written then.
 */
import { shortestUniquePrefix } from "../platform/ids.ts";
import type { EmbeddingClient } from "../search/embeddings.ts";
import type { Message } from "../messages.ts";
import { projectPath, toolCallFiles } from "../store/episode-build.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import { buildProvenance } from "../store/memory-provenance.ts";
import { openMemoryShelf, type MemoryShelf } from "../store/memory-scopes.ts";
import type { MemoryEntry, MemoryScope } from "../store/memory.ts";
import { resolveInWorkspace } from "../tools/jail.ts";
import { createMemoryTools } from "../tools/memory-tools.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { AgentEvent } from "../events.ts";
import { selectMemoryForPrompt, type MemoryInjection } from "./memory-prompt.ts";

export interface SessionMemoryOptions {
  projectRoot: string;
  cwd: string;
  agent: string;
  sessionId: string;
  /** The run in progress. */
  runId: () => string;
  /** The session's transcript, read when a note is written. */
  messages: () => readonly Message[];
  episodes?: EpisodeStore;
  embeddings?: EmbeddingClient;
  /** Config memory.budget (estimated tokens) and memory.confirmWrites. */
  budget?: number;
  confirmWrites?: boolean;
  onNotice?: (text: string) => void;
}

export interface SessionMemory {
  readonly shelf: MemoryShelf;
  readonly tools: ToolDefinition[];
  readonly budget?: number;
  beginRun(prompt: string): AgentEvent[];
  /** The memory section of the current run's prompt. */
  section(): string;
  /** The memory section of a subagent of `kind` (explore, review, worker): that kind's agent notes only. */
  subagentSection(kind: string, prompt: string): string;
  /** What the current run's prompt carries (undefined before the first run). */
  injection(): MemoryInjection | undefined;
  endRun(): AgentEvent[];
  setAgent(name: string): void;
}

export function openSessionMemory(options: SessionMemoryOptions): SessionMemory {
  const { projectRoot } = options;
  let agent = options.agent;
  const shelf = openMemoryShelf(projectRoot, {
    agent,
    onNotice: options.onNotice,
    guard: (path) => void resolveInWorkspace(projectRoot, path),
  });
  let injected: MemoryInjection | undefined;
  let written: { entry: MemoryEntry; scope: MemoryScope }[] = [];
  const tools = createMemoryTools(shelf.project, {
    global: shelf.global,
    shelf,
    episodes: options.episodes,
    cwd: options.cwd,
    embeddings: options.embeddings,
    onNotice: options.onNotice,
    confirmWrites: options.confirmWrites,
    source: (text) =>
      buildProvenance(projectRoot, text, {
        sessionId: options.sessionId,
        runId: options.runId(),
        agent,
        ..._observeTurn(options.messages(), options.cwd, projectRoot),
      }),
    onWritten: (entry, scope) => written.push({ entry, scope }),
    sessionId: () => options.sessionId,
  });
  return {
    shelf,
    tools,
    budget: options.budget,
    beginRun(prompt) {
      shelf.clearRun();
      written = [];
      const notices: AgentEvent[] = [];
      injected = selectMemoryForPrompt({
        projectRoot,
        stores: shelf.stores(),
        episodes: options.episodes,
        query: prompt,
        budget: options.budget,
        transcripts: true,
        currentSession: options.sessionId,
        onNotice: (text) => notices.push({ type: "notice", text }),
      });
      const { tokens, budget, leftOut, items } = injected;
      // A run with no memory to carry logs no memory event.
      return items.length > 0 || leftOut > 0 ? [...notices, { type: "memory", tokens, budget, leftOut, injected: items }] : notices;
    },
    section: () => injected?.text ?? "",
    subagentSection: (kind, prompt) => selectMemoryForPrompt({ projectRoot, stores: [shelf.agentStore(kind)], query: prompt, budget: options.budget }).text,
    injection: () => injected,
    endRun() {
      if (written.length === 0) return [];
      const ids = shelf.entries().map((entry) => entry.id);
      const lines = written.map(
        ({ entry, scope }) => `- ${shortestUniquePrefix(entry.id, ids)} (${entry.kind}${scope === "project" ? "" : `, ${scope}`}) ${entry.text}`,
      );
      written = [];
      return [{ type: "notice", text: [`notes written in this run (shiro memory forget <id|text> removes one):`, ...lines].join("\n") }];
    },
    setAgent(name) {
      agent = name;
      shelf.setAgent(name);
    },
  };
}

/** The files read or changed and the tools called since the last user message. */
function _observeTurn(messages: readonly Message[], cwd: string, projectRoot: string): { files: string[]; tools: string[] } {
  const start = messages.findLastIndex((message) => message.role === "user");
  const files: string[] = [];
  const tools: string[] = [];
  for (const message of messages.slice(Math.max(0, start))) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type !== "tool-call") continue;
      tools.push(part.name);
      const input = (part.input ?? {}) as Record<string, unknown>;
      const touched = toolCallFiles(part.name, input);
      for (const path of [...touched.read, ...touched.changed]) if (typeof path === "string" && path) files.push(projectPath(path, cwd, projectRoot));
    }
  }
  return { files: [...new Set(files)], tools: [...new Set(tools)] };
}
