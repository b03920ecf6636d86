/**
 * The transcript index: one segmented BM25 index (lib/search/index-folder.ts) over every saved
 * session's messages and every logged run's events, in `search/transcripts.index/`
 * (paths.transcriptIndex).
 *
 * Sources: `session:<id>` per session file, `run:<id>` per event log; a source's stamp is its
 * file's inode, size and modification time (a session is rewritten whole on save; an event log
 * only grows), and only a changed source is read again, only its new or changed documents
 * (transcript-docs.ts) tokenised. A source whose file is gone leaves the index.
 *
 * Keeping it current:
 * - The saver: when a session closes, `indexSavedTranscripts` adds that session and its runs as
 *   one more segment, under the index's lock, and records the two folders' stamps (inode and
 *   modification time of sessions/ and events/, which change whenever a file is added, replaced
 *   or removed there). It merges the small newest segments when they are due (index-folder.ts `compactIfDue`).
 * - Opening compares the two folders' stamps with the recorded ones (two stats). Equal: the index
 *   is used as saved; so is it when they equal the stamps this process noted before it wrote
 *   there (`noteFoldersBeforeWriting`): its own session and runs are what moved them. Otherwise (a process that saved without indexing, a removed session, an
 *   index built by another version) every file of both folders is stat'ed and what changed is
 *   indexed, as one more segment. A saver whose full check is older than FULL_CHECK_MS does the
 *   same, after its answer, so a source another process wrote without indexing is found within
 *   that time even when the folders' stamps were recorded over it.
 *
 * The history census, `search/history-census.txt` (paths.historyCensus): whether the two folders
 * held more than a few hundred files when last listed, so a prompt in a long history whose index
 * was never built does not list 15,000 names (about 7 ms of a first request) to learn that it is
 * long. Text, written whole (atomic rename, not fsynced: derived data) only by a listing that
 * counted more files than _SMALL_HISTORY_FILES:
 *
 *   shiro history census 1
 *   <sessions folder stamp> <events folder stamp>     (inode:mtimeMs each, or `missing`)
 *   <when the folders were listed, ms since the epoch>
 *   <the files they held then>
 *
 * It is believed while the folders' stamps are the ones it records, or for CENSUS_TRUST_MS after
 * it was taken whatever they are: shiro never removes a session or run file, so a count past the
 * limit only grows, and a file removed by hand is seen at the next listing. Anything else (no
 * file, another header, a line cut short, a count within the limit) is out of date, never an
 * error: both folders are listed and counted again. Deleting it costs one listing.
 */
import { readdirSync, readFileSync, statSync, type Stats } from "node:fs";
import type { Bm25Index } from "../search/bm25-index.ts";
import { openIndexFolder, type CompactResult, type IndexFolder } from "../search/index-folder.ts";
import { paths } from "../platform/paths.ts";
import { loadRun, readRunEvents } from "../store/runs.ts";
import { loadSession, takeWrittenSession } from "../store/sessions.ts";
import type { SessionRecord } from "../store/session-record.ts";
import { describeTranscriptSource, runDocs, sessionDocs, type TranscriptDoc } from "./transcript-docs.ts";
import { statStamp } from "../state-file/file-stamp.ts";
import { writeTextAtomic } from "../state-file/json-file.ts";

export const SESSION_PREFIX = "session:";
export const RUN_PREFIX = "run:";
const _GONE = "gone";
/** How old a full check of every source may get before a saver repeats it (after its answer). */
export const FULL_CHECK_MS = 60 * 60 * 1000;

export interface TranscriptIndexOptions {
  onNotice?: (text: string) => void;
}

/** Session and run files few enough to build a missing index from before a first request. */
const _SMALL_HISTORY_FILES = 200;
/**
 * Live documents up to which a prompt's memory ranks past passages too (about 1,400 sessions of
 * `bun run bench:scale`'s shape). Past it, ranking them, reading the best sessions for snippets and
 * shortening their ids cost a first request about 100 ms of CPU at 180,000 documents (docs/memory.md).
 */
export const PROMPT_TRANSCRIPT_DOCS = 50_000;

/**
 * Whether a prompt's memory may rank past passages before the first request: the index is built
 * and holds at most PROMPT_TRANSCRIPT_DOCS documents, or at most a few hundred session and run
 * files would build it and one of them is not `current`'s (its session file or lease: a first run
 * has nothing past to rank, and its ranking is skipped). A build cut short (its manifest records
 * no folder stamps yet) is finished by `shiro search`, `recall` or `shiro memory gc`, never before
 * a first request. Reads the manifest; without a finished one, the history census (see the module
 * contract: two folder listings in a short history, in a long one only once its census is out of
 * date). Without `current`, any file counts.
 */
