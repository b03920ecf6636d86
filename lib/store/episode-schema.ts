/**
 * What an episode is (one record per headless run or REPL session that did something in a
 * project: lib/store/episode-build.ts builds it), what a monthly digest is, and how the oldest
 * episodes past the caps fold into digests, and the hand check of an episode line (quick-check.ts).
 * Shapes only; the store is episodes.ts.
 */
import * as v from "valibot";
import { redactText } from "../secrets/redact.ts";
import { isOptionalString, isRecord, isStringArray, sameFields } from "./quick-check.ts";

export const EPISODE_CAP = 1_000;
export const EPISODE_BYTES_CAP = 4_000_000;
const _DIGEST_PROMPTS = 60;
const _DIGEST_FILES = 80;
const _DIGEST_COMMANDS = 40;
const _DIGEST_SESSIONS = 200;
const _DIGEST_PROMPT_CHARS = 120;

/** The episode schemas, built at first use (a start-up that reads no episode builds none). */
function _build() {
  const commandRun = v.looseObject({
    command: v.string(),
    /** The exit code; null when the command was killed or never ran. */
    exit: v.nullable(v.number()),
  });

  const episode = v.looseObject({
    id: v.pipe(v.string(), v.minLength(1)),
    sessionId: v.string(),
    runIds: v.array(v.string()),
    startedAt: v.string(),
    endedAt: v.string(),
    prompts: v.array(v.string()),
    filesRead: v.array(v.string()),
    filesChanged: v.array(v.string()),
    commands: v.array(commandRun),
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
  const digest = v.looseObject({
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
  return { commandRun, episode, digest };
}
type _Schemas = ReturnType<typeof _build>;
let _schemas: _Schemas | undefined;
export const episodeSchemas = (): _Schemas => (_schemas ??= _build());
export type Episode = v.InferOutput<_Schemas["episode"]>;
export type CommandRun = v.InferOutput<_Schemas["commandRun"]>;

/**
 * The episode schema's check, by hand first: valibot's first pass over a thousand episodes costs a
 * process tens of milliseconds of compiling, and a log is read whole after every save's index
 * upkeep. What passes here is what the schema passes; anything else gets the schema's verdict.
 */
export function parseEpisode(raw: unknown): { success: true; output: Episode } | { success: false } {
  if (_looksLikeEpisode(raw)) return { success: true, output: raw };
  const parsed = v.safeParse(episodeSchemas().episode, raw);
  return parsed.success ? { success: true, output: parsed.output } : { success: false };
}

/**
 * True when the hand check below knows exactly the schema's fields. Not called on the read path
 * (a valid line then builds no schema): test/unit/episode-quick-check.test.ts holds it true, so a
 * field added to the schema fails that test until the hand check knows it.
 */
export const episodeQuickCheckHolds = (): boolean =>
  sameFields(episodeSchemas().episode, [
    "id",
    "sessionId",
    "runIds",
    "startedAt",
    "endedAt",
    "prompts",
    "filesRead",
    "filesChanged",
    "commands",
    "outcome",
    "answer",
    "spans",
    "summary",
  ]) &&
  sameFields(episodeSchemas().commandRun, ["command", "exit"]) &&
  sameFields(episodeSchemas().episode.entries.outcome, ["status", "steps", "runs", "costUsd"]);

function _looksLikeEpisode(e: unknown): e is Episode {
  if (!isRecord(e)) return false;
  if (typeof e.id !== "string" || e.id.length === 0 || typeof e.sessionId !== "string") return false;
  if (typeof e.startedAt !== "string" || typeof e.endedAt !== "string" || typeof e.answer !== "string") return false;
  if (!isOptionalString(e.summary)) return false;
  for (const key of ["runIds", "prompts", "filesRead", "filesChanged", "spans"] as const) if (!isStringArray(e[key])) return false;
  if (!Array.isArray(e.commands)) return false;
  for (const c of e.commands as unknown[]) if (!isRecord(c) || typeof c.command !== "string" || !(c.exit === null || typeof c.exit === "number")) return false;
  const o = e.outcome;
  if (!isRecord(o)) return false;
  return (
    typeof o.status === "string" && typeof o.steps === "number" && typeof o.runs === "number" && (o.costUsd === undefined || typeof o.costUsd === "number")
  );
}

export type EpisodeDigest = v.InferOutput<_Schemas["digest"]>;

export interface EpisodeContents {
  episodes: Episode[];
  digests: EpisodeDigest[];
}

/** How many of the oldest episodes must go for the rest to fit both caps (the newest always stays). */
export function countToFold(episodes: readonly Episode[], maxEpisodes: number, maxBytes: number): number {
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
