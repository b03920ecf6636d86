/**
 * A project's memory as `shiro search` shows it: the project's notes and the global notes (read
 * when opened), the project's episodes (read from their log only when a shown hit is an episode,
 * and only back to it: its snippet needs the whole episode), and short ids. A printed memory id is abbreviated over
 * every id `shiro memory show` resolves (lib/store/memory-lookup.ts `memoryIds`: every scope's
 * notes, the episodes and their sessions), so `shiro memory show` always takes it; the episodes'
 * ids and sessions come from the recall index (store/memory-index.ts `indexedEpisodes`), which
 * holds each of them once it is opened, and the abbreviation is built on the first id asked for.
 */
import type { Bm25Index } from "../search/bm25-index.ts";
import { memoryAbbreviator, projectStores } from "../store/memory-lookup.ts";
import { indexedEpisodes } from "../store/memory-index.ts";
import { openMemoryShelf } from "../store/memory-scopes.ts";
import type { Episode, EpisodeStore } from "../store/episodes.ts";
import { openEpisodes } from "../store/episodes.ts";
import { openGlobalMemory, openMemory, type MemoryStore, type ScopedMemoryEntry } from "../store/memory.ts";
import type { Abbreviate } from "../platform/ids.ts";

export interface MemoryItems {
  project: MemoryStore;
  global: MemoryStore;
  episodes: EpisodeStore;
  /** The notes of `project` and `global`, in that order, tagged with their scope. */
  notes: ScopedMemoryEntry[][];
  /** A stored episode by id (the episode log read from its end back to it: episodes.ts `find`). */
  episode(id: string): Episode | undefined;
  /** `id` abbreviated as `shiro memory show` tells it apart (8 characters at least); `index` is the opened recall index. */
  shortId(id: string, index: Bm25Index): string;
}

export function listMemoryItems(projectRoot: string, onNotice?: (text: string) => void): MemoryItems {
  const project = openMemory(projectRoot, { onNotice });
  const global = openGlobalMemory({ onNotice });
  const episodes = openEpisodes(projectRoot, { onNotice });
  const notes = [project, global].map((store) => store.list().map((entry): ScopedMemoryEntry => ({ ...entry, scope: store.scope })));
  const found = new Map<string, Episode | undefined>();
  let abbreviate: Abbreviate | undefined;
  return {
    project,
    global,
    episodes,
    notes,
    episode: (id) => {
      if (!found.has(id)) found.set(id, episodes.find(id));
      return found.get(id);
    },
    shortId: (id, index) => (abbreviate ??= memoryAbbreviator(projectStores(openMemoryShelf(projectRoot, { onNotice })), indexedEpisodes(index)))(id),
  };
}
