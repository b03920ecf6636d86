/**
 * Reading an episode log (the format is in episodes.ts): the whole file parsed once per process and
 * then only what was appended since, the newest lines scanned from the end, the header checked
 * alone, the caps applied to what was parsed. Nothing here takes a lock or writes.
 */
import { readSync, statSync } from "node:fs";
import * as v from "valibot";
import { readJson } from "../state-file/json-file.ts";
import { closeLog, linesFromEnd, openLog, readLinesFrom, type LogLine, type LogStat } from "./episode-log.ts";
import { episodeSchemas, countToFold, foldIntoDigests, parseEpisode, type Episode, type EpisodeContents, type EpisodeDigest } from "./episode-schema.ts";

const _legacySchema = () =>
  v.looseObject({
    version: v.literal(1),
    project: v.string(),
    episodes: v.array(episodeSchemas().episode),
    digests: v.optional(v.array(episodeSchemas().digest), () => []),
  });
let _legacy: ReturnType<typeof _legacySchema> | undefined;
/** The one-file log of version 1, built at first use. */
export const legacySchema = (): ReturnType<typeof _legacySchema> => (_legacy ??= _legacySchema());
const _summarySchema = () => v.object({ id: v.string(), text: v.string() });
let _summary: ReturnType<typeof _summarySchema> | undefined;

export const EPISODE_LOG_VERSION = 2;

/** Per process and per file: what was parsed, so a second store or a second read reads only what was appended since. */
export const parsedLogs = new Map<string, ParsedLog>();

