/**
 * Ranked recall over notes and episodes: what the `recall` tool answers.
 *
 * Contract:
 * - Words: BM25 through the project's recall index (memory-index.ts), a result needs one query
 *   word, not all; equal scores go to the note with more hits, then to the newer entry.
 * - `file`: only episodes (and monthly digests) that read or changed that path, matched whole or
 *   by trailing path segments (`auth.ts` finds `lib/auth.ts`); with no words, newest first.
 * - An episode is shown by its session's id, abbreviated over every memory id (memory-lookup.ts
 *   `memoryIds`), so it is unique at the length shown. A query that is a session id (8 hex
 *   digits or more, a prefix of the full id) or a whole episode id returns that session's
 *   episodes in full instead: the progressive-disclosure step after a short result. A prefix of
 *   several sessions lists them, each abbreviated, instead of guessing.
 * - `scope` names one store's notes (project also keeps the episodes); every store by default.
 * - A note whose files changed or vanished since it was written gets a second line,
 *   `(possibly stale: <file> changed since this note)` (memory-provenance.ts).
 *   `kinds` keeps note kinds and `episode` (which covers digests).
 * - Each note returned counts one hit in its own store (memory.ts `recordHits`).
 * - Results are one short line each, their note and episode text escaped (memory-escape.ts) so
 *   none can start a line of its own; notices about a rebuilt index open the answer.
 * - `recallMemory` ranks by words only and never uses the network; `recallMemoryHybrid` (config
 *   `memory.embeddings`) fuses that ranking with cosine similarity by rank.
 */
import type { Bm25Index, IndexHit } from "../search/bm25-index.ts";
import type { EmbeddingClient } from "../search/embeddings.ts";
import { projectPath } from "./episode-build.ts";
import type { Episode, EpisodeStore } from "./episodes.ts";
import { escapeMemoryText } from "./memory-escape.ts";
import { staleNote } from "./memory-provenance.ts";
import { createAbbreviator, type Abbreviate } from "../platform/ids.ts";
import {
  EPISODE_SEGMENT,
  digestCard,
  episodeCard,
  formatCommandRun,
  openMemoryIndex,
  type EpisodeCard,
  type MemoryIndexSources,
  type OpenedMemoryIndex,
} from "./memory-index.ts";
import { memoryIds, prefixMemoryAbbreviator } from "./memory-lookup.ts";
import { MEMORY_KINDS, type MemoryScope, type MemoryStore, type ScopedMemoryEntry } from "./memory.ts";

export const RECALL_KINDS = [...MEMORY_KINDS, "episode"] as const;
/** The `recall` kind that also searches past transcripts (lib/find/recall-transcripts.ts). */
export const TRANSCRIPT_KIND = "transcript";
export type RecallKind = (typeof RECALL_KINDS)[number];
export const RECALL_DEFAULT_LIMIT = 8;
export const RECALL_MAX_LIMIT = 30;
const _EXPANDED_CAP = 6_000;
const _SESSION_ID = /^[0-9a-f]{8}(?:-[0-9a-f-]{0,28})?$/i;

/** What the `recall` tool takes (lib/tools/memory-tools.ts holds its schema). */
export interface RecallRequest {
  query: string;
  scope?: MemoryScope;
  kinds?: readonly RecallKind[];
  file?: string;
  limit?: number;
}

export interface RecallContext extends MemoryIndexSources {
  /** The folder a relative `file` is resolved against. */
  cwd: string;
  now?: Date;
}

/** Recall ranked by words alone (BM25): no network, ever. */
export function recallMemory(context: RecallContext, request: RecallRequest): string {
  const plan = _plan(context, request);
  if (typeof plan === "string") return plan;
  return _answer(
    context,
    plan,
    plan.query ? plan.index.search(plan.query, { limit: plan.limit, idFilter: plan.accept, tieBreak: plan.tieBreak }) : _byFile(plan),
  );
}

/**
 * Recall ranked by words and meaning: BM25 and cosine similarity (memory-semantic.ts) fused by
 * rank. When the embeddings endpoint fails, the answer opens with a notice and is ranked by words.
 */
