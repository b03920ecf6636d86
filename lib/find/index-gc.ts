/**
 * `shiro memory gc`: the search (transcript) index checked against every session and run file,
 * then it and the project's recall index merged into one segment each, dropping removed
 * documents (lib/search/index-folder.ts `compact`). Returns one line per index for people.
 * Runs under each index's lock, like every change; a process reading meanwhile keeps the files
 * it opened (removed files are unlinked only once the new manifest is in place).
 */
import type { CompactResult } from "../search/index-folder.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import { compactMemoryIndex } from "../store/memory-index.ts";
import type { MemoryStore } from "../store/memory.ts";
import { compactTranscriptIndex } from "./transcript-index.ts";

export interface IndexGcSources {
  projectRoot: string;
  stores: readonly MemoryStore[];
  episodes: EpisodeStore;
  onNotice?: (text: string) => void;
}

export function collectIndexGarbage(sources: IndexGcSources): string[] {
  const transcripts = compactTranscriptIndex({ onNotice: sources.onNotice });
  const memory = compactMemoryIndex({
    projectRoot: sources.projectRoot,
    stores: sources.stores.filter((store) => store.scope !== "run"),
    episodes: sources.episodes,
    onNotice: sources.onNotice,
  });
  return [_line("search index", transcripts), _line("recall index", memory)];
}

function _line(label: string, result: CompactResult | undefined): string {
  if (!result) return `${label}: nothing indexed yet`;
  const size = (segments: number, bytes: number) => `${segments} segment${segments === 1 ? "" : "s"}, ${_bytes(bytes)}`;
  const dropped = result.tombstones === 0 ? "" : ` (${result.tombstones} removed document${result.tombstones === 1 ? "" : "s"} dropped)`;
  return `${label}: ${size(result.segmentsBefore, result.bytesBefore)} → ${size(result.segmentsAfter, result.bytesAfter)}${dropped}`;
}

function _bytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
