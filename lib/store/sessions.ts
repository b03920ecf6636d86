/**
 * Saved sessions: one JSON file per session, resumable with `-c` / `-r`.
 *
 * File `sessions/<uuidv7>.json` (pretty JSON, mode 0600, replaced atomically by json-file):
 *   {version: 1, id, createdAt, updatedAt, cwd, provider, model, title, inputTokens, outputTokens,
 *    costUsd?, subagents?: {inputTokens, outputTokens, costUsd?}, notebook: {todos}, exchanges: Exchange[], messages: Message[], compaction?}
 * `messages` are lib/messages.ts shapes (unknown extra fields are kept). `compaction`
 * belongs to the context manager and is carried through load and save as whatever it holds.
 *
 * One writer per session. A process writes a session only through its SessionWriter, which holds
 * the session's lease (session-lease.ts) while it is open. `close()` flushes and releases it; at
 * process exit every writer still open is flushed and closed.
 *
 * Loaders never crash on a bad file: listing skips it and reports a notice; loading one by id
 * is a UserError naming the reason.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import * as v from "valibot";
import type { Message } from "../messages.ts";
import { setTimeout as setTimer, clearTimeout as clearTimer } from "node:timers";
import { UserError } from "../platform/errors.ts";
import { paths } from "../platform/paths.ts";
import { parseJson, readJson, writeJsonAtomic, type WrittenFile } from "../state-file/json-file.ts";
import { readSessionHead } from "./session-head.ts";
import { releaseLease, takeNewLease, tryLease } from "./session-lease.ts";
import { messageSchema } from "./session-schema.ts";
import { noteRecentId, shortSessionId } from "./short-ids.ts";
import {
  UNTITLED,
  sessionSchema,
  isSessionShell,
  sessionShellSchema,
  deriveTitle,
  firstPrompt,
  summarizeSession,
  type LiveSession,
  type SessionRecord,
  type SessionSummary,
} from "./session-record.ts";

export const SESSION_LIST_LIMIT = 15;
/** `-c` only looks at this many of the most recently saved sessions. */
export const SESSION_SCAN_LIMIT = 100;
export const SAVE_DEBOUNCE_MS = 400;

/** Loads one session by its full id. Throws UserError when it is missing or unreadable. */
export function loadSession(id: string): SessionRecord {
  return _loaded(id, _readSession(id));
}

/**
 * A session's messages, read to take the text of a few of them (a search's snippets): the file is
 * parsed whole, but of the record only what every reader relies on is checked (format version 1,
 * the id it is named by, `messages` a list), and a message is checked against the message schema
 * when it is asked for. A full load checks every message and field, which for the forty candidates
 * of a search in a long history cost most of reading them; a message that does not pass is not
 * used, the parts of the record not read are not judged.
 */
export interface SessionMessages {
  /** Message `index`, checked; undefined when there is none or it does not pass the schema. */
  at(index: number): Message | undefined;
  /** The messages as stored, unchecked: for reading one field of each (a result's `bookkeeping`). */
  readonly stored: readonly unknown[];
}

/** Undefined when the session is missing, unreadable, of another format version or holds another id. */
export function readSessionMessages(id: string): SessionMessages | undefined {
  const stored = _storedMessages(id);
  if (!stored) return undefined;
  return {
    stored,
    at(index) {
      const parsed = v.safeParse(messageSchema(), stored[index]);
      return parsed.success ? parsed.output : undefined;
    },
  };
}

/** The messages of session `id`'s file as stored, when it is of format 1 and holds that id: the hand check first, then the schema's verdict. */
function _storedMessages(id: string): unknown[] | undefined {
  let text: string;
  try {
    text = readFileSync(paths.session(id), "utf8");
  } catch {
    return undefined;
  }
  try {
    const raw: unknown = JSON.parse(text);
    if (isSessionShell(raw, id)) return raw.messages;
  } catch {
    return undefined;
  }
  const read = parseJson(text, { schema: sessionShellSchema(), version: 1 });
  return read.status === "ok" && read.value.id === id ? read.value.messages : undefined;
}

/**
 * A full id names its file; anything shorter must be the unique prefix of one saved session (the
 * ids shiro prints are unique among all of them, so any old one still works). Throws UserError `no session matching "<x>"` or
 * `"<x>" matches N sessions; give more characters`.
 */
export function findSession(idOrPrefix: string): SessionRecord {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (!/^[0-9a-f-]+$/.test(wanted)) throw new UserError(`no session matching "${idOrPrefix}"`);
  const exact = _readSession(wanted);
  if (exact.status !== "missing") return _loaded(wanted, exact);
  const matches = _allIds().filter((id) => id.startsWith(wanted));
  if (matches.length === 0) throw new UserError(`no session matching "${idOrPrefix}"`);
  if (matches.length > 1) throw new UserError(`"${idOrPrefix}" matches ${matches.length} sessions; give more characters`);
  return loadSession(matches[0]!);
}

export interface SessionListResult {
  /** Newest `updatedAt` first. */
  sessions: SessionSummary[];
  /** One line per file that was skipped because it could not be read. */
  notices: string[];
}

