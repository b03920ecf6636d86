/**
 * One session's memory, wired: the shelf of every scope, the memory tools over it, the prompt
 * section chosen per run (memory-prompt.ts) and what a run tells about memory.
 *
 * Contract:
 * - `beginRun(prompt)` (a new run, not a resumed one) empties the run store, chooses the notes for
 *   this request and returns the `memory` event the run log records (none when nothing was
 *   there to carry), after a notice when the recall index had to be rebuilt or the episodes file
 *   cannot be read.
 * - Every note remembered records its provenance from what shiro observed: files read or changed
 *   by tool calls since the last user message, and what untrusted text the whole session's context
 *   held, by the tools' declarations (`resultText`, `effect`, `paths`): every foreign result — a
 *   command's output, a grep, a page, an MCP answer, a file this session did not write first —
 *   named `<tool>` or `<tool> <path>`, at most 8; memory-provenance.ts adds the commit and hashes.
 * - `endRun()` returns one notice listing every note stored and every note forgotten during the
 *   run, or nothing.
 * - The repository's notes (`.shiro/notes.json`) are used only while their exact content is
 *   trusted (repo-notes-trust.ts); an untrusted file with notes gets one notice at opening.
 * Not opened at all under --no-memory (agent.ts), so no scope is read or written then.
 */
import { promptRanksTranscripts } from "../find/transcript-index.ts";
import type { EmbeddingClient } from "../search/embeddings.ts";
import type { Message } from "../messages.ts";
import { projectPath, type DescribeCall } from "../store/episode-build.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import { memoryAbbreviator, projectStores } from "../store/memory-lookup.ts";
import { buildProvenance } from "../store/memory-provenance.ts";
import { openMemoryShelf, type MemoryShelf } from "../store/memory-scopes.ts";
import { openRepoNotesTrust, readRepoNotesFile } from "../store/repo-notes-trust.ts";
import type { MemoryEntry, MemoryScope } from "../store/memory.ts";
import { describeToolCalls } from "../tools/call-facts.ts";
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
  /** The declaration of a tool the session offers (built-in, session, plugin or MCP), by name. */
  toolFor?: (name: string) => ToolDefinition | undefined;
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
    repoTrust: openRepoNotesTrust(projectRoot),
  });
  const repoNotes = readRepoNotesFile(projectRoot);
  if (repoNotes && !repoNotes.trusted && repoNotes.count > 0)
    options.onNotice?.(`${repoNotes.path} not used: this repository's notes are not trusted (start shiro here and answer y to use them)`);
  let injected: MemoryInjection | undefined;
  let written: { entry: MemoryEntry; scope: MemoryScope }[] = [];
  let forgotten: { entry: MemoryEntry; scope: MemoryScope }[] = [];
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
        files: _turnFiles(options.messages(), describeToolCalls(options.toolFor ?? (() => undefined), options.cwd), options.cwd, projectRoot),
        untrusted: untrustedSeen(options.messages(), options.toolFor ?? (() => undefined), options.cwd, projectRoot),
      }),
    onWritten: (entry, scope) => written.push({ entry, scope }),
    onForgotten: (entries, scope) => forgotten.push(...entries.map((entry) => ({ entry, scope }))),
    sessionId: () => options.sessionId,
  });
  return {
    shelf,
    tools,
    budget: options.budget,
    beginRun(prompt) {
      shelf.clearRun();
      written = [];
      forgotten = [];
      const notices: AgentEvent[] = [];
      // A broken episodes file is told in the run, as a rebuilt recall index is.
      const unreadable = options.episodes?.unreadable();
      if (unreadable) notices.push({ type: "notice", text: unreadable });
      injected = selectMemoryForPrompt({
        projectRoot,
        stores: shelf.stores(),
        episodes: options.episodes,
        query: prompt,
        budget: options.budget,
        // Past sessions' passages join the ranking while their index is cheap to open: a plain
        // turn must not read a long history before its first request (docs/memory.md).
        transcripts: promptRanksTranscripts(options.sessionId),
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
      if (written.length === 0 && forgotten.length === 0) return [];
      // As short as `shiro memory forget|show` (every scope, the episodes and their sessions) tells apart.
      const abbreviate = memoryAbbreviator(projectStores(shelf), options.episodes?.read().episodes ?? []);
      const label = ({ entry, scope }: { entry: MemoryEntry; scope: MemoryScope }) => `(${entry.kind}${scope === "project" ? "" : `, ${scope}`}) ${entry.text}`;
      const text = [
        ...(written.length > 0
          ? [
              `notes written in this run (shiro memory forget <id|text> removes one):`,
              ...written.map((note) => `- ${abbreviate(note.entry.id)} ${label(note)}`),
            ]
          : []),
        ...(forgotten.length > 0 ? [`notes forgotten in this run (shiro memory add restores one):`, ...forgotten.map((note) => `- ${label(note)}`)] : []),
      ].join("\n");
      written = [];
      forgotten = [];
      return [{ type: "notice", text }];
    },
    setAgent(name) {
      agent = name;
      shelf.setAgent(name);
    },
  };
}

/** The files read or changed since the last user message, as their tools declare. */
function _turnFiles(messages: readonly Message[], describe: DescribeCall, cwd: string, projectRoot: string): string[] {
  const start = messages.findLastIndex((message) => message.role === "user");
  const files: string[] = [];
  for (const message of messages.slice(Math.max(0, start))) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type !== "tool-call") continue;
      const touched = describe(part.name, (part.input ?? {}) as Record<string, unknown>);
      for (const path of [...touched.reads, ...touched.changes]) files.push(projectPath(path, cwd, projectRoot));
    }
  }
  return [...new Set(files)];
}

const _UNTRUSTED_CAP = 8;

/**
 * What untrusted text the session's context holds, by declaration: every call whose result is
 * foreign (an unknown tool's too), as `<tool>`, or for a `read` tool with paths `<tool> <path>` for
 * each path no earlier `write` call of the session wrote. In call order, without repeats, at most 8.
 */
export function untrustedSeen(messages: readonly Message[], toolFor: (name: string) => ToolDefinition | undefined, cwd: string, projectRoot: string): string[] {
  const authored = new Set<string>();
  const marks = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) {
      if (part.type !== "tool-call") continue;
      const tool = toolFor(part.name);
      const paths = _declaredPaths(tool, part.input, cwd, projectRoot);
      if (tool?.effect === "write") for (const path of paths ?? []) authored.add(path);
      if ((tool?.resultText ?? (tool?.effect === "write" ? "own" : "foreign")) === "own") continue;
      if (tool?.effect === "read" && paths && paths.length > 0) {
        for (const path of paths) if (!authored.has(path)) marks.add(`${part.name} ${path}`);
      } else marks.add(part.name);
    }
  }
  const all = [...marks];
  return all.length > _UNTRUSTED_CAP ? [...all.slice(0, _UNTRUSTED_CAP - 1), `${all.length - _UNTRUSTED_CAP + 1} more`] : all;
}

/** The call's declared paths, relative to the project root where inside it; undefined when it declares none or they cannot be read. */
function _declaredPaths(tool: ToolDefinition | undefined, input: unknown, cwd: string, projectRoot: string): string[] | undefined {
  if (!tool?.paths) return undefined;
  try {
    return tool.paths(input ?? {}, cwd).map((path) => projectPath(path, cwd, projectRoot));
  } catch {
    return undefined;
  }
}
