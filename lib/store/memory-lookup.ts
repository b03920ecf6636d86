/**
 * Finding a note or an episode by the id a listing printed: `shiro memory show|forget|verify`,
 * and the ids `shiro search` prints. An id matches by prefix (at least 4 characters, case
 * ignored), among the notes of every scope of the project (each agent's store included) and the
 * project's episodes (by episode id, or by session id). Reads only.
 */
import { readdirSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { Episode, EpisodeStore } from "./episodes.ts";
import { agentMemoryPath, openAgentMemory, type MemoryShelf } from "./memory-scopes.ts";
import type { MemoryStore, MemoryStoreOptions, ScopedMemoryEntry } from "./memory.ts";

export const MIN_ID_PREFIX = 4;

export type MemoryLookup =
  | { found: "note"; entry: ScopedMemoryEntry; store: MemoryStore }
  | { found: "episode"; episode: Episode }
  | { found: "none" }
  | { found: "ambiguous"; ids: string[] };

/** Every store of the project, listing order: project, repo, each agent that has a file, global, run. */
export function projectStores(shelf: MemoryShelf, options: MemoryStoreOptions = {}): MemoryStore[] {
  const agents = listAgentNames(shelf.projectRoot).map((name) => (name === shelf.agent.agent ? shelf.agent : openAgentMemory(shelf.projectRoot, name, options)));
  return [shelf.project, shelf.repo, ...agents, shelf.global, shelf.run];
}

/** The agent variants that keep notes about this project (a file exists), sorted. */
export function listAgentNames(projectRoot: string): string[] {
  const sample = agentMemoryPath(projectRoot, "x");
  const prefix = basename(sample).slice(0, -"x.json".length);
  try {
    return readdirSync(dirname(sample))
      .filter((name) => name.startsWith(prefix) && name.endsWith(".json"))
      .map((name) => name.slice(prefix.length, -".json".length))
      .filter((name) => /^[a-z][a-z0-9-]{0,31}$/.test(name))
      .sort();
  } catch {
    return [];
  }
}

export function lookupMemory(stores: readonly MemoryStore[], episodes: EpisodeStore | undefined, id: string): MemoryLookup {
  const prefix = id.trim().toLowerCase();
  if (prefix.length < MIN_ID_PREFIX) return { found: "none" };
  const notes = stores.flatMap((store) => store.list().filter((entry) => entry.id.toLowerCase().startsWith(prefix)).map((entry) => ({ entry: { ...entry, scope: store.scope }, store })));
  const found = episodes ? episodes.read().episodes.filter((episode) => episode.id.toLowerCase().startsWith(prefix) || episode.sessionId.toLowerCase().startsWith(prefix)) : [];
  const ids = [...notes.map((note) => note.entry.id), ...found.map((episode) => episode.id)];
  if (ids.length > 1) return { found: "ambiguous", ids };
  if (notes[0]) return { found: "note", ...notes[0] };
  if (found[0]) return { found: "episode", episode: found[0] };
  return { found: "none" };
}
