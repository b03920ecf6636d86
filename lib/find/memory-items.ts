/**
 * What makes a memory id `shiro search` prints short: the project's notes, the global notes and the
 * project's episodes, by id. A printed memory id is abbreviated over every id `shiro memory show`
 * resolves (lib/store/memory-lookup.ts `memoryIds`: every scope's notes, the episodes and their
 * sessions), so `shiro memory show` always takes it.
 */
import { memoryAbbreviator, projectStores } from "../store/memory-lookup.ts";
import { openMemoryShelf } from "../store/memory-scopes.ts";
import type { Episode, EpisodeStore } from "../store/episodes.ts";
import { openEpisodes } from "../store/episodes.ts";
import { openGlobalMemory, openMemory, type MemoryStore, type ScopedMemoryEntry } from "../store/memory.ts";

export type MemoryItem = { kind: "note"; id: string; note: ScopedMemoryEntry } | { kind: "episode"; id: string; episode: Episode };

export interface MemoryItems {
  project: MemoryStore;
  global: MemoryStore;
  episodes: EpisodeStore;
  items: MemoryItem[];
  /** `id` abbreviated as `shiro memory show` tells it apart (8 characters at least). */
  shortId(id: string): string;
}

export function listMemoryItems(projectRoot: string, onNotice?: (text: string) => void): MemoryItems {
  const project = openMemory(projectRoot, { onNotice });
  const global = openGlobalMemory({ onNotice });
  const episodes = openEpisodes(projectRoot, { onNotice });
  const items: MemoryItem[] = [
    ...[project, global].flatMap((store) => store.list().map((entry): MemoryItem => ({ kind: "note", id: entry.id, note: { ...entry, scope: store.scope } }))),
    ...episodes.read().episodes.map((episode): MemoryItem => ({ kind: "episode", id: episode.id, episode })),
  ];
  const shortId = memoryAbbreviator(
    projectStores(openMemoryShelf(projectRoot, { onNotice })),
    items.flatMap((item) => (item.kind === "episode" ? [item.episode] : [])),
  );
  return { project, global, episodes, items, shortId };
}