export function promptRanksTranscripts(current?: string): boolean {
  const built = _folder({}).manifest();
  if (built?.meta.sessions !== undefined) return built.docs <= PROMPT_TRANSCRIPT_DOCS;
  const names = _shortHistory(_SMALL_HISTORY_FILES);
  if (names === undefined) return false;
  const own = current === undefined ? [] : [`${current}.json`, `${current}.lease`];
  return names.some((name) => !own.includes(name));
}

/** How long a census past its limit is believed while the folders change under it: the full-check period. */
export const CENSUS_TRUST_MS = FULL_CHECK_MS;
const _CENSUS_HEADER = "shiro history census 1";

/**
 * The names in the sessions and events folders when they hold at most `limit` files together;
 * undefined past it: by the census while it holds (see the module contract), else listed.
 */
function _shortHistory(limit: number): string[] | undefined {
  const now = Date.now();
  const { sessions, events } = _folderStamps();
  const stamps = `${sessions} ${events}`;
  const census = _readCensus();
  if (census && census.files > limit && (census.stamps === stamps || (now >= census.at && now - census.at < CENSUS_TRUST_MS))) return undefined;
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  const names = [...list(paths.sessionsDir()), ...list(paths.eventsDir())];
  if (names.length <= limit) return names;
  try {
    writeTextAtomic(paths.historyCensus(), `${_CENSUS_HEADER}\n${stamps}\n${now}\n${names.length}\n`, { verbatim: true, durable: false });
  } catch {
    // an unwritable state folder: the next prompt lists again
  }
  return undefined;
}