/** The most recently saved sessions. A missing folder is an empty list. */
export function listSessions(limit: number = SESSION_LIST_LIMIT): SessionListResult {
  const sessions: SessionSummary[] = [];
  const notices: string[] = [];
  for (const id of _recentIds(Number.POSITIVE_INFINITY)) {
    if (sessions.length >= limit) break;
    const read = _readSession(id);
    if (read.status === "ok") sessions.push(summarizeSession(read.value));
    else if (read.status === "corrupt") notices.push(_skipNotice(id, read.reason));
  }
  sessions.sort((a, b) => _compareDesc(a.updatedAt, b.updatedAt));
  return { sessions, notices };
}

export interface NewestForCwdResult {
  /** The newest session saved from `cwd` that no live process holds; this process now holds its lease. */
  session?: SessionRecord;
  /** Newer sessions from `cwd` that were skipped because another live process holds them. */
  live: LiveSession[];
  notices: string[];
}

/**
 * What `-c` resumes: newest by `updatedAt` among the 100 most recent sessions with this `cwd`.
 * The session is claimed (its lease taken) as it is picked, so two `-c` started at once never
 * both pick it: the second skips it as live. Open its writer next; an unopened lease goes at exit.
 */
export function newestForCwd(cwd: string): NewestForCwdResult {
  // Each file's head says its directory and age (session-head.ts); only candidates are read whole.
  const candidates: { id: string; updatedAt: string; record?: SessionRecord }[] = [];
  const notices: string[] = [];
  const readWhole = (id: string): SessionRecord | undefined => {
    const read = _readSession(id);
    if (read.status === "corrupt") notices.push(_skipNotice(id, read.reason));
    return read.status === "ok" ? read.value : undefined;
  };
  for (const id of _recentIds(SESSION_SCAN_LIMIT)) {
    const head = readSessionHead(paths.session(id));
    if (head) {
      if (head.cwd === cwd) candidates.push({ id, updatedAt: head.updatedAt });
      continue;
    }
    const record = readWhole(id);
    if (record?.cwd === cwd) candidates.push({ id, updatedAt: record.updatedAt, record });
  }
  candidates.sort((a, b) => _compareDesc(a.updatedAt, b.updatedAt));
  const live: LiveSession[] = [];
  for (const candidate of candidates) {
    const session = candidate.record ?? readWhole(candidate.id);
    if (session?.cwd !== cwd) continue;
    noteRecentId(session.id);
    const lease = tryLease(session.id);
    if (lease.ok) return { session, live, notices };
    live.push({ id: session.id, pid: lease.pid, since: lease.since });
  }
  return { live, notices };
}

// ---- the writer ------------------------------------------------------------------------------

export interface SessionWriter {
  readonly session: SessionRecord;
  /** Something in the session changed: a save follows within 400 ms, at most one per window. */
  markChanged(): void;
  /** Writes now if anything changed since the last write (synchronous, safe at exit); true when it wrote. */
  flush(): boolean;
  /**
   * Writes now whether or not anything changed (`/save`). Throws once the writer is closed.
   * `durable: false` leaves out the fsync (lib/state-file/json-file.ts): for a write a durable
   * one follows before anything depends on it.
   */
  save(options?: { durable?: boolean }): void;
  /** Flushes and releases the lease. Further `markChanged` calls throw. Idempotent. */
  close(): void;
}

export interface SessionWriterOptions {
  /** The session was made by this process and is not on disk yet: its lease is taken without the lock (session-lease.ts `takeNewLease`). */
  fresh?: boolean;
  debounceMs?: number;
  /** Where the debounce waits: node's timers unless a test passes fake ones. */
  timers?: { set(callback: () => void, ms: number): unknown; clear(handle: unknown): void };
  /** Replaces the file write (tests count writes through it); `updatedAt` and the title are set first. */
  write?: (session: SessionRecord, durable: boolean) => void;
  /**
   * Hears a failed debounced save (disk full, permissions). The changes stay pending, so the next
   * save retries them; `flush`, `save` and `close` throw such a failure to their caller instead.
   */
  onError?: (error: Error) => void;
}

const _openWriters = new Map<string, SessionWriter>();
/**
 * The last session file this process wrote: its id, the text it was given and the stamp it was
 * left with. One slot, whatever the number of sessions a process writes (a REPL's `/new`), so a
 * session whose save is never indexed (no transcript index yet) keeps no text alive.
 */
let _written: { id: string; file: WrittenFile } | undefined;

/**
 * Session `id` as this process last wrote it (the redacted text its file holds, parsed), when the
 * file still has `stamp` and that is the stamp the write left it with; undefined otherwise (read
 * the file). For what indexes a session just saved (find/transcript-index.ts): it reads what a
 * load would, without reading and checking the file again. The text is handed over once, and
 * only for the session written last (another session's write since: read the file).
 */
