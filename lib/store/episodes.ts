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
import { existsSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import * as v from "valibot";
import { paths } from "../platform/paths.ts";
import { appendJsonLine, readJson, truncateFile, writeTextAtomic } from "../state-file/json-file.ts";
import { withLockSync } from "../state-file/file-lock.ts";
import { closeLog, linesFromEnd, openLog, readLinesFrom, type LogLine, type LogStat } from "./episode-log.ts";
import { keepLearned, recallLearned } from "./learned.ts";
import { redactText, redactValue } from "../secrets/redact.ts";

export const EPISODE_CAP = 1_000;
export const EPISODE_BYTES_CAP = 4_000_000;
const _DIGEST_PROMPTS = 60;
const _DIGEST_FILES = 80;
const _DIGEST_COMMANDS = 40;
const _DIGEST_SESSIONS = 200;
const _DIGEST_PROMPT_CHARS = 120;

const CommandRunSchema = v.looseObject({
  command: v.string(),
  /** The exit code; null when the command was killed or never ran. */
  exit: v.nullable(v.number()),
});

export const EpisodeSchema = v.looseObject({
  id: v.pipe(v.string(), v.minLength(1)),
  sessionId: v.string(),
  runIds: v.array(v.string()),
  startedAt: v.string(),
  endedAt: v.string(),
  prompts: v.array(v.string()),
  filesRead: v.array(v.string()),
  filesChanged: v.array(v.string()),
  commands: v.array(CommandRunSchema),
  outcome: v.looseObject({
    status: v.string(),
    steps: v.number(),
    runs: v.number(),
    costUsd: v.optional(v.number()),
  }),
  answer: v.string(),
  spans: v.array(v.string()),
  summary: v.optional(v.string()),
});
export type Episode = v.InferOutput<typeof EpisodeSchema>;
export type CommandRun = v.InferOutput<typeof CommandRunSchema>;

export const EpisodeDigestSchema = v.looseObject({
  month: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/)),
  episodes: v.number(),
  firstAt: v.string(),
  lastAt: v.string(),
  steps: v.number(),
  costUsd: v.optional(v.number()),
  sessionIds: v.array(v.string()),
  prompts: v.array(v.string()),
  filesChanged: v.array(v.string()),
  commands: v.array(v.string()),
});
export type EpisodeDigest = v.InferOutput<typeof EpisodeDigestSchema>;

const _LegacySchema = v.looseObject({
  version: v.literal(1),
  project: v.string(),
  episodes: v.array(EpisodeSchema),
  digests: v.optional(v.array(EpisodeDigestSchema), () => []),
});
const _SummarySchema = v.object({ id: v.string(), text: v.string() });

export const EPISODE_LOG_VERSION = 2;

export interface EpisodeContents {
  episodes: Episode[];
  digests: EpisodeDigest[];
}

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

/** What a parse of the log found, up to `parsedTo`. */
interface _Parsed {
  stat: LogStat;
  parsedTo: number;
  /** The last line parsed: a later read checks it is still there before reading on from it. */
  lastLine?: LogLine;
  count: number;
  episodes: Episode[];
  /** Each episode's `n`. */
  ordinals: number[];
  /** The highest `fold` an episode line gave. */
  foldThrough: number;
  byId: Map<string, number>;
  digests: Map<string, EpisodeDigest>;
  /** Lines of kinds this version does not know, kept through a compaction. */
  unknown: string[];
  damaged: { line: string; reason: string }[];
  /** What reads show, by the caps they were folded with. */
  views: Map<string, EpisodeContents>;
}

type _Loaded = { status: "ok"; parsed: _Parsed } | { status: "missing" } | { status: "corrupt"; reason: string };