function _readCensus(): { stamps: string; at: number; files: number } | undefined {
  let text: string;
  try {
    text = readFileSync(paths.historyCensus(), "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  if (lines.length !== 5 || lines[0] !== _CENSUS_HEADER || lines[4] !== "" || !/^\d+$/.test(lines[2]!) || !/^\d+$/.test(lines[3]!)) return undefined;
  return { stamps: lines[1]!, at: Number(lines[2]), files: Number(lines[3]) };
}

function _folder(options: TranscriptIndexOptions): IndexFolder {
  return openIndexFolder(paths.transcriptIndex(), { label: "search index", onNotice: options.onNotice, legacyFile: paths.legacyTranscriptIndex() });
}

// Per state folder (SHIRO_HOME may change within a process: the in-process tests).
const _untouched = new Map<string, Record<string, string>>();

/**
 * This process is about to write in the sessions or events folder (a session's lease, its file,
 * a run's log): the folders' stamps are noted first (two stats; a later call keeps the first).
 * While the saved index matches them, an open in this process takes the index as saved although
 * its own writes moved the stamps since: what changed is its own session and runs, which recall
 * leaves out, and a saver in another process indexes its own session. So a `recall` in a long
 * history does not check every file first. A full check this process makes and saves becomes
 * the stamps noted.
 */
export function noteFoldersBeforeWriting(): void {
  if (!_untouched.has(paths.sessionsDir())) _untouched.set(paths.sessionsDir(), _folderStamps());
}

/** The index, up to date with the sessions and runs folders (see the module contract). */
export function openTranscriptIndex(options: TranscriptIndexOptions = {}): Bm25Index {
  return _folder(options).open(_syncAll, {
    current: (meta) => {
      const noted = _untouched.get(paths.sessionsDir());
      return _sameStamps(meta, _folderStamps()) || (noted !== undefined && _sameStamps(meta, noted));
    },
    meta: () => {
      const stamps = _folderStamps();
      if (_untouched.has(paths.sessionsDir())) _untouched.set(paths.sessionsDir(), stamps);
      return stamps;
    },
  });
}

/**
 * After a session (and the runs it made) was saved: their documents join the index as one more
 * segment, the folders' stamps are recorded, and the small newest segments are merged when due
 * (index-folder.ts `compactIfDue`). Does nothing before the index was first built. Off the path to a
 * first request: call it after the answer.
 */
export function indexSavedTranscripts(saved: { sessionId?: string; runIds: readonly string[] }, options: TranscriptIndexOptions = {}): void {
  const folder = _folder(options);
  const built = folder.manifest();
  // A build cut short is finished by the next search, not here: a save stays small.
  const full = built?.meta.sessions !== undefined && built.checkedAt !== undefined && Date.now() - Date.parse(built.checkedAt) > FULL_CHECK_MS;
  const meta = _folderStamps();
  const after = folder.append(
    (index) => {
      if (full) return _syncAll(index);
      if (saved.sessionId)
        _syncFile(index, SESSION_PREFIX + saved.sessionId, paths.session(saved.sessionId), (stamp) => _savedSessionDocs(saved.sessionId!, stamp));
      for (const id of saved.runIds) _syncFile(index, RUN_PREFIX + id, paths.events(id), () => readRunDocs(id));
    },
    meta,
    full,
  );
  folder.compactIfDue(after);
}

/** `shiro memory gc`: every source checked, then every segment merged into one. */
export function compactTranscriptIndex(options: TranscriptIndexOptions = {}): CompactResult | undefined {
  const folder = _folder(options);
  if (!folder.manifest()) openTranscriptIndex(options);
  else folder.append(_syncAll, _folderStamps(), true);
  return folder.compact(true);
}

function _syncAll(index: Bm25Index): void {
  const sessions = _filesIn(paths.sessionsDir(), ".json");
  const runs = _filesIn(paths.eventsDir(), ".jsonl");
  const present = new Set<string>();
  for (const [id, stamp] of sessions) {
    present.add(SESSION_PREFIX + id);
    index.sync(SESSION_PREFIX + id, stamp, () => _sessionDocsOf(id), describeTranscriptSource);
  }
  for (const [id, stamp] of runs) {
    present.add(RUN_PREFIX + id);
    index.sync(RUN_PREFIX + id, stamp, () => readRunDocs(id), describeTranscriptSource);
  }
  for (const segment of index.segmentNames()) if (!present.has(segment)) index.sync(segment, _GONE, () => []);
}

/** `load` is given the stamp the file was found with. */
function _syncFile(index: Bm25Index, source: string, path: string, load: (stamp: string) => TranscriptDoc[]): void {
  const stamp = _fileStamp(path);
  index.sync(source, stamp ?? _GONE, stamp ? () => load(stamp) : () => [], describeTranscriptSource);
}

function _folderStamps(): Record<string, string> {
  const stamp = (dir: string) => {
    try {
      const stat = statSync(dir);
      return `${stat.ino}:${stat.mtimeMs}`;
    } catch {
      return "missing";
    }
  };
  return { sessions: stamp(paths.sessionsDir()), events: stamp(paths.eventsDir()) };
}

function _sameStamps(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  return a.sessions === b.sessions && a.events === b.events;
}

function _fileStamp(path: string): string | undefined {
  try {
    return _stampOf(statSync(path));
  } catch {
    return undefined;
  }
}

/** A source's stamp, the same for a save (`_syncFile`) and a full check (`_filesIn`); only regular files are sources (a device or pipe behind a name would be read forever). */
function _stampOf(stat: Stats): string | undefined {
  return stat.isFile() ? statStamp(stat) : undefined;
}

/** One session, re-read from disk (undefined when it is gone or unreadable). */
export function readSession(id: string): SessionRecord | undefined {
  try {
    return loadSession(id);
  } catch {
    return undefined;
  }
}

/** The documents of one session, re-read from disk (empty when it is gone or unreadable). */
export function readSessionDocs(id: string): { session?: SessionRecord; docs: TranscriptDoc[] } {
  try {
    const session = loadSession(id);
    return { session, docs: sessionDocs(session) };
  } catch {
    return { docs: [] };
  }
}

/** The documents of one run, re-read from disk. */
export function readRunDocs(id: string): TranscriptDoc[] {
  return runDocs(loadRun(id), readRunEvents(id).events);
}

function _sessionDocsOf(id: string): TranscriptDoc[] {
  return readSessionDocs(id).docs;
}

/** The documents of the session this process just saved: as it wrote them while the file has the stamp `stamp` it left (not read and checked again), else re-read. */
function _savedSessionDocs(id: string, stamp: string): TranscriptDoc[] {
  const written = takeWrittenSession(id, stamp);
  if (!written) return _sessionDocsOf(id);
  try {
    return sessionDocs(written);
  } catch {
    return [];
  }
}

/** Each file's id (its name without `suffix`) and stamp (inode, size, modification time). */
function _filesIn(dir: string, suffix: string): Map<string, string> {
  const files = new Map<string, string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return files;
  }
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    try {
      const stamp = _stampOf(statSync(`${dir}/${name}`));
      if (stamp) files.set(name.slice(0, -suffix.length), stamp);
    } catch {
      // removed between listing and stat
    }
  }
  return files;
}
