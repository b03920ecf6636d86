/**
 * Episodes: one record per headless run or REPL session that did something in a project, built
 * from what shiro observed (episode-build.ts), kept beside the project's notes.
 *
 * File `memory/<hash16>.episodes.json` (paths.projectEpisodes), pretty JSON:
 *   {version: 1, project: "<root>", episodes: Episode[], digests: EpisodeDigest[]}
 * `episodes` are oldest first; `digests` hold one entry per month ("YYYY-MM"), oldest first.
 * Objects are read loosely: fields this version does not know are kept through every rewrite, so a
 * later format can add fields (scope, provenance) without a migration.
 *
 * Guarantees:
 * - `record` and `addSummary` are each one locked read-modify-write through json-file's `updateJsonSync`: concurrent
 *   processes never lose each other's episodes.
 * - Past `maxEpisodes` (1,000) or `maxBytes` (4 MB of serialised episodes) the oldest episodes are
 *   folded into the digest of the month they ended in (counts, sessions, prompts, files, commands,
 *   steps, cost), never dropped without a trace. A digest's lists are capped; its counts are not.
 * - A corrupt file is never overwritten: reads treat it as empty and report it once through
 *   `onNotice`; the next record moves it aside to `<file>.corrupt-<time>` (reported) first.
 * - `unreadable` (asked at every run's start) reads the file only when no run has seen this very
 *   version of it readable: a version written by `record` or read whole is kept in
 *   lib/store/learned.ts, keyed by its device, inode, size and times, so a long history's
 *   episodes are not parsed before every first request.
 */
import { statSync } from "node:fs";
import * as v from "valibot";
import { paths } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";
import { keepLearned, recallLearned } from "./learned.ts";
import { redactText } from "../secrets/redact.ts";

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

const _FileSchema = v.looseObject({
  version: v.literal(1),
  project: v.string(),
  episodes: v.array(EpisodeSchema),
  digests: v.optional(v.array(EpisodeDigestSchema), () => []),
});
type _EpisodeFile = v.InferOutput<typeof _FileSchema>;

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

export interface EpisodeStore {
  readonly projectRoot: string;
  readonly path: string;
  record(episode: Episode): RecordEpisodeResult;
  /** Adds a model-written summary to a stored episode (one locked write); false when it was folded or is gone. */
  addSummary(id: string, summary: string): boolean;
  /** Episodes oldest first and digests, as stored; empty when the file is missing or corrupt. */
  read(): EpisodeContents;
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
  const maxEpisodes = options.maxEpisodes ?? EPISODE_CAP;
  const maxBytes = options.maxBytes ?? EPISODE_BYTES_CAP;
  let reportedCorrupt = false;

  return {
    projectRoot,
    path,
    record(episode) {
      let result: RecordEpisodeResult = { count: 0, folded: 0 };
      updateJsonSync(
        path,
        {
          schema: _FileSchema,
          version: 1,
          onCorrupt: (reason, backup) => options.onNotice?.(`episodes ${path} were unreadable (${reason}); moved them to ${backup} and started anew`),
        },
        (current) => {
          const file: _EpisodeFile = current ?? { version: 1, project: projectRoot, episodes: [], digests: [] };
          const episodes = [...file.episodes, episode];
          const folding = _countToFold(episodes, maxEpisodes, maxBytes);
          const digests = foldIntoDigests(file.digests, episodes.slice(0, folding));
          result = { count: episodes.length - folding, folded: folding };
          return { ...file, episodes: episodes.slice(folding), digests };
        },
      );
      _keepReadable(path);
      return result;
    },
    addSummary(id, summary) {
      let found = false;
      updateJsonSync(path, { schema: _FileSchema, version: 1 }, (current) => {
        if (!current?.episodes.some((episode) => episode.id === id)) return undefined;
        found = true;
        return { ...current, episodes: current.episodes.map((episode) => (episode.id === id ? { ...episode, summary } : episode)) };
      });
      if (found) _keepReadable(path);
      return found;
    },
    read() {
      const result = readJson(path, { schema: _FileSchema, version: 1 });
      if (result.status === "ok") return { episodes: result.value.episodes, digests: result.value.digests };
      if (result.status === "corrupt" && !reportedCorrupt) {
        reportedCorrupt = true;
        options.onNotice?.(_unreadableNotice(path, result.reason));
      }
      return { episodes: [], digests: [] };
    },
    unreadable() {
      if (reportedCorrupt) return undefined;
      const basis = _versionOf(path);
      if (basis === undefined || recallLearned(_readableKey(path), { basis, schema: _Readable }) !== undefined) return undefined;
      const result = readJson(path, { schema: _FileSchema, version: 1 });
      if (result.status === "ok") _keepReadable(path, basis);
      if (result.status !== "corrupt") return undefined;
      reportedCorrupt = true;
      return _unreadableNotice(path, result.reason);
    },
  };
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
