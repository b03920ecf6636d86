/**
 * The recall index of one project: a BM25 index (lib/search) over the project's notes, the global
 * notes and the project's episodes and monthly digests, in the index folder `memory/<hash16>.index/`
 * (paths.memoryIndex; lib/search/index-folder.ts: a manifest and segment files) beside the stores.
 * What changed is saved as one more segment; `compactMemoryIndex` (`shiro memory gc`) merges them.
 *
 * Segments, and what makes each one out of date:
 * - `notes:<scope>` (`notes:agent:<name>` for an agent store): the list of note ids. Note text never changes under an id,
 *   so a hit count changing (every recall) leaves the index alone; notes are read on every recall
 *   anyway, for their hits and age.
 * - `episodes`: the episodes file's inode, size and modification time. While it holds, recall
 *   never reads the episodes file: each episode's result line is built from the `data` the index
 *   keeps for it (EpisodeCard). An episode changes under its id only when its summary is added
 *   (its stamp is the summary's length); a digest's stamp is its count and last time.
 * A store that is off (no global store given) keeps its segment out of the search, not out of
 * the file. Run notes (`notes:run`) are indexed in the process only, after the file is saved. Digests are documents of the `episodes` segment with ids `digest:<month>`.
 *
 * The episode id list, `episode-ids.txt` in the index folder (its format in memory-lookup.ts):
 * what abbreviating an id shown at a prompt needs without decoding every episode's card, written
 * when the `episodes` segment is synced, and when it is missing or out of date while the segment
 * is current.
 *
 * The note id stamps, `note-ids.txt` in the index folder: each `notes:<scope>` segment's stamp
 * with the ids it was taken over, so a prompt whose stores hold the same notes as last time finds
 * their stamps by comparing text instead of hashing 300 ids (a cold loop of thousands of steps,
 * about 1 ms of a first request). Text, replaced whole (atomic rename, not fsynced) when a stamp
 * was hashed and the index folder exists:
 *
 *   shiro note ids 1
 *   <segment>\t<its stamp>\t<the ids, as a JSON array, in the order the store lists them>   (by segment)
 *
 * A line is used only when its ids are exactly the ones being stamped, so it cannot give a stamp
 * for other notes; a line of another shape, or another header, is out of date, never an error.
 * Derived data: deleting it costs one hash per store.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Bm25Index, IndexedDocInput } from "../search/bm25-index.ts";
import { openIndexFolder, type CompactResult } from "../search/index-folder.ts";
import { createSegmentedIndex } from "../search/segmented-index.ts";
import { paths } from "../platform/paths.ts";
import type { Episode, EpisodeDigest, EpisodeStore } from "./episodes.ts";
import { EPISODE_IDS_FILE, episodeIdList, idsStarting, readEpisodeIds, writeEpisodeIds, type EpisodeIds } from "./memory-lookup.ts";
import type { MemoryEntry, MemoryStore, ScopedMemoryEntry } from "./memory.ts";
import { redactText } from "../secrets/redact.ts";
import { writeTextAtomic } from "../state-file/json-file.ts";
import { fileStamp } from "../state-file/file-stamp.ts";

/** The index segment of a store's notes. */
export function noteSegment(store: Pick<MemoryStore, "scope" | "agent">): string {
  return store.scope === "agent" ? `notes:agent:${store.agent}` : `notes:${store.scope}`;
}
export const EPISODE_SEGMENT = "episodes";
export const DIGEST_ID_PREFIX = "digest:";

/** What the index keeps to show an episode or a digest without reading the episodes file. */
export type EpisodeCard =
  | { kind: "episode"; sessionId: string; at: string; ask: string; changed: string[]; moreChanged: number; command?: string; status: string; steps: number }
  | { kind: "digest"; month: string; episodes: number; asks: string[]; changed: string[] };

export interface MemoryIndexSources {
  projectRoot: string;
  project?: MemoryStore;
  global?: MemoryStore;
  /** Every note store to search; when absent, `project` and `global`. */
  stores?: readonly MemoryStore[];
  /**
   * The entries of `stores`, in the same order, when the caller has just listed them; listed here
   * otherwise. An entry already tagged with its store's scope is kept as it is in `notes`.
   */
  entries?: readonly (readonly MemoryEntry[])[];
  episodes?: EpisodeStore;
  onNotice?: (text: string) => void;
}