export async function recallMemoryHybrid(context: RecallContext, request: RecallRequest, client: EmbeddingClient): Promise<string> {
  const plan = _plan(context, request);
  if (typeof plan === "string") return plan;
  if (!plan.query) return _answer(context, plan, _byFile(plan));
  const pool = Math.max(50, plan.limit);
  const words = plan.index.search(plan.query, { limit: pool, idFilter: plan.accept, tieBreak: plan.tieBreak });
  // The vectors load with the first ranking by meaning: a turn that never ranks by meaning never reads them.
  const [{ rankSemantically }, { fuseByRank }] = await Promise.all([import("./memory-semantic.ts"), import("../search/vector-file.ts")]);
  let meaning: IndexHit[];
  try {
    meaning = await rankSemantically({ ...context, client, index: plan.index, notes: plan.notes, query: plan.query, accept: plan.accept, pool });
  } catch (error) {
    plan.notices.push(`${error instanceof Error ? error.message : String(error)}; ranked by words only`);
    return _answer(context, plan, words.slice(0, plan.limit));
  }
  const key = (hit: IndexHit) => `${hit.segment}\u0000${hit.id}`;
  const fused = fuseByRank([words.map(key), meaning.map(key)]);
  const byKey = new Map([...meaning, ...words].map((hit) => [key(hit), hit]));
  const hits = [...byKey.values()]
    .map((hit): IndexHit => ({ segment: hit.segment, id: hit.id, data: hit.data, score: fused.get(key(hit)) ?? 0, matched: hit.matched }))
    .sort((a, b) => (Math.abs(b.score - a.score) > 1e-12 ? b.score - a.score : plan.tieBreak(a, b)))
    .slice(0, plan.limit);
  return _answer(context, plan, hits);
}

interface _Plan {
  query: string;
  file?: string;
  now: Date;
  limit: number;
  notices: string[];
  index: Bm25Index;
  notes: Map<string, ScopedMemoryEntry>;
  segmentOf: OpenedMemoryIndex["segmentOf"];
  episodeIdsStarting: OpenedMemoryIndex["episodeIdsStarting"];
  touching?: Map<string, _Touching>;
  accept: (segment: string, id: string) => boolean;
  tieBreak: (a: IndexHit, b: IndexHit) => number;
}

/** Everything a ranking needs, or the whole answer when there is nothing to rank (an expanded episode). */
function _plan(context: RecallContext, request: RecallRequest): _Plan | string {
  const query = request.query.trim();
  const file = request.file?.trim();
  if (!query && !file) throw new Error("recall needs a query (words, a path or a session id) or a file");
  if (query && _SESSION_ID.test(query) && context.episodes) {
    const expanded = _expand(context.episodes, query.toLowerCase());
    if (expanded) return expanded;
  }
  const notices: string[] = [];
  const { index, notes, segmentOf, episodeIdsStarting } = openMemoryIndex({
    ...context,
    onNotice: (text) => {
      notices.push(text);
      context.onNotice?.(text);
    },
  });
  const kinds = new Set<string>(request.kinds && request.kinds.length > 0 ? request.kinds : RECALL_KINDS);
  const touching = file && context.episodes ? _episodesTouching(context.episodes, projectPath(file, context.cwd, context.projectRoot)) : undefined;
  const accept = (segment: string, id: string): boolean => {
    if (segment === EPISODE_SEGMENT) return (!request.scope || request.scope === "project") && kinds.has("episode") && (!touching || touching.has(id));
    if (touching) return false;
    const note = notes.get(id);
    return note !== undefined && segment === segmentOf(id) && (!request.scope || request.scope === note.scope) && kinds.has(note.kind);
  };
  const time = (hit: IndexHit) => notes.get(hit.id)?.createdAt ?? _cardTime(hit.data as EpisodeCard);
  const tieBreak = (a: IndexHit, b: IndexHit) =>
    (notes.get(b.id)?.hits ?? 0) - (notes.get(a.id)?.hits ?? 0) || (time(a) < time(b) ? 1 : time(a) > time(b) ? -1 : 0);
  return {
    query,
    ...(file ? { file } : {}),
    now: context.now ?? new Date(),
    limit: request.limit ?? RECALL_DEFAULT_LIMIT,
    notices,
    index,
    notes,
    segmentOf,
    episodeIdsStarting,
    ...(touching ? { touching } : {}),
    accept,
    tieBreak,
  };
}

/** Episodes touching the file, newest first (a `file` recall with no words). */
function _byFile(plan: _Plan): IndexHit[] {
  return [...(plan.touching ?? new Map<string, _Touching>())]
    .sort(([, a], [, b]) => (a.at < b.at ? 1 : -1))
    .slice(0, plan.limit)
    .map(([id, found]): IndexHit => ({ segment: EPISODE_SEGMENT, id, data: found.card, score: 0, matched: 0 }));
}