export function takeWrittenSession(id: string, stamp: string): SessionRecord | undefined {
  const written = _written?.id === id ? _written.file : undefined;
  if (written) _written = undefined;
  if (written?.stamp !== stamp) return undefined;
  return JSON.parse(written.text) as SessionRecord;
}

/** Unref'd, so a pending save never keeps the process alive (exit flushes it instead). */
const _NODE_TIMERS = {
  set: (callback: () => void, ms: number) => setTimer(callback, ms).unref(),
  clear: (handle: unknown) => clearTimer(handle as ReturnType<typeof setTimer>),
};

/**
 * Opens the one writer of `session` in this process and takes its lease. Throws UserError
 * `session <id8> is in use by process <pid>; …` when another live process holds it.
 */
export function openSessionWriter(session: SessionRecord, options: SessionWriterOptions = {}): SessionWriter {
  if (_openWriters.has(session.id)) throw new Error(`session ${shortSessionId(session.id)} already has a writer in this process`);
  // Registered before the lease is taken, so at exit the pending save lands before the lease goes.
  _hookExit();
  noteRecentId(session.id);
  const lease = options.fresh ? takeNewLease(session.id) : tryLease(session.id);
  if (!lease.ok) throw new UserError(`session ${shortSessionId(session.id)} is in use by process ${lease.pid}; try again once that process has ended`);
  const debounceMs = options.debounceMs ?? SAVE_DEBOUNCE_MS;
  const write =
    options.write ??
    ((record: SessionRecord, durable: boolean) => void (_written = { id: record.id, file: writeJsonAtomic(paths.session(record.id), record, { durable }) }));
  const timers = options.timers ?? _NODE_TIMERS;
  let timer: unknown;
  let dirty = false;
  let closed = false;

  const assertOpen = () => {
    if (closed) throw new Error(`session ${shortSessionId(session.id)} was closed; its writer takes no more changes`);
  };

  const writeNow = (durable = true) => {
    assertOpen();
    if (timer !== undefined) timers.clear(timer);
    timer = undefined;
    session.updatedAt = new Date().toISOString();
    if (session.title === UNTITLED) session.title = deriveTitle(firstPrompt(session));
    write(session, durable);
    dirty = false;
  };

  const writer: SessionWriter = {
    session,
    markChanged() {
      assertOpen();
      dirty = true;
      if (timer !== undefined) return;
      timer = timers.set(() => {
        timer = undefined;
        try {
          if (dirty) writeNow();
        } catch (error) {
          options.onError?.(error as Error);
        }
      }, debounceMs);
    },
    flush() {
      if (!dirty) return false;
      writeNow();
      return true;
    },
    save: (saveOptions) => writeNow(saveOptions?.durable ?? true),
    close() {
      if (closed) return;
      try {
        writer.flush();
      } finally {
        closed = true;
        _openWriters.delete(session.id);
        releaseLease(session.id);
      }
    },
  };
  _openWriters.set(session.id, writer);
  return writer;
}

let _exitHooked = false;

/** At exit timers no longer fire: flush what is pending, then let close() drop the lease. */
function _hookExit(): void {
  if (_exitHooked) return;
  _exitHooked = true;
  process.on("exit", () => {
    for (const writer of [..._openWriters.values()]) {
      try {
        writer.close();
      } catch {
        // exiting: a failed last save cannot be reported anywhere useful
      }
    }
  });
}

// ---- files -----------------------------------------------------------------------------------

function _readSession(id: string) {
  const read = readJson(paths.session(id), { schema: sessionSchema(), version: 1 });
  if (read.status === "ok" && read.value.id !== id) return { status: "corrupt" as const, reason: `holds session ${read.value.id}, not ${id}` };
  return read;
}

function _loaded(id: string, read: ReturnType<typeof _readSession>): SessionRecord {
  if (read.status === "missing") throw new UserError(`no session matching "${id}"`);
  if (read.status === "corrupt") throw new UserError(`session ${shortSessionId(id)} cannot be read: ${read.reason}`);
  return read.value;
}

/** Every saved session's id, in no order (a listing only, no stat). */
function _allIds(): string[] {
  try {
    return readdirSync(paths.sessionsDir()).flatMap((name) => /^([0-9a-f-]+)\.json$/.exec(name)?.[1] ?? []);
  } catch {
    return [];
  }
}

/** Session ids by file modification time, newest first (a save rewrites the file, so this is save order). */
function _recentIds(limit: number): string[] {
  let names: string[];
  try {
    names = readdirSync(paths.sessionsDir());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files: { id: string; mtime: number }[] = [];
  for (const name of names) {
    const match = /^([0-9a-f-]+)\.json$/.exec(name);
    if (!match) continue;
    try {
      files.push({ id: match[1]!, mtime: statSync(paths.session(match[1]!)).mtimeMs });
    } catch {
      // removed between listing and stat
    }
  }
  files.sort((a, b) => b.mtime - a.mtime || _compareDesc(a.id, b.id));
  return files.slice(0, limit).map((file) => file.id);
}

function _skipNotice(id: string, reason: string): string {
  return `skipped session file ${paths.session(id)}: ${reason}`;
}

function _compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
