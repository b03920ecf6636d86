/**
 * Finding a note or an episode by the id a listing printed: `shiro memory show|forget|verify`,
 * and the ids `shiro search` prints. A whole id wins; else an id matches by prefix (at least 4
 * characters, case ignored) among the notes of every scope of the project (each agent's store
 * included) and the project's episodes; only when no id matches, a session id names its newest
 * episode. Reads only, but for the episode id list.
 *
 * The episode id list, `episode-ids.txt` in a recall index's folder (memory-index.ts keeps it):
 * every id an episode id shown at a prompt is abbreviated against (each episode's id and its
 * session's, `memoryIds`) without decoding every episode's card in the index. Text, written
 * whole (atomic rename, json-file.ts):
 *
 *   shiro episode ids 2
 *   <the episodes file's stamp the list was taken from: inode:size:mtimeMs>
 *   <id>          (every episode id and session id, once each, in JavaScript string order)
 *
 * It is used only while its stamp is the episodes file's stamp now and it ends with a line break;
 * any other content (another header or stamp, a cut last line; version 1, one `<episode id>
 * <session id>` line per episode) is out of date, never an error. The ids starting with given
 * characters are found by a binary search of the text (a dozen lines compared), not by scanning
 * it or splitting every line. Derived data: deleting it costs one slower prompt.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { ABBREVIATION_MIN, abbreviationHead, createAbbreviator, type Abbreviate } from "../platform/ids.ts";
import type { Episode, EpisodeStore } from "./episodes.ts";
import { agentMemoryPath, openAgentMemory, type MemoryShelf } from "./memory-scopes.ts";
import type { MemoryStore, MemoryStoreOptions, ScopedMemoryEntry } from "./memory.ts";
import { writeTextAtomic } from "../state-file/json-file.ts";

export const EPISODE_IDS_FILE = "episode-ids.txt";
const _EPISODE_IDS_HEADER = "shiro episode ids 2";

export const MIN_ID_PREFIX = 4;

export type MemoryLookup =
  | { found: "note"; entry: ScopedMemoryEntry; store: MemoryStore }
  | { found: "episode"; episode: Episode }
  | { found: "none" }
  | { found: "ambiguous"; ids: string[] };

/** Every store of the project, listing order: project, repo, each agent that has a file, global, run. */
export function projectStores(shelf: MemoryShelf, options: MemoryStoreOptions = {}): MemoryStore[] {
  const agents = listAgentNames(shelf.projectRoot).map((name) =>
    name === shelf.agent.agent ? shelf.agent : openAgentMemory(shelf.projectRoot, name, options),
  );
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

/** What an episode is known by: its own id and its session's. */
export type EpisodeIds = Pick<Episode, "id" | "sessionId">;

/**
 * Every id `lookupMemory` resolves: the notes' ids, the episodes' ids and the sessions the
 * episodes belong to. A memory id shown anywhere (`shiro memory list`, the prompt's memory
 * section, recall results, `shiro search`) is abbreviated against this set, so `shiro memory show`
 * and recall's expansion both take it and find what was shown.
 */
export function memoryIds(noteIds: Iterable<string>, episodes: Iterable<EpisodeIds>): string[] {
  const ids = [...noteIds];
  for (const episode of episodes) ids.push(episode.id, episode.sessionId);
  return ids;
}

/** The abbreviation of memory ids over `memoryIds` of these stores' notes and these episodes. */
export function memoryAbbreviator(stores: readonly MemoryStore[], episodes: Iterable<EpisodeIds>): Abbreviate {
  return createAbbreviator(
    memoryIds(
      stores.flatMap((store) => store.list().map((entry) => entry.id)),
      episodes,
    ),
  );
}

/**
 * `memoryAbbreviator`'s answers over these note ids and the episodes' ids and session ids, for a
 * few ids: each id is compared only with the ids that share its first 8 characters (no other can
 * lengthen an abbreviation of at least 8): the notes grouped by them at the first id, the
 * episodes' from `episodeIdsStarting` (memory-index.ts), so nothing is sorted or listed whole.
 */
export function prefixMemoryAbbreviator(noteIds: Iterable<string>, episodeIdsStarting: (head: string) => readonly string[]): Abbreviate {
  let byHead: Map<string, string[]> | undefined;
  return (id) => {
    if (!byHead) {
      byHead = new Map();
      for (const note of noteIds) {
        // abbreviationHead inline: no call per note on a first request's path (memory-prompt.ts).
        const head = note.slice(0, ABBREVIATION_MIN);
        const same = byHead.get(head);
        if (same) same.push(note);
        else byHead.set(head, [note]);
      }
    }
    // An id of at most 8 characters is shown whole, whatever it is compared with.
    const head = abbreviationHead(id);
    return createAbbreviator([...(byHead.get(head) ?? []), ...episodeIdsStarting(head)])(id);
  };
}

export function lookupMemory(stores: readonly MemoryStore[], episodes: EpisodeStore | undefined, id: string): MemoryLookup {
  const prefix = id.trim().toLowerCase();
  if (prefix.length < MIN_ID_PREFIX) return { found: "none" };
  const notes = stores.flatMap((store) => store.list().map((entry) => ({ entry: { ...entry, scope: store.scope }, store })));
  const stored = episodes ? episodes.read().episodes : [];
  const exactNote = notes.find((note) => note.entry.id.toLowerCase() === prefix);
  if (exactNote) return { found: "note", ...exactNote };
  const exactEpisode = stored.find((episode) => episode.id.toLowerCase() === prefix);
  if (exactEpisode) return { found: "episode", episode: exactEpisode };
  const noteHits = notes.filter((note) => note.entry.id.toLowerCase().startsWith(prefix));
  const episodeHits = stored.filter((episode) => episode.id.toLowerCase().startsWith(prefix));
  const ids = [...noteHits.map((note) => note.entry.id), ...episodeHits.map((episode) => episode.id)];
  if (ids.length > 1) return { found: "ambiguous", ids };
  if (noteHits[0]) return { found: "note", ...noteHits[0] };
  if (episodeHits[0]) return { found: "episode", episode: episodeHits[0] };
  // No id matches: a session id names that session's newest episode.
  const bySession = stored.filter((episode) => episode.sessionId.toLowerCase().startsWith(prefix));
  const sessions = new Set(bySession.map((episode) => episode.sessionId));
  if (sessions.size > 1) return { found: "ambiguous", ids: [...sessions] };
  return bySession.length > 0 ? { found: "episode", episode: bySession.at(-1)! } : { found: "none" };
}

/** The lines of the list kept for the episodes file at `stamp`; undefined when it is missing, of another version or cut short. */
export function readEpisodeIds(path: string, stamp: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const top = `${_EPISODE_IDS_HEADER}\n${stamp}\n`;
  return text.startsWith(top) && text.endsWith("\n") ? text.slice(top.length - 1) : undefined;
}

/** The ids in `lines` (`\n<id>` each, sorted, then a final `\n`) that start with `head`: a binary search for the first, then the ones after it. */
export function idsStarting(lines: string, head: string): string[] {
  const found: string[] = [];
  if (!head) return found;
  // `low` and `high` are line breaks: every line after one before `low` sorts before `head`, every line from `high` on does not (the last break ends the text).
  let low = 0;
  let high = lines.length - 1;
  while (low < high) {
    const at = lines.lastIndexOf("\n", (low + high) >> 1);
    const end = lines.indexOf("\n", at + 1);
    if (lines.slice(at + 1, end) < head) low = end;
    else high = at;
  }
  for (let at = low; at < lines.length - 1; ) {
    const end = lines.indexOf("\n", at + 1);
    const id = lines.slice(at + 1, end);
    if (!id.startsWith(head)) break;
    found.push(id);
    at = end;
  }
  return found;
}

/** Every episode id and session id of `ids`, once each, in JavaScript string order: the list's lines. */
export function episodeIdList(ids: readonly EpisodeIds[]): string[] {
  return [...new Set(ids.flatMap((entry) => [entry.id, entry.sessionId]))].sort();
}

/** Writes the list of `ids` for the episodes file at `stamp`; best effort: a list that cannot be written is taken from the index again next time. */
export function writeEpisodeIds(path: string, stamp: string, ids: readonly EpisodeIds[]): void {
  if (ids.some((entry) => /[\s]/.test(entry.id + entry.sessionId) || !entry.id || !entry.sessionId)) return;
  try {
    writeTextAtomic(path, `${[_EPISODE_IDS_HEADER, stamp, ...episodeIdList(ids)].join("\n")}\n`, { verbatim: true });
  } catch {
    // an unwritable state folder: the index still answers
  }
}