function _answer(context: RecallContext, plan: _Plan, hits: readonly IndexHit[]): string {
  _recordNoteHits(context.stores ?? [context.project, context.global], hits, plan.notes);
  const abbreviate = recallAbbreviator(plan.notes.keys(), plan.episodeIdsStarting);
  const lines = hits.map((hit) => {
    const note = plan.notes.get(hit.id);
    if (note) {
      const stale = staleNote(note, context.projectRoot);
      return _noteLine(note, plan.now) + (stale ? `\n  ${escapeMemoryText(stale)}` : "");
    }
    const found = plan.touching?.get(hit.id);
    return escapeMemoryText(_cardLine(found?.card ?? (hit.data as EpisodeCard), abbreviate) + (found?.read ? ` · read ${found.read}` : ""));
  });
  if (lines.length === 0) lines.push(plan.query ? `Nothing recorded about "${plan.query}".` : `No episode read or changed "${plan.file}".`);
  else if (hits.some((hit) => hit.segment === EPISODE_SEGMENT)) lines.push("(recall a session id to see its episode in full)");
  return [...plan.notices.map((text) => `Notice: ${text}`), ...lines].join("\n");
}

/** A note as a recall result line (`note (gotcha, 12 days old, 3 hits): <text>`), its stale mark on a second line. */
export function formatRecallNote(note: ScopedMemoryEntry, now: Date, projectRoot: string): string {
  const stale = staleNote(note, projectRoot);
  return _noteLine(note, now) + (stale ? `\n  ${escapeMemoryText(stale)}` : "");
}

/** An episode or digest as a recall result line, escaped, its session id abbreviated by `abbreviate`. */
export function formatRecallCard(card: EpisodeCard, abbreviate: Abbreviate): string {
  return escapeMemoryText(_cardLine(card, abbreviate));
}

/** Counts one hit on each note returned, in its own store. */
export function recordNoteHits(stores: readonly (MemoryStore | undefined)[], ids: readonly string[], notes: Map<string, ScopedMemoryEntry>): void {
  _recordNoteHits(
    stores,
    ids.map((id): IndexHit => ({ segment: "", id, data: undefined, score: 0, matched: 0 })),
    notes,
  );
}

function _recordNoteHits(stores: readonly (MemoryStore | undefined)[], hits: readonly IndexHit[], notes: Map<string, ScopedMemoryEntry>): void {
  for (const store of stores) {
    if (!store) continue;
    const ids = hits.filter((hit) => notes.get(hit.id)?.scope === store.scope).map((hit) => hit.id);
    if (ids.length > 0) store.recordHits(ids);
  }
}

interface _Touching {
  at: string;
  /** The matching path when the episode only read it (a changed one leads the card's list). */
  read?: string;
  card: EpisodeCard;
}

/** Episodes (and digests) whose files include `path`, whole or as trailing segments. */
function _episodesTouching(store: EpisodeStore, path: string): Map<string, _Touching> {
  const matches = (candidate: string) => candidate === path || candidate.endsWith(`/${path}`);
  const found = new Map<string, _Touching>();
  const { episodes, digests } = store.read();
  for (const episode of episodes) {
    const changed = episode.filesChanged.find(matches);
    const read = episode.filesRead.find(matches);
    if (!changed && !read) continue;
    found.set(episode.id, { at: episode.endedAt, read: changed ? undefined : read, card: episodeCard(episode, changed) });
  }
  for (const digest of digests) {
    const changed = digest.filesChanged.find(matches);
    if (!changed) continue;
    found.set(`digest:${digest.month}`, {
      at: digest.lastAt,
      card: { ...digestCard(digest), changed: [changed, ...digest.filesChanged.filter((path) => path !== changed)].slice(0, 3) },
    });
  }
  return found;
}

/** `note (gotcha, 12 days old, 3 hits): <text>`; a note of another scope than project names it. */
function _noteLine(note: ScopedMemoryEntry, now: Date): string {
  const parts = [
    note.kind,
    ...(note.scope === "project" ? [] : [note.scope]),
    _age(note.createdAt, now),
    ...(note.hits > 0 ? [`${note.hits} hit${note.hits === 1 ? "" : "s"}`] : []),
  ];
  return `note (${parts.join(", ")}): ${escapeMemoryText(note.text)}`;
}