export interface OpenedMemoryIndex {
  index: Bm25Index;
  /** Every note of the stores given, by id, tagged with its scope. */
  notes: Map<string, ScopedMemoryEntry>;
  /** The index segment of a note of `notes`, by id: `notes:<scope>`, or an agent store's segment (undefined for an id not in `notes`). */
  segmentOf(id: string): string | undefined;
  /**
   * The ids of the episodes the index holds and of their sessions that start with `head` (what an
   * abbreviation of at least that many characters is compared with), each once, in string order,
   * of those `indexedEpisodes(index)` gives: from the episode id list when it is of the episodes
   * file as it is now (one small read, at the first call), else from the index (and then the list
   * is written). Without an episodes store, from the index.
   */
  episodeIdsStarting(head: string): string[];
}

const _NOTE_IDS_FILE = "note-ids.txt";
const _NOTE_IDS_HEADER = "shiro note ids 1";

/** Brings the index up to date with the stores (see the module contract) and returns it with the notes read. */
export function openMemoryIndex(sources: MemoryIndexSources): OpenedMemoryIndex {
  const notes = new Map<string, ScopedMemoryEntry>();
  // A note's segment follows from its scope but for an agent store's (several agents' stores may be given): only those are kept by id.
  const agentSegments = new Map<string, string>();
  const stores = (sources.stores ?? [sources.project, sources.global]).filter((store): store is MemoryStore => store !== undefined);
  const listed = stores.map((store, at) => {
    const entries = sources.entries?.[at] ?? store.list();
    // Per store, not per note: no function is called once per note on a first request's path (memory-prompt.ts).
    const { scope } = store;
    for (const entry of entries)
      notes.set(entry.id, (entry as Partial<ScopedMemoryEntry>).scope === scope ? (entry as ScopedMemoryEntry) : { ...entry, scope });
    if (scope === "agent") {
      const segment = noteSegment(store);
      for (const entry of entries) agentSegments.set(entry.id, segment);
    }
    return { store, entries };
  });
  const segmentOf = (id: string): string | undefined => {
    const note = notes.get(id);
    return note === undefined ? undefined : note.scope === "agent" ? agentSegments.get(id) : `notes:${note.scope}`;
  };
  const episodesStamp = sources.episodes ? (fileStamp(sources.episodes.path) ?? "missing") : undefined;
  // Nothing to index and no index kept (no note, no episodes file, no folder): an empty index, the
  // folder not opened (a young home's prompt, which would find the same after a manifest, a
  // listing and the episodes files read).
  if (notes.size === 0 && _nothingStored(sources.projectRoot, episodesStamp))
    return { index: createSegmentedIndex(), notes, segmentOf, episodeIdsStarting: () => [] };
  const file = _folder(sources.projectRoot, sources.onNotice);
  const idsPath = join(file.dir, EPISODE_IDS_FILE);
  let listedIds: string | undefined;
  const keepIds = (stamp: string, ids: readonly EpisodeIds[]) => {
    if (listedIds === stamp || ids.length === 0) return;
    listedIds = stamp;
    writeEpisodeIds(idsPath, stamp, ids);
  };
  // Run notes live only in the process: they join the index after it is saved, never the file.
  const saved = listed.filter(({ store }) => store.scope !== "run");
  const noteStamps = _noteStamps(join(file.dir, _NOTE_IDS_FILE));
  const index = file.open((index) => {
    for (const { store, entries } of saved) {
      const ids: string[] = [];
      for (const entry of entries) ids.push(entry.id);
      const segment = noteSegment(store);
      index.sync(segment, noteStamps.stamp(segment, ids), () => entries.map((entry) => ({ id: entry.id, stamp: "", text: entry.text })));
    }
    if (sources.episodes && episodesStamp !== undefined) {
      const store = sources.episodes;
      index.sync(EPISODE_SEGMENT, episodesStamp, () => {
        const { episodes, digests } = store.read();
        keepIds(episodesStamp, episodes);
        return [...episodes.map(_episodeDoc), ...digests.map(_digestDoc)];
      });
    }
  });
  for (const { store, entries } of listed) {
    if (store.scope === "run" && entries.length > 0)
      index.sync(noteSegment(store), entries.map((entry) => entry.id).join(","), () => entries.map((entry) => ({ id: entry.id, stamp: "", text: entry.text })));
  }
  noteStamps.save(file.dir);
  let list: string | null | undefined;
  let fromIndex: string[] | undefined;
  const episodeIdsStarting = (head: string): string[] => {
    if (list === undefined) list = (episodesStamp !== undefined && readEpisodeIds(idsPath, episodesStamp)) || null;
    if (list !== null) return idsStarting(list, head);
    if (!fromIndex) {
      const ids = indexedEpisodes(index);
      if (episodesStamp !== undefined) keepIds(episodesStamp, ids);
      fromIndex = episodeIdList(ids);
    }
    return fromIndex.filter((id) => id.startsWith(head));
  };
  return { index, notes, segmentOf, episodeIdsStarting };
}

