/**
 * The session's memory, in two steps: the stores it reads beside the notes (the project's
 * episodes, the embeddings client), opened first; then the memory scopes and their tools, opened
 * once the session, its run ids and the tool lookup exist. `--no-memory` opens no store of any
 * scope, so no memory file is read or written.
 */
import type { AgentFlags } from "../../config/flags.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { StartupNotice } from "../../notices.ts";
import { embeddingClientFromConfig, type EmbeddingClient } from "../../search/embeddings.ts";
import { openEpisodes, type EpisodeStore } from "../../store/episodes.ts";
import type { SessionRecord } from "../../store/session-record.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { openSessionMemory, type SessionMemory } from "../memory-session.ts";

export interface MemoryStores {
  episodes?: EpisodeStore;
  embeddings?: EmbeddingClient;
  /** Where the stores' findings go: `store` notices. */
  onNotice: (text: string) => void;
}

export function openMemoryStores(
  projectRoot: string,
  config: Pick<ResolvedConfig, "file">,
  flags: Pick<AgentFlags, "noMemory">,
  notices: StartupNotice[],
): MemoryStores {
  const onNotice = (text: string) => notices.push({ code: "store", text });
  if (flags.noMemory) return { onNotice };
  return { episodes: openEpisodes(projectRoot, { onNotice }), embeddings: embeddingClientFromConfig(config.file.memory?.embeddings, onNotice), onNotice };
}

export interface MemoryPartOptions {
  projectRoot: string;
  cwd: string;
  config: Pick<ResolvedConfig, "file">;
  flags: Pick<AgentFlags, "noMemory">;
  agent: string;
  session: SessionRecord;
  /** The run in progress (a note's provenance names it). */
  runId: () => string;
  /** A declaration by name among the session's tools (filled after memory opens: see Toolbox). */
  toolFor: (name: string) => ToolDefinition | undefined;
  stores: MemoryStores;
}

/** The memory scopes and their tools; undefined with --no-memory. */
export function openMemoryPart(options: MemoryPartOptions): SessionMemory | undefined {
  if (options.flags.noMemory) return undefined;
  const { session, stores } = options;
  const memoryConfig = options.config.file.memory;
  return openSessionMemory({
    projectRoot: options.projectRoot,
    cwd: options.cwd,
    agent: options.agent,
    sessionId: session.id,
    runId: options.runId,
    messages: () => session.messages,
    toolFor: options.toolFor,
    episodes: stores.episodes,
    embeddings: stores.embeddings,
    budget: memoryConfig?.budget,
    confirmWrites: memoryConfig?.confirmWrites,
    onNotice: stores.onNotice,
  });
}
