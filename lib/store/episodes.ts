/**
 * Episodes: one record per headless run or REPL session that did something in a project, built
 * from what shiro observed (episode-build.ts), kept beside the project's notes.
 *
 * File `memory/<hash16>.episodes.jsonl` (paths.projectEpisodes), an append-only log of JSON
 * lines, each ending in "\n":
 *   {"shiro":"episodes","version":2,"project":"<root>"}          the header, always the first line
 *   {"n":0,"digest":EpisodeDigest}                                 monthly digests (written by a compaction)
 *   {"n":<k>,"fold":<f>,"episode":Episode}                         an episode, `id` and `sessionId` its first fields
 *   {"n":<k>,"summary":{"id":"<episode id>","text":"<summary>"}}   a summary added to an earlier episode
 * `n` counts the episode lines from the header through that line, so the newest line alone says
 * how many episodes the file holds; `fold` (absent: 0) is the writer's caps applied: episodes
 * numbered up to it are folded into the digests (it never goes down). Episodes are kept in file order (oldest first), each with the
 * text of the last summary line naming it; digests by month. Objects are read loosely: fields
 * this version does not know are kept, and so are lines of a kind it does not know (through a
 * compaction too), so a later format can add either without a migration.
 *
 * Guarantees:
 * - `record` and `addSummary` append one line, fsynced, under the file's lock (file-lock.ts): a
 *   save writes the bytes of its record and reads the last line, never the rest of the file.
 *   Concurrent processes never lose each other's episodes.
 * - The caps: past `maxEpisodes` (1,000) or `maxBytes` (4 MB of serialised episodes) the oldest
 *   episodes are folded into the digest of the month they ended in (counts, sessions, prompts,
 *   files, commands, steps, cost), never dropped without a trace. Every read applies the caps, so
 *   the file may hold more until it is compacted: `compact` (`shiro memory gc`, or
 *   `compactIfDue` after a later run's answer once the file holds a quarter more than the caps)
 *   rewrites it atomically as what reads show: header, digests, the episodes kept.
 * - `newest` and `find` read the log backwards from its end and stop at what they need; `read`
 *   reads it whole once per process, then only the lines appended since (by anyone); what this
 *   process wrote is never read back.
 * - A torn last line (a writer killed mid-append) is ignored by reads and cut off by the next
 *   append. A line that does not parse or validate is skipped, reported once through `onNotice`,
 *   and kept in `<file>.corrupt-<time>` by the next compaction. A file whose header is not this
 *   format is never overwritten: reads treat it as empty and report it once; the next record
 *   moves it aside to `<file>.corrupt-<time>` (reported) first.
 * - The format before the log, `memory/<hash16>.episodes.json` ({version: 1, project,
 *   episodes, digests}, one pretty JSON document), is read as it is while no log exists; the
 *   first record or summary moves it into a log (the same episodes and digests) and removes it.
 * - `unreadable` (asked at every run's start) reads the log's header line, nothing else; a
 *   legacy file is parsed only when no run has seen this very version of it readable (kept in
 *   lib/store/learned.ts, keyed by its device, inode, size and times).
 */
import { appendFileSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import * as v from "valibot";
import { paths } from "../platform/paths.ts";
import { appendJsonLine, readJson, truncateFile, writeTextAtomic } from "../state-file/json-file.ts";
import { withLockSync } from "../state-file/file-lock.ts";
import { closeLog, linesFromEnd, openLog } from "./episode-log.ts";
import {
  byteFold,
  foldParsed,
  headerProblem,
  lastMarks,
  legacySchema,
  loadLegacy,
  loadLog,
  logText,
  marksOf,
  parsedLogs,
  readHeader,
  sameStat,
  scanNewest,
  statOf,
  type LoadedLog,
  type ParsedLog,
} from "./episode-log-read.ts";
import { EPISODE_BYTES_CAP, EPISODE_CAP, type Episode, type EpisodeContents } from "./episode-schema.ts";
import { keepLearned, recallLearned } from "./learned.ts";
import { redactText, redactValue } from "../secrets/redact.ts";

export {
  EPISODE_BYTES_CAP,
  EPISODE_CAP,
  episodeSchemas,
  foldIntoDigests,
  type CommandRun,
  type Episode,
  type EpisodeContents,
  type EpisodeDigest,
} from "./episode-schema.ts";
export { EPISODE_LOG_VERSION } from "./episode-log-read.ts";

export interface RecordEpisodeResult {
  /** Episodes kept after this one was added. */
  count: number;
  /** Older episodes folded into monthly digests to make room. */
  folded: number;
}

export interface CompactEpisodesResult {
  /** Episode lines and bytes in the file before and after. */
  episodesBefore: number;
  episodesAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  /** Unreadable lines moved to `<file>.corrupt-<time>`. */
  damaged: number;
}

export interface EpisodeStore {
  readonly projectRoot: string;
  readonly path: string;
  record(episode: Episode): RecordEpisodeResult;
  /** Adds a model-written summary to a stored episode (one locked append); false when it was folded or is gone. */
  addSummary(id: string, summary: string): boolean;
  /** Episodes oldest first and digests, as stored; empty when the file is missing or unreadable. */
  read(): EpisodeContents;
  /** The newest `count` episodes kept, newest first (read from the log's end, only as far as needed). */
  newest(count: number): Episode[];
  /** The kept episode with this id, read from the log's end back to it; undefined when folded or unknown. */
  find(id: string): Episode | undefined;
  /** Rewrites the file as reads show it (caps applied, summaries merged); undefined when there is no log. */
  compact(): CompactEpisodesResult | undefined;
  /** `compact` when the file holds a quarter more than the caps (a stat and its last line tell); otherwise nothing. */
  compactIfDue(): CompactEpisodesResult | undefined;
  /**
   * The notice of an unreadable file, given once per store: by this call (a run asks at its start,
   * so the notice is an event of that run) or by `read` through `onNotice`, whichever comes first.
   */
  unreadable(): string | undefined;
}

export interface EpisodeStoreOptions {
  maxEpisodes?: number;
  maxBytes?: number;
  onNotice?: (text: string) => void;
}

/** The episodes of one project (keyed by its root). Creates no file until the first record. */
export function openEpisodes(projectRoot: string, options: EpisodeStoreOptions = {}): EpisodeStore {
  const path = paths.projectEpisodes(projectRoot);
  const legacyPath = paths.legacyProjectEpisodes(projectRoot);
  const maxEpisodes = options.maxEpisodes ?? EPISODE_CAP;
  const maxBytes = options.maxBytes ?? EPISODE_BYTES_CAP;
  let reportedCorrupt = false;
  let reportedDamaged = false;
  const tellCorrupt = (text: string) => {
    if (reportedCorrupt) return;
    reportedCorrupt = true;
    options.onNotice?.(text);
  };
  const tellDamaged = (parsed: ParsedLog) => {
    if (reportedDamaged || parsed.damaged.length === 0) return;
    reportedDamaged = true;
    options.onNotice?.(_damagedNotice(path, parsed.damaged));
  };
  const view = (parsed: ParsedLog): EpisodeContents => {
    const caps = `${maxEpisodes}:${maxBytes}`;
    let shown = parsed.views.get(caps);
    if (!shown) parsed.views.set(caps, (shown = foldParsed(parsed, maxEpisodes, maxBytes)));
    return shown;
  };
  /** Under the lock: the log as the next append needs it (created, migrated, moved aside, torn tail cut); its newest `n` and `fold`. */
  const prepare = (): { n: number; fold: number } => {
    const opened = openLog(path);
    if (!opened) {
      _createLog(path, projectRoot, legacyPath, options.onNotice);
      return lastMarks(path);
    }
    const { fd, stat } = opened;
    let reason: string | undefined;
    let torn = 0;
    let marks = { n: 0, fold: 0 };
    try {
      reason = headerProblem(readHeader(fd, stat.size));
      const tail = linesFromEnd(fd, stat.size);
      torn = tail.torn;
      // The whole lines are the same before and after a torn tail is cut: the marks are read once, here.
      if (!reason) marks = marksOf(tail.lines);
    } finally {
      closeLog(fd);
    }
    if (reason) {
      const backup = `${path}.corrupt-${Date.now()}`;
      renameSync(path, backup);
      parsedLogs.delete(path);
      options.onNotice?.(`episodes ${path} were unreadable (${reason}); moved them to ${backup} and started anew`);
      _createLog(path, projectRoot, undefined, options.onNotice);
      return lastMarks(path);
    }
    if (torn > 0 && torn === stat.size) {
      // The header parsed but lacks its line break (a file written outside shiro): finish its line.
      appendFileSync(path, "\n");
      parsedLogs.delete(path);
    } else if (torn > 0) {
      truncateFile(path, stat.size - torn);
      parsedLogs.delete(path);
      options.onNotice?.(`episodes ${path} ended in an incomplete record (${torn} bytes, a write cut short); dropped it`);
    }
    return marks;
  };
  /** Appends `record` and keeps the parse current when it was current before. */
  const append = (record: Record<string, unknown>, apply: (parsed: ParsedLog) => void): void => {
    const before = statOf(path);
    const stored = redactValue(record);
    appendJsonLine(path, stored, 0o600, true);
    const cached = parsedLogs.get(path);
    if (!cached || !before || !sameStat(cached.stat, before) || cached.parsedTo !== before.size) return;
    const after = statOf(path)!;
    const text = JSON.stringify(stored);
    apply(cached);
    cached.lastLine = { at: before.size, text };
    cached.parsedTo = after.size;
    cached.stat = after;
    cached.views.clear();
  };
  /** Whether `newest` and `find` read whole rather than scan: no log (a legacy file or nothing), or this process's parse is of the log as it is. */
  const readIsCurrent = (): boolean => {
    const cached = parsedLogs.get(path);
    const stat = statOf(path);
    return !stat || (cached !== undefined && sameStat(cached.stat, stat));
  };
  const load = (): LoadedLog => {
    const loaded = loadLog(path);
    if (loaded.status !== "missing") return loaded;
    return loadLegacy(legacyPath);
  };

  const store: EpisodeStore = {
    projectRoot,
    path,
    record(episode) {
      return withLockSync(path, () => {
        const last = prepare();
        const n = last.n + 1;
        const { id, sessionId, ...rest } = episode;
        const line = { n, fold: 0, episode: { id, sessionId, ...rest } };
        let fold = Math.max(last.fold, n - maxEpisodes);
        // Past the byte cap the fold depends on every kept episode's size: found on a whole read (rare: compaction keeps files small).
        if ((statOf(path)?.size ?? 0) + JSON.stringify(line).length > maxBytes) {
          const loaded = loadLog(path);
          if (loaded.status === "ok") fold = Math.max(fold, byteFold(loaded.parsed, redactValue(episode), n, fold, maxBytes));
        }
        line.fold = fold;
        append(fold > 0 ? line : { n, episode: line.episode }, (parsed) => {
          parsed.byId.set(id, parsed.episodes.length);
          parsed.episodes.push(redactValue(episode));
          parsed.ordinals.push(n);
          parsed.count = n;
          parsed.foldThrough = Math.max(parsed.foldThrough, fold);
        });
        const before = Math.max(0, last.n - last.fold);
        const after = n - fold;
        return { count: after, folded: before + 1 - after };
      });
    },
    addSummary(id, summary) {
      let found = false;
      withLockSync(path, () => {
        const { n } = prepare();
        if (!_isKept(store, id)) return;
        found = true;
        append({ n, summary: { id, text: summary } }, (parsed) => {
          const at = parsed.byId.get(id);
          if (at !== undefined) parsed.episodes[at] = { ...parsed.episodes[at]!, summary: redactText(summary).text };
        });
      });
      return found;
    },
    read() {
      const loaded = load();
      if (loaded.status === "ok") {
        tellDamaged(loaded.parsed);
        const { episodes, digests } = view(loaded.parsed);
        return { episodes: [...episodes], digests: [...digests] };
      }
      if (loaded.status === "corrupt") tellCorrupt(_unreadableNotice(path, loaded.reason));
      return { episodes: [], digests: [] };
    },
    newest(count) {
      if (count <= 0) return [];
      const scanned = readIsCurrent() ? undefined : scanNewest(path, { maxEpisodes, maxBytes, want: count });
      return scanned ?? store.read().episodes.slice(-count).reverse();
    },
    find(id) {
      const scanned = readIsCurrent() ? undefined : scanNewest(path, { maxEpisodes, maxBytes, id });
      return scanned ? scanned[0] : store.read().episodes.find((episode) => episode.id === id);
    },
    compact() {
      if (!existsSync(path) && !existsSync(legacyPath)) return undefined;
      return withLockSync(path, () => {
        prepare();
        const loaded = loadLog(path);
        if (loaded.status !== "ok") return undefined;
        const parsed = loaded.parsed;
        const kept = view(parsed);
        if (parsed.damaged.length > 0) {
          const backup = `${path}.corrupt-${Date.now()}`;
          writeTextAtomic(backup, parsed.damaged.map((bad) => `${bad.line}\n`).join(""), { verbatim: true });
          options.onNotice?.(`episodes ${path}: ${parsed.damaged.length} unreadable line${parsed.damaged.length === 1 ? "" : "s"} kept in ${backup}`);
        }
        const text = logText(projectRoot, kept, parsed.unknown);
        writeTextAtomic(path, text, { verbatim: true });
        parsedLogs.delete(path);
        return {
          episodesBefore: parsed.episodes.length,
          episodesAfter: kept.episodes.length,
          bytesBefore: parsed.stat.size,
          bytesAfter: Buffer.byteLength(text),
          damaged: parsed.damaged.length,
        };
      });
    },
    compactIfDue() {
      const stat = statOf(path);
      if (!stat) return undefined;
      if (stat.size <= maxBytes + maxBytes / 4 && lastMarks(path).n < maxEpisodes + Math.max(1, Math.floor(maxEpisodes / 4))) return undefined;
      return store.compact();
    },
    unreadable() {
      if (reportedCorrupt) return undefined;
      const opened = openLog(path);
      if (opened) {
        let header: string | undefined;
        try {
          header = readHeader(opened.fd, opened.stat.size);
        } finally {
          closeLog(opened.fd);
        }
        const reason = headerProblem(header);
        if (!reason) return undefined;
        reportedCorrupt = true;
        return _unreadableNotice(path, reason);
      }
      const basis = _versionOf(legacyPath);
      if (basis === undefined || recallLearned(_readableKey(legacyPath), { basis, schema: _Readable }) !== undefined) return undefined;
      const result = readJson(legacyPath, { schema: legacySchema(), version: 1 });
      if (result.status === "ok") _keepReadable(legacyPath, basis);
      if (result.status !== "corrupt") return undefined;
      reportedCorrupt = true;
      return _unreadableNotice(legacyPath, result.reason);
    },
  };
  return store;
}

/** Whether the episode `id` is in what reads show (not folded, not gone). */
function _isKept(store: EpisodeStore, id: string): boolean {
  return store.find(id) !== undefined;
}

/** Writes a new log: the legacy file's episodes and digests when there is one (then removed), else the header alone. */
function _createLog(path: string, projectRoot: string, legacyPath: string | undefined, onNotice?: (text: string) => void): void {
  let contents: EpisodeContents = { episodes: [], digests: [] };
  if (legacyPath && existsSync(legacyPath)) {
    const legacy = readJson(legacyPath, { schema: legacySchema(), version: 1 });
    if (legacy.status === "ok") contents = { episodes: legacy.value.episodes, digests: legacy.value.digests };
    else if (legacy.status === "corrupt") {
      const backup = `${legacyPath}.corrupt-${Date.now()}`;
      renameSync(legacyPath, backup);
      onNotice?.(`episodes ${legacyPath} were unreadable (${legacy.reason}); moved them to ${backup} and started anew`);
    }
  }
  writeTextAtomic(path, logText(projectRoot, redactValue(contents), []), { verbatim: true });
  parsedLogs.delete(path);
  if (legacyPath) rmSync(legacyPath, { force: true });
}

const _Readable = v.object({});
const _readableKey = (path: string) => `episodes-readable:${path}`;

/** The file's identity and version as stat tells them; undefined when it is missing (nothing to tell). */
function _versionOf(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return JSON.stringify([stat.dev, stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs]);
  } catch {
    return undefined;
  }
}

/** Notes that the version of `path` on disk now (or the one `basis` names) parsed whole. */
function _keepReadable(path: string, basis: string | undefined = _versionOf(path)): void {
  if (basis !== undefined) keepLearned(_readableKey(path), basis, {});
}

function _unreadableNotice(path: string, reason: string): string {
  return `episodes ${path} are unreadable (${reason}); they are ignored, and the next episode moves the file aside`;
}

function _damagedNotice(path: string, damaged: readonly { reason: string }[]): string {
  return `episodes ${path} hold ${damaged.length} unreadable line${damaged.length === 1 ? "" : "s"} (${damaged[0]!.reason}); they are skipped, and \`shiro memory gc\` keeps them in a .corrupt file`;
}