// Per process and per file: what was parsed, so a second store or a second read reads only what was appended since.
const _parsedLogs = new Map<string, _Parsed>();

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
  const tellDamaged = (parsed: _Parsed) => {
    if (reportedDamaged || parsed.damaged.length === 0) return;
    reportedDamaged = true;
    options.onNotice?.(_damagedNotice(path, parsed.damaged));
  };
  const view = (parsed: _Parsed): EpisodeContents => {
    const caps = `${maxEpisodes}:${maxBytes}`;
    let shown = parsed.views.get(caps);
    if (!shown) parsed.views.set(caps, (shown = _fold(parsed, maxEpisodes, maxBytes)));
    return shown;
  };
  /** Under the lock: the log as the next append needs it (created, migrated, moved aside, torn tail cut); its newest `n` and `fold`. */
  const prepare = (): { n: number; fold: number } => {
    const opened = openLog(path);
    if (!opened) {
      _createLog(path, projectRoot, legacyPath, options.onNotice);
      return _lastMarks(path);
    }
    const { fd, stat } = opened;
    let header: string | undefined;
    let torn = 0;
    try {
      header = _readHeader(fd, stat.size);
      torn = linesFromEnd(fd, stat.size).torn;
    } finally {
      closeLog(fd);
    }
    const reason = _headerProblem(header);
    if (reason) {
      const backup = `${path}.corrupt-${Date.now()}`;
      renameSync(path, backup);
      _parsedLogs.delete(path);
      options.onNotice?.(`episodes ${path} were unreadable (${reason}); moved them to ${backup} and started anew`);
      _createLog(path, projectRoot, undefined, options.onNotice);
    } else if (torn > 0) {
      truncateFile(path, stat.size - torn);
      _parsedLogs.delete(path);
      options.onNotice?.(`episodes ${path} ended in an incomplete record (${torn} bytes, a write cut short); dropped it`);
    }
    return _lastMarks(path);
  };
  /** Appends `record` and keeps the parse current when it was current before. */
  const append = (record: Record<string, unknown>, apply: (parsed: _Parsed) => void): void => {
    const before = _statOf(path);
    const stored = redactValue(record);
    appendJsonLine(path, stored, 0o600, true);
    const cached = _parsedLogs.get(path);
    if (!cached || !before || !_sameStat(cached.stat, before) || cached.parsedTo !== before.size) return;
    const after = _statOf(path)!;
    const text = JSON.stringify(stored);
    apply(cached);
    cached.lastLine = { at: before.size, text };
    cached.parsedTo = after.size;
    cached.stat = after;
    cached.views.clear();
  };
  const load = (): _Loaded => {
    const loaded = _loadLog(path);
    if (loaded.status !== "missing") return loaded;
    return _loadLegacy(legacyPath);
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
        if ((_statOf(path)?.size ?? 0) + JSON.stringify(line).length > maxBytes) {
          const loaded = _loadLog(path);
          if (loaded.status === "ok") fold = Math.max(fold, _byteFold(loaded.parsed, redactValue(episode), n, fold, maxBytes));
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
      const cached = _parsedLogs.get(path);
      const stat = _statOf(path);
      if (!stat || (cached && _sameStat(cached.stat, stat))) return store.read().episodes.slice(-count).reverse();
      return _scanNewest(path, { maxEpisodes, maxBytes, want: count }) ?? store.read().episodes.slice(-count).reverse();
    },
    find(id) {
      const cached = _parsedLogs.get(path);
      const stat = _statOf(path);
      if (!stat || (cached && _sameStat(cached.stat, stat))) return store.read().episodes.find((episode) => episode.id === id);
      const scanned = _scanNewest(path, { maxEpisodes, maxBytes, id });
      return scanned ? scanned[0] : store.read().episodes.find((episode) => episode.id === id);
    },
    compact() {
      if (!existsSync(path) && !existsSync(legacyPath)) return undefined;
      return withLockSync(path, () => {
        prepare();
        const loaded = _loadLog(path);
        if (loaded.status !== "ok") return undefined;
        const parsed = loaded.parsed;
        const kept = view(parsed);
        if (parsed.damaged.length > 0) {
          const backup = `${path}.corrupt-${Date.now()}`;
          writeTextAtomic(backup, parsed.damaged.map((bad) => `${bad.line}\n`).join(""), { verbatim: true });
          options.onNotice?.(`episodes ${path}: ${parsed.damaged.length} unreadable line${parsed.damaged.length === 1 ? "" : "s"} kept in ${backup}`);
        }
        const text = _logText(projectRoot, kept, parsed.unknown);
        writeTextAtomic(path, text, { verbatim: true });
        _parsedLogs.delete(path);
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
      const stat = _statOf(path);
      if (!stat) return undefined;
      if (stat.size <= maxBytes + maxBytes / 4 && _lastMarks(path).n < maxEpisodes + Math.max(1, Math.floor(maxEpisodes / 4))) return undefined;
      return store.compact();
    },
    unreadable() {
      if (reportedCorrupt) return undefined;
      const opened = openLog(path);
      if (opened) {
        let header: string | undefined;
        try {
          header = _readHeader(opened.fd, opened.stat.size);
        } finally {
          closeLog(opened.fd);
        }
        const reason = _headerProblem(header);
        if (!reason) return undefined;
        reportedCorrupt = true;
        return _unreadableNotice(path, reason);
      }
      const basis = _versionOf(legacyPath);
      if (basis === undefined || recallLearned(_readableKey(legacyPath), { basis, schema: _Readable }) !== undefined) return undefined;
      const result = readJson(legacyPath, { schema: _LegacySchema, version: 1 });
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
    const legacy = readJson(legacyPath, { schema: _LegacySchema, version: 1 });
    if (legacy.status === "ok") contents = { episodes: legacy.value.episodes, digests: legacy.value.digests };
    else if (legacy.status === "corrupt") {
      const backup = `${legacyPath}.corrupt-${Date.now()}`;
      renameSync(legacyPath, backup);
      onNotice?.(`episodes ${legacyPath} were unreadable (${legacy.reason}); moved them to ${backup} and started anew`);
    }
  }
  writeTextAtomic(path, _logText(projectRoot, redactValue(contents), []), { verbatim: true });
  _parsedLogs.delete(path);
  if (legacyPath) rmSync(legacyPath, { force: true });
}

/** The whole text of a log holding `contents` (episodes renumbered from 1, summaries inside them). */
function _logText(projectRoot: string, contents: EpisodeContents, unknown: readonly string[]): string {
  const lines = [JSON.stringify({ shiro: "episodes", version: EPISODE_LOG_VERSION, project: projectRoot })];
  for (const digest of contents.digests) lines.push(JSON.stringify({ n: 0, digest }));
  lines.push(...unknown);
  contents.episodes.forEach((episode, at) => {
    const { id, sessionId, ...rest } = episode;
    lines.push(JSON.stringify({ n: at + 1, episode: { id, sessionId, ...rest } }));
  });
  return `${lines.join("\n")}\n`;
}

/** The first line, or (a file with no "\n" in its first 4 KiB) that text, for `_headerProblem`. */
function _readHeader(fd: number, size: number): string | undefined {
  const { lines } = readLinesFrom(fd, 0, Math.min(size, 4096));
  if (lines[0]?.at === 0) return lines[0].text;
  if (size === 0) return undefined;
  const bytes = Buffer.alloc(Math.min(size, 4096));
  readSync(fd, bytes, 0, bytes.length, 0);
  return bytes.toString("utf8");
}

/** Why `line` is not this format's header; undefined when it is. */
function _headerProblem(line: string | undefined): string | undefined {
  if (line === undefined) return "no header line";
  let header: unknown;
  try {
    header = JSON.parse(line);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  const record = header as { shiro?: unknown; version?: unknown; project?: unknown } | null;
  if (record?.shiro !== "episodes" || typeof record.project !== "string") return "not an episode log";
  if (typeof record.version !== "number" || record.version > EPISODE_LOG_VERSION) return `a newer format (version ${String(record.version)})`;
  return undefined;
}

const _N = /^\{"n":(\d+),/;

const _FOLD = /^\{"n":\d+,"fold":(\d+),"episode":/;

/** The episode count the log's newest line records and the fold its newest episode line does (zeros for a header alone). */
function _lastMarks(path: string): { n: number; fold: number } {
  const opened = openLog(path);
  if (!opened) return { n: 0, fold: 0 };
  let n: number | undefined;
  try {
    for (const line of linesFromEnd(opened.fd, opened.stat.size).lines) {
      if (line.at === 0) break;
      const count = _N.exec(line.text)?.[1];
      if (count === undefined) continue;
      n ??= Number(count);
      if (!line.text.includes(',"episode":')) continue;
      return { n, fold: Number(_FOLD.exec(line.text)?.[1] ?? 0) };
    }
    return { n: n ?? 0, fold: 0 };
  } finally {
    closeLog(opened.fd);
  }
}

/** The `n` through which episodes fold once `episode` (numbered `n`) joins the kept ones, by the byte cap. */
function _byteFold(parsed: _Parsed, episode: Episode, n: number, fold: number, maxBytes: number): number {
  const kept = parsed.episodes.map((entry, at) => ({ entry, n: parsed.ordinals[at]! })).filter((entry) => entry.n > fold);
  kept.push({ entry: episode, n });
  const folding = _countToFold(
    kept.map((entry) => entry.entry),
    Number.POSITIVE_INFINITY,
    maxBytes,
  );
  return folding === 0 ? fold : kept[folding - 1]!.n;
}

/** The log parsed (or the cached parse brought up to date by reading what was appended since). */
function _loadLog(path: string): _Loaded {
  const opened = openLog(path);
  if (!opened) {
    _parsedLogs.delete(path);
    return { status: "missing" };
  }
  const { fd, stat } = opened;
  try {
    const cached = _parsedLogs.get(path);
    if (cached && _sameStat(cached.stat, stat)) return { status: "ok", parsed: cached };
    if (cached && cached.stat.ino === stat.ino && stat.size >= cached.parsedTo && _stillThere(fd, cached.lastLine)) {
      const { lines } = readLinesFrom(fd, cached.parsedTo, stat.size);
      for (const line of lines) _parseLine(cached, line);
      const last = lines.at(-1);
      if (last) cached.parsedTo = last.at + Buffer.byteLength(last.text) + 1;
      cached.stat = stat;
      cached.views.clear();
      return { status: "ok", parsed: cached };
    }
    const { lines } = readLinesFrom(fd, 0, stat.size);
    const reason = _headerProblem(_readHeader(fd, stat.size));
    if (reason) {
      _parsedLogs.delete(path);
      return { status: "corrupt", reason };
    }
    const parsed: _Parsed = {
      stat,
      parsedTo: 0,
      count: 0,
      episodes: [],
      byId: new Map(),
      digests: new Map(),
      ordinals: [],
      foldThrough: 0,
      unknown: [],
      damaged: [],
      views: new Map(),
    };
    for (const line of lines.slice(1)) _parseLine(parsed, line);
    const last = lines.at(-1)!;
    parsed.parsedTo = last.at + Buffer.byteLength(last.text) + 1;
    parsed.lastLine = last;
    _parsedLogs.set(path, parsed);
    return { status: "ok", parsed };
  } finally {
    closeLog(fd);
  }
}

/** Whether `line` is still where it was read (the file was appended to, not rewritten in place). */
function _stillThere(fd: number, line: LogLine | undefined): boolean {
  if (!line) return false;
  const length = Buffer.byteLength(line.text) + 1;
  const found = readLinesFrom(fd, line.at, line.at + length).lines[0];
  return found?.at === line.at && found.text === line.text;
}

function _parseLine(parsed: _Parsed, line: LogLine): void {
  parsed.lastLine = line;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line.text) as Record<string, unknown>;
    if (!record || typeof record !== "object" || Array.isArray(record)) throw new Error("not an object");
  } catch {
    parsed.damaged.push({ line: line.text, reason: "not valid JSON" });
    return;
  }
  if (typeof record.n === "number") parsed.count = Math.max(parsed.count, record.n);
  if ("episode" in record) {
    const episode = v.safeParse(EpisodeSchema, record.episode);
    if (!episode.success) return void parsed.damaged.push({ line: line.text, reason: "not an episode" });
    const at = parsed.byId.get(episode.output.id);
    if (typeof record.fold === "number") parsed.foldThrough = Math.max(parsed.foldThrough, record.fold);
    if (at !== undefined) parsed.episodes[at] = episode.output;
    else {
      parsed.byId.set(episode.output.id, parsed.episodes.length);
      parsed.episodes.push(episode.output);
      parsed.ordinals.push(typeof record.n === "number" ? record.n : parsed.count);
    }
  } else if ("summary" in record) {
    const summary = v.safeParse(_SummarySchema, record.summary);
    if (!summary.success) return void parsed.damaged.push({ line: line.text, reason: "not a summary" });
    const at = parsed.byId.get(summary.output.id);
    if (at !== undefined) parsed.episodes[at] = { ...parsed.episodes[at]!, summary: summary.output.text };
  } else if ("digest" in record) {
    const digest = v.safeParse(EpisodeDigestSchema, record.digest);
    if (!digest.success) return void parsed.damaged.push({ line: line.text, reason: "not a digest" });
    parsed.digests.set(digest.output.month, digest.output);
  } else parsed.unknown.push(line.text);
}

/** The legacy single-document file, as a parse of a log holding the same. */
function _loadLegacy(legacyPath: string): _Loaded {
  const read = readJson(legacyPath, { schema: _LegacySchema, version: 1 });
  if (read.status !== "ok") return read;
  const episodes = read.value.episodes;
  const parsed: _Parsed = {
    stat: { ino: 0, size: 0, mtimeMs: 0 },
    parsedTo: 0,
    count: episodes.length,
    episodes,
    ordinals: episodes.map((_, at) => at + 1),
    foldThrough: 0,
    byId: new Map(episodes.map((episode, at) => [episode.id, at])),
    digests: new Map(read.value.digests.map((digest) => [digest.month, digest])),
    unknown: [],
    damaged: [],
    views: new Map(),
  };
  return { status: "ok", parsed };
}

/** What reads show: the episodes the writers folded, then the oldest past the caps, folded into the digests. */
function _fold(parsed: _Parsed, maxEpisodes: number, maxBytes: number): EpisodeContents {
  const digests = [...parsed.digests.values()].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
  let folded = 0;
  while (folded < parsed.episodes.length && parsed.ordinals[folded]! <= parsed.foldThrough) folded += 1;
  const folding = folded + _countToFold(parsed.episodes.slice(folded), maxEpisodes, maxBytes);
  if (folding === 0) return { episodes: parsed.episodes, digests };
  return { episodes: parsed.episodes.slice(folding), digests: foldIntoDigests(digests, parsed.episodes.slice(0, folding)) };
}

/**
 * The newest kept episodes, newest first, read backwards from the log's end: `want` of them, or
 * the one named `id` (then a list of one, or empty). Undefined when the log is not there or not
 * this format (the caller falls back to a whole read, which reports it).
 */
function _scanNewest(path: string, wanted: { maxEpisodes: number; maxBytes: number; want?: number; id?: string }): Episode[] | undefined {
  const opened = openLog(path);
  if (!opened) return undefined;
  const summaries = new Map<string, string>();
  const found: Episode[] = [];
  let bytes = 0;
  let seen = 0;
  let fold: number | undefined;
  try {
    for (const line of linesFromEnd(opened.fd, opened.stat.size).lines) {
      if (line.at === 0) return _headerProblem(line.text) ? undefined : wanted.id ? [] : found;
      if (seen >= wanted.maxEpisodes) return wanted.id ? [] : found;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line.text) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (record?.summary && typeof record.summary === "object") {
        const summary = v.safeParse(_SummarySchema, record.summary);
        if (summary.success && !summaries.has(summary.output.id)) summaries.set(summary.output.id, summary.output.text);
        continue;
      }
      if (!record?.episode) continue;
      fold ??= typeof record.fold === "number" ? record.fold : 0;
      if (typeof record.n === "number" && record.n <= fold) return wanted.id ? [] : found;
      const parsed = v.safeParse(EpisodeSchema, record.episode);
      if (!parsed.success) continue;
      const summary = summaries.get(parsed.output.id);
      const episode = summary === undefined ? parsed.output : { ...parsed.output, summary };
      bytes += JSON.stringify(episode).length;
      if (seen > 0 && bytes > wanted.maxBytes) return wanted.id ? [] : found;
      seen += 1;
      if (wanted.id !== undefined) {
        if (episode.id === wanted.id) return [episode];
        continue;
      }
      found.push(episode);
      if (found.length >= (wanted.want ?? 0)) return found;
    }
    return undefined;
  } finally {
    closeLog(opened.fd);
  }
}

const _Readable = v.object({});
const _readableKey = (path: string) => `episodes-readable:${path}`;

function _statOf(path: string): LogStat | undefined {
  try {
    const stat = statSync(path);
    return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

function _sameStat(a: LogStat, b: LogStat): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

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

/** How many of the oldest episodes must go for the rest to fit both caps (the newest always stays). */
function _countToFold(episodes: readonly Episode[], maxEpisodes: number, maxBytes: number): number {
  const sizes = episodes.map((episode) => JSON.stringify(episode).length);
  let bytes = sizes.reduce((sum, size) => sum + size, 0);
  let folding = Math.max(0, episodes.length - maxEpisodes);
  for (let i = 0; i < folding; i++) bytes -= sizes[i]!;
  while (bytes > maxBytes && folding < episodes.length - 1) {
    bytes -= sizes[folding]!;
    folding += 1;
  }
  return folding;
}

/** Adds episodes to the digests of the months they ended in; digests stay sorted by month. */
export function foldIntoDigests(digests: readonly EpisodeDigest[], episodes: readonly Episode[]): EpisodeDigest[] {
  const byMonth = new Map(digests.map((digest) => [digest.month, { ...digest }]));
  for (const episode of episodes) {
    const month = episode.endedAt.slice(0, 7);
    const digest = byMonth.get(month) ?? {
      month,
      episodes: 0,
      firstAt: episode.startedAt,
      lastAt: episode.endedAt,
      steps: 0,
      sessionIds: [],
      prompts: [],
      filesChanged: [],
      commands: [],
    };
    digest.episodes += 1;
    if (episode.startedAt < digest.firstAt) digest.firstAt = episode.startedAt;
    if (episode.endedAt > digest.lastAt) digest.lastAt = episode.endedAt;
    digest.steps += episode.outcome.steps;
    if (episode.outcome.costUsd !== undefined) digest.costUsd = (digest.costUsd ?? 0) + episode.outcome.costUsd;
    digest.sessionIds = _addCapped(digest.sessionIds, [episode.sessionId], _DIGEST_SESSIONS);
    digest.prompts = _addCapped(
      digest.prompts,
      episode.prompts.slice(0, 1).map((prompt) => redactText(prompt).text.slice(0, _DIGEST_PROMPT_CHARS)),
      _DIGEST_PROMPTS,
    );
    digest.filesChanged = _addCapped(digest.filesChanged, episode.filesChanged, _DIGEST_FILES);
    digest.commands = _addCapped(
      digest.commands,
      episode.commands.map((run) => redactText(run.command).text.slice(0, _DIGEST_PROMPT_CHARS)),
      _DIGEST_COMMANDS,
    );
    byMonth.set(month, digest);
  }
  return [...byMonth.values()].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
}

function _addCapped(list: readonly string[], items: readonly string[], cap: number): string[] {
  const next = [...list];
  for (const item of items) if (next.length < cap && !next.includes(item)) next.push(item);
  return next;
}