/** No index folder, and no episodes file (its log, given as `episodesStamp`, or a legacy file). */
function _nothingStored(projectRoot: string, episodesStamp: string | undefined): boolean {
  if (existsSync(paths.memoryIndex(projectRoot))) return false;
  return episodesStamp === undefined || (episodesStamp === "missing" && !existsSync(paths.legacyProjectEpisodes(projectRoot)));
}

/** The note id stamps kept at `path` (see the module contract): `stamp` answers from a line whose ids are these, else hashes them; `save` writes what was hashed. */
function _noteStamps(path: string): { stamp(segment: string, ids: string[]): string; save(dir: string): void } {
  let lines: Map<string, { stamp: string; ids: string }> | undefined;
  let hashed = false;
  const read = () => {
    const found = new Map<string, { stamp: string; ids: string }>();
    let text = "";
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return found;
    }
    const rows = text.split("\n");
    if (rows[0] !== _NOTE_IDS_HEADER || rows[rows.length - 1] !== "") return found;
    for (const row of rows.slice(1, -1)) {
      const [segment, stamp, ids, extra] = row.split("\t");
      if (segment && stamp && ids?.startsWith("[") && extra === undefined) found.set(segment, { stamp, ids });
    }
    return found;
  };
  return {
    stamp(segment, ids) {
      lines ??= read();
      const text = JSON.stringify(ids);
      const kept = lines.get(segment);
      if (kept?.ids === text) return kept.stamp;
      const stamp = _idsStamp(ids);
      lines.set(segment, { stamp, ids: text });
      hashed = true;
      return stamp;
    },
    save(dir) {
      if (!hashed || !lines || !existsSync(dir)) return;
      hashed = false;
      const rows = [...lines].sort(([a], [b]) => (a < b ? -1 : 1)).map(([segment, { stamp, ids }]) => `${segment}\t${stamp}\t${ids}`);
      try {
        writeTextAtomic(path, `${[_NOTE_IDS_HEADER, ...rows].join("\n")}\n`, { verbatim: true, durable: false });
      } catch {
        // an unwritable state folder: the ids are hashed again next time
      }
    },
  };
}

function _folder(projectRoot: string, onNotice?: (text: string) => void) {
  return openIndexFolder(paths.memoryIndex(projectRoot), { label: "memory index", onNotice, legacyFile: paths.legacyMemoryIndex(projectRoot) });
}

/**
 * After a save: the project's recall index brought up to date (one more segment), then its small
 * segments merged when due (index-folder.ts `compactIfDue`), as find/transcript-index.ts does for its own.
 */
export function keepMemoryIndexCurrent(sources: MemoryIndexSources): void {
  openMemoryIndex(sources);
  const folder = _folder(sources.projectRoot, sources.onNotice);
  folder.compactIfDue();
}

/** `shiro memory gc`: the project's recall index brought up to date, then merged into one segment. */
export function compactMemoryIndex(sources: MemoryIndexSources): CompactResult | undefined {
  openMemoryIndex(sources);
  return _folder(sources.projectRoot, sources.onNotice).compact(true);
}

/** The episodes the index holds (id and session), read from the index alone: no episodes file read. */
export function indexedEpisodes(index: Bm25Index): EpisodeIds[] {
  return index.entries().flatMap((entry) => {
    const card = entry.data as EpisodeCard | undefined;
    return entry.segment === EPISODE_SEGMENT && card?.kind === "episode" ? [{ id: entry.id, sessionId: card.sessionId }] : [];
  });
}

/**
 * A change detector for a set of note ids: their count and two 32-bit FNV-style hashes of them
 * sorted, taken over their UTF-8 bytes four at a time (a first request runs this loop cold, so
 * it is kept short). Not node:crypto: loading it cost a first request tens of milliseconds.
 */