/** What a parse of the log found, up to `parsedTo`. */
export interface ParsedLog {
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

export type LoadedLog = { status: "ok"; parsed: ParsedLog } | { status: "missing" } | { status: "corrupt"; reason: string };

/** The whole text of a log holding `contents` (episodes renumbered from 1, summaries inside them). */
export function logText(projectRoot: string, contents: EpisodeContents, unknown: readonly string[]): string {
  const lines = [JSON.stringify({ shiro: "episodes", version: EPISODE_LOG_VERSION, project: projectRoot })];
  for (const digest of contents.digests) lines.push(JSON.stringify({ n: 0, digest }));
  lines.push(...unknown);
  contents.episodes.forEach((episode, at) => {
    const { id, sessionId, ...rest } = episode;
    lines.push(JSON.stringify({ n: at + 1, episode: { id, sessionId, ...rest } }));
  });
  return `${lines.join("\n")}\n`;
}

/** The first line, or (a file with no "\n" in its first 4 KiB) that text, for `headerProblem`. */
export function readHeader(fd: number, size: number): string | undefined {
  const { lines } = readLinesFrom(fd, 0, Math.min(size, 4096));
  if (lines[0]?.at === 0) return lines[0].text;
  if (size === 0) return undefined;
  const bytes = Buffer.alloc(Math.min(size, 4096));
  readSync(fd, bytes, 0, bytes.length, 0);
  return bytes.toString("utf8");
}

/** Why `line` is not this format's header; undefined when it is. */
export function headerProblem(line: string | undefined): string | undefined {
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
export function lastMarks(path: string): { n: number; fold: number } {
  const opened = openLog(path);
  if (!opened) return { n: 0, fold: 0 };
  try {
    return marksOf(linesFromEnd(opened.fd, opened.stat.size).lines);
  } finally {
    closeLog(opened.fd);
  }
}

/** `lastMarks` from a log's lines, newest first (linesFromEnd), read only as far as they are needed. */
export function marksOf(newestFirst: Iterable<LogLine>): { n: number; fold: number } {
  let n: number | undefined;
  for (const line of newestFirst) {
    if (line.at === 0) break;
    const count = _N.exec(line.text)?.[1];
    if (count === undefined) continue;
    n ??= Number(count);
    if (!line.text.includes(',"episode":')) continue;
    return { n, fold: Number(_FOLD.exec(line.text)?.[1] ?? 0) };
  }
  return { n: n ?? 0, fold: 0 };
}

/** The `n` through which episodes fold once `episode` (numbered `n`) joins the kept ones, by the byte cap. */
export function byteFold(parsed: ParsedLog, episode: Episode, n: number, fold: number, maxBytes: number): number {
  const kept = parsed.episodes.map((entry, at) => ({ entry, n: parsed.ordinals[at]! })).filter((entry) => entry.n > fold);
  kept.push({ entry: episode, n });
  const folding = countToFold(
    kept.map((entry) => entry.entry),
    Number.POSITIVE_INFINITY,
    maxBytes,
  );
  return folding === 0 ? fold : kept[folding - 1]!.n;
}

/** The log parsed (or the cached parse brought up to date by reading what was appended since). */
export function loadLog(path: string): LoadedLog {
  const opened = openLog(path);
  if (!opened) {
    parsedLogs.delete(path);
    return { status: "missing" };
  }
  const { fd, stat } = opened;
  try {
    const cached = parsedLogs.get(path);
    if (cached && sameStat(cached.stat, stat)) return { status: "ok", parsed: cached };
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
    const reason = headerProblem(readHeader(fd, stat.size));
    if (reason) {
      parsedLogs.delete(path);
      return { status: "corrupt", reason };
    }
    const parsed: ParsedLog = {
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
    // A header written without its line break (only from outside shiro) leaves no whole line.
    const last = lines.at(-1);
    parsed.parsedTo = last ? last.at + Buffer.byteLength(last.text) + 1 : 0;
    parsed.lastLine = last;
    parsedLogs.set(path, parsed);
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

function _parseLine(parsed: ParsedLog, line: LogLine): void {
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
    const episode = parseEpisode(record.episode);
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
    const summary = v.safeParse((_summary ??= _summarySchema()), record.summary);
    if (!summary.success) return void parsed.damaged.push({ line: line.text, reason: "not a summary" });
    const at = parsed.byId.get(summary.output.id);
    if (at !== undefined) parsed.episodes[at] = { ...parsed.episodes[at]!, summary: summary.output.text };
  } else if ("digest" in record) {
    const digest = v.safeParse(episodeSchemas().digest, record.digest);
    if (!digest.success) return void parsed.damaged.push({ line: line.text, reason: "not a digest" });
    parsed.digests.set(digest.output.month, digest.output);
  } else parsed.unknown.push(line.text);
}

/** The legacy single-document file, as a parse of a log holding the same. */
export function loadLegacy(legacyPath: string): LoadedLog {
  const read = readJson(legacyPath, { schema: legacySchema(), version: 1 });
  if (read.status !== "ok") return read;
  const episodes = read.value.episodes;
  const parsed: ParsedLog = {
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
export function foldParsed(parsed: ParsedLog, maxEpisodes: number, maxBytes: number): EpisodeContents {
  const digests = [...parsed.digests.values()].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
  let folded = 0;
  while (folded < parsed.episodes.length && parsed.ordinals[folded]! <= parsed.foldThrough) folded += 1;
  const folding = folded + countToFold(parsed.episodes.slice(folded), maxEpisodes, maxBytes);
  if (folding === 0) return { episodes: parsed.episodes, digests };
  return { episodes: parsed.episodes.slice(folding), digests: foldIntoDigests(digests, parsed.episodes.slice(0, folding)) };
}

/**
 * The newest kept episodes, newest first, read backwards from the log's end: `want` of them, or
 * the one named `id` (then a list of one, or empty). Undefined when the log is not there or not
 * this format (the caller falls back to a whole read, which reports it).
 */
export function scanNewest(path: string, wanted: { maxEpisodes: number; maxBytes: number; want?: number; id?: string }): Episode[] | undefined {
  const opened = openLog(path);
  if (!opened) return undefined;
  const summaries = new Map<string, string>();
  const found: Episode[] = [];
  let bytes = 0;
  let seen = 0;
  let fold: number | undefined;
  try {
    for (const line of linesFromEnd(opened.fd, opened.stat.size).lines) {
      if (line.at === 0) return headerProblem(line.text) ? undefined : wanted.id ? [] : found;
      if (seen >= wanted.maxEpisodes) return wanted.id ? [] : found;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line.text) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (record?.summary && typeof record.summary === "object") {
        const summary = v.safeParse((_summary ??= _summarySchema()), record.summary);
        if (summary.success && !summaries.has(summary.output.id)) summaries.set(summary.output.id, summary.output.text);
        continue;
      }
      if (!record?.episode) continue;
      fold ??= typeof record.fold === "number" ? record.fold : 0;
      if (typeof record.n === "number" && record.n <= fold) return wanted.id ? [] : found;
      const parsed = parseEpisode(record.episode);
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

export function statOf(path: string): LogStat | undefined {
  try {
    const stat = statSync(path);
    return { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch {
    return undefined;
  }
}

export function sameStat(a: LogStat, b: LogStat): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}
