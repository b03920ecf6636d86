/**
 * The transcript index: one BM25 index (lib/search) over every saved session's messages and every
 * logged run's events, in `search/transcripts.index.json` (paths.transcriptIndex), brought up to
 * date on each open.
 *
 * Segments: `session:<id>` per session file, `run:<id>` per event log. A segment is out of date
 * when its file's inode, size or modification time changed (a session is rewritten whole on
 * save; an event log only grows); only then is the source read, and only its new or changed
 * documents (transcript-docs.ts) are tokenised. A source whose file is gone leaves the index.
 * Opening reads the two folders' listings and stats each file; nothing else when nothing changed.
 */
import { readdirSync, statSync } from "node:fs";
import type { Bm25Index } from "../search/bm25-index.ts";
import { openIndexFile } from "../search/index-file.ts";
import { paths } from "../platform/paths.ts";
import { loadRun, readRunEvents } from "../store/runs.ts";
import { loadSession } from "../store/sessions.ts";
import type { SessionRecord } from "../store/session-record.ts";
import { runDocs, sessionDocs, type TranscriptDoc } from "./transcript-docs.ts";

export const SESSION_PREFIX = "session:";
export const RUN_PREFIX = "run:";
const _GONE = "gone";

export interface TranscriptIndexOptions {
  onNotice?: (text: string) => void;
}

/** Bytes of index file below which opening it on the path to a first request is cheap. */
export const SMALL_TRANSCRIPT_INDEX_BYTES = 4 * 1024 * 1024;
/** Session and run files few enough to build a missing index from before a first request. */
const _SMALL_HISTORY_FILES = 200;

/**
 * Whether opening the transcript index now costs little: its file exists and holds at most
 * SMALL_TRANSCRIPT_INDEX_BYTES, or it is missing and at most a few hundred session and run files
 * would build it. Reads one stat (and, without a file, two folder listings), never the index.
 */
export function transcriptIndexIsSmall(): boolean {
  try {
    return statSync(paths.transcriptIndex()).size <= SMALL_TRANSCRIPT_INDEX_BYTES;
  } catch {
    const count = (dir: string) => {
      try {
        return readdirSync(dir).length;
      } catch {
        return 0;
      }
    };
    return count(paths.sessionsDir()) + count(paths.eventsDir()) <= _SMALL_HISTORY_FILES;
  }
}

/** The index, up to date with the sessions and runs folders. */
export function openTranscriptIndex(options: TranscriptIndexOptions = {}): Bm25Index {
  const file = openIndexFile(paths.transcriptIndex(), { label: "search index", onNotice: options.onNotice });
  const sessions = _filesIn(paths.sessionsDir(), ".json");
  const runs = _filesIn(paths.eventsDir(), ".jsonl");
  return file.open((index) => {
    const present = new Set<string>();
    for (const [id, stamp] of sessions) {
      present.add(SESSION_PREFIX + id);
      index.sync(SESSION_PREFIX + id, stamp, () => _sessionDocsOf(id));
    }
    for (const [id, stamp] of runs) {
      present.add(RUN_PREFIX + id);
      index.sync(RUN_PREFIX + id, stamp, () => readRunDocs(id));
    }
    for (const segment of index.segmentNames()) if (!present.has(segment)) index.sync(segment, _GONE, () => []);
  });
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
      const stat = statSync(`${dir}/${name}`);
      // Only regular files are sources: a device or pipe behind a name would be read forever.
      if (!stat.isFile()) continue;
      files.set(name.slice(0, -suffix.length), `${stat.ino}:${stat.size}:${stat.mtimeMs}`);
    } catch {
      // removed between listing and stat
    }
  }
  return files;
}
