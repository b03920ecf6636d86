/**
 * `shiro memory gc`: the search (transcript) index checked against every session and run file,
 * then it and the project's recall index merged into one segment each, dropping removed
 * documents (lib/search/index-folder.ts `compact`), after the project's episode log is rewritten
 * as reads show it (lib/store/episodes.ts `compact`: the caps applied, summaries merged).
 * Returns one line per index, then one for the episodes, for people.
 * Runs under each index's lock, like every change; a process reading meanwhile keeps the files
 * it opened (removed files are unlinked only once the new manifest is in place).
 */
import type { CompactResult } from "../search/index-folder.ts";
import { openEpisodes, type CompactEpisodesResult } from "../store/episodes.ts";
import { compactMemoryIndex } from "../store/memory-index.ts";
import { projectStores } from "../store/memory-lookup.ts";
import type { MemoryShelf } from "../store/memory-scopes.ts";
import type { MemoryStoreOptions } from "../store/memory.ts";
import { compactTranscriptIndex } from "./transcript-index.ts";

/** Both indexes of the shelf's project compacted; notices (a rebuilt index) go to `options.onNotice`. */
export function collectIndexGarbage(shelf: MemoryShelf, options: MemoryStoreOptions = {}): string[] {
  const transcripts = compactTranscriptIndex({ onNotice: options.onNotice });
  const episodes = openEpisodes(shelf.projectRoot, options);
  const log = episodes.compact();
  const memory = compactMemoryIndex({
    projectRoot: shelf.projectRoot,
    stores: projectStores(shelf, options).filter((store) => store.scope !== "run"),
    episodes,
    onNotice: options.onNotice,
  });
  return [_line("search index", transcripts), _line("recall index", memory), _episodesLine(log)];
}

function _episodesLine(result: CompactEpisodesResult | undefined): string {
  if (!result) return "episodes: none stored yet";
  const size = (episodes: number, bytes: number) => `${episodes} episode${episodes === 1 ? "" : "s"}, ${_bytes(bytes)}`;
  const damaged = result.damaged === 0 ? "" : ` (${result.damaged} unreadable line${result.damaged === 1 ? "" : "s"} kept in a .corrupt file)`;
  return `episodes: ${size(result.episodesBefore, result.bytesBefore)} → ${size(result.episodesAfter, result.bytesAfter)}${damaged}`;
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