function _idsStamp(ids: string[]): string {
  // Note ids are time-ordered and a store lists its notes newest first: ids in either order are
  // reversed or taken as they are, not sorted (a sort's comparisons are a cold first request's).
  let up = true;
  let down = true;
  for (let at = 1; at < ids.length && (up || down); at++) {
    up &&= ids[at - 1]! <= ids[at]!;
    down &&= ids[at - 1]! >= ids[at]!;
  }
  const bytes = _encoder.encode((up ? ids : down ? ids.reverse() : ids.sort()).join("\n"));
  const words = bytes.length >>> 2;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < words; i++) {
    const word = view.getUint32(i * 4, true);
    a = Math.imul(a ^ word, 0x01000193);
    b = Math.imul(b ^ word, 0x5bd1e995);
    b ^= b >>> 15;
  }
  for (let i = words * 4; i < bytes.length; i++) a = Math.imul(a ^ bytes[i]!, 0x01000193);
  return `${ids.length}:${(a >>> 0).toString(16)}:${(b >>> 0).toString(16)}`;
}

const _encoder = new TextEncoder();

/** An episode's result line material: the first prompt, three changed files (`first` leading), the first failing command or else the first. */
export function episodeCard(episode: Episode, first?: string): EpisodeCard {
  const changed = first ? [first, ...episode.filesChanged.filter((path) => path !== first)] : episode.filesChanged;
  return {
    kind: "episode",
    sessionId: episode.sessionId,
    at: episode.endedAt,
    ask: shortLine(episode.prompts[0] ?? "", 140),
    changed: changed.slice(0, 3),
    moreChanged: Math.max(0, changed.length - 3),
    ...(episode.commands[0] ? { command: formatCommandRun(episode.commands.find((run) => run.exit !== 0) ?? episode.commands[0]) } : {}),
    status: episode.outcome.status,
    steps: episode.outcome.steps,
  };
}

export function digestCard(digest: EpisodeDigest): EpisodeCard {
  return {
    kind: "digest",
    month: digest.month,
    episodes: digest.episodes,
    asks: digest.prompts.slice(0, 2).map((ask) => shortLine(ask, 80)),
    changed: digest.filesChanged.slice(0, 3),
  };
}

// Text and card are made only for the documents a sync adds: an unchanged episode costs its id and stamp.
function _episodeDoc(episode: Episode): IndexedDocInput {
  // A summary is the one thing added to an episode after it is stored.
  return _lazyDoc(
    episode.id,
    episode.summary ? `s${episode.summary.length}` : "",
    () => episodeText(episode),
    () => episodeCard(episode),
  );
}

function _digestDoc(digest: EpisodeDigest): IndexedDocInput {
  return _lazyDoc(
    `${DIGEST_ID_PREFIX}${digest.month}`,
    `${digest.episodes}:${digest.lastAt}`,
    () => digestText(digest),
    () => digestCard(digest),
  );
}

function _lazyDoc(id: string, stamp: string, text: () => string, data: () => EpisodeCard): IndexedDocInput {
  let madeText: string | undefined;
  let madeData: EpisodeCard | undefined;
  return {
    id,
    stamp,
    get text() {
      return (madeText ??= text());
    },
    get data() {
      return (madeData ??= data());
    },
  };
}

/** `bun test (exit 1)`; `(no exit code)` when the command was killed or failed to run. */
export function formatCommandRun(run: { command: string; exit: number | null }): string {
  return `${shortLine(run.command, 80)} (${run.exit === null ? "no exit code" : `exit ${run.exit}`})`;
}

/** What is searched of an episode: prompts, files, commands, the answer excerpt, span summaries and summary. */
export function episodeText(episode: Episode): string {
  return [
    ...episode.prompts,
    ...episode.filesRead,
    ...episode.filesChanged,
    ...episode.commands.map((run) => run.command),
    episode.answer,
    ...episode.spans,
    episode.summary ?? "",
  ].join("\n");
}

export function digestText(digest: EpisodeDigest): string {
  return [digest.month, ...digest.prompts, ...digest.filesChanged, ...digest.commands].join("\n");
}

/** Redacted, whitespace collapsed, cut to `max` characters with an ellipsis. */
export function shortLine(text: string, max: number): string {
  const flat = redactText(text).text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