/** `episode 0193ab2c 2026-11-28: "<ask>" · changed a.ts, b.ts +2 · ran bun test (exit 1) · completed, 6 steps` */
function _cardLine(card: EpisodeCard, abbreviate: Abbreviate): string {
  if (card.kind === "digest") {
    const asks = card.asks.map((ask) => `"${ask}"`).join("; ");
    return `digest ${card.month} (${card.episodes} episode${card.episodes === 1 ? "" : "s"}): ${asks}${card.changed.length > 0 ? ` · changed ${card.changed.join(", ")}` : ""}`;
  }
  const parts = [`episode ${abbreviate(card.sessionId)} ${card.at.slice(0, 10)}: "${card.ask}"`];
  if (card.changed.length > 0) parts.push(`changed ${card.changed.join(", ")}${card.moreChanged > 0 ? ` +${card.moreChanged}` : ""}`);
  if (card.command) parts.push(`ran ${card.command}`);
  parts.push(`${card.status}, ${card.steps} step${card.steps === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

function _cardTime(card: EpisodeCard | undefined): string {
  if (!card) return "";
  return card.kind === "digest" ? card.month : card.at;
}

function _age(createdAt: string, now: Date): string {
  const days = Math.floor((now.getTime() - Date.parse(createdAt)) / 86_400_000);
  if (!(days >= 1)) return "today";
  if (days < 60) return `${days} day${days === 1 ? "" : "s"} old`;
  return `${Math.floor(days / 30)} months old`;
}

/**
 * How recall shows an episode's session: abbreviated over the notes and every episode the index
 * holds (their ids and sessions), the set `shiro memory show` and the expansion below resolve;
 * each id compared only with those sharing its first 8 characters (`episodeIdsStarting` of the
 * opened index, memory-lookup.ts `prefixMemoryAbbreviator`), so no episode card is decoded for it.
 */
export function recallAbbreviator(noteIds: Iterable<string>, episodeIdsStarting: OpenedMemoryIndex["episodeIdsStarting"]): Abbreviate {
  return prefixMemoryAbbreviator(noteIds, episodeIdsStarting);
}

/**
 * The episodes of the one session whose id starts with `prefix` (or of the episode with that whole
 * id), newest first, in full (capped); the sessions to choose from when several match.
 */
function _expand(store: EpisodeStore, prefix: string): string | undefined {
  const { episodes } = store.read();
  const exact = episodes.find((episode) => episode.id.toLowerCase() === prefix);
  const matching = exact ? [exact] : episodes.filter((episode) => episode.sessionId.toLowerCase().startsWith(prefix));
  if (matching.length === 0) return undefined;
  const sessions = [...new Set(matching.map((episode) => episode.sessionId))];
  if (sessions.length > 1) {
    const abbreviate = createAbbreviator(memoryIds([], episodes));
    return `"${prefix}" is the start of ${sessions.length} sessions' ids; recall one of: ${sessions
      .reverse()
      .slice(0, 10)
      .map((id) => abbreviate(id))
      .join(", ")}`;
  }
  const text = matching
    .reverse()
    .slice(0, 3)
    .map((episode) => describeEpisode(episode, escapeMemoryText))
    .join("\n\n");
  return text.length > _EXPANDED_CAP ? `${text.slice(0, _EXPANDED_CAP - 1)}…` : text;
}

/**
 * An episode in full, as recall expands it and `shiro memory show` prints it. `text` treats every
 * field that came from the session (prompts, files, commands, answer, summaries): recall passes
 * `escapeMemoryText`, the terminal its own sanitiser.
 */
export function describeEpisode(episode: Episode, text: (value: string) => string = (value) => value): string {
  const { outcome } = episode;
  const cost = outcome.costUsd === undefined ? "" : `, $${outcome.costUsd.toFixed(4)}`;
  const lines = [
    `episode of session ${episode.sessionId}, ${episode.startedAt.slice(0, 16).replace("T", " ")} to ${episode.endedAt.slice(0, 16).replace("T", " ")}: ${outcome.status}, ${outcome.steps} steps in ${outcome.runs} run${outcome.runs === 1 ? "" : "s"}${cost}`,
    "asked:",
    ...episode.prompts.map((prompt) => `- ${text(prompt)}`),
  ];
  if (episode.filesRead.length > 0) lines.push(`read: ${text(episode.filesRead.join(", "))}`);
  if (episode.filesChanged.length > 0) lines.push(`changed: ${text(episode.filesChanged.join(", "))}`);
  if (episode.commands.length > 0) lines.push("commands:", ...episode.commands.map((run) => `- ${text(formatCommandRun(run))}`));
  if (episode.answer) lines.push(`answer: ${text(episode.answer)}`);
  if (episode.summary) lines.push(`summary: ${text(episode.summary)}`);
  // A span summary keeps its lines (headings, bullets); each is treated on its own.
  for (const span of episode.spans) lines.push("compaction summary:", ...span.split("\n").map(text));
  return lines.join("\n");
}
