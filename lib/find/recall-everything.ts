/**
 * Recall over everything remembered, ranked as one: notes of every scope, episodes and monthly
 * digests (the project's recall index, store/memory-index.ts) and the passages of this project's
 * past sessions (the transcript index: prompts, answers, tool calls and results, span summaries,
 * archived transcripts). What the `recall` tool answers by default, and what chooses the memory
 * injected at session start (lib/agent/memory-prompt.ts).
 *
 * Contract:
 * - One scale: both indexes score with BM25 over the same tokeniser and the SAME collection
 *   statistics (document count, average length and each term's document frequency added up over
 *   both), so a note, an episode and a passage compare by score.
 * - Grouped: one result per note, per session (its episode and its passages together) and per
 *   digest, scored by the group rule (search/group-rank.ts: best passage + 0.7 × the second + 0.49 × the third),
 *   best first. A session's line is its episode's when it has one, with its best passage as a
 *   second line when that passage is not the episode's ask; otherwise a transcript line
 *   `transcript session <id> <date> <role>: …snippet…`.
 * - Names and code-like words of the query (capitalised past its first word, or holding a digit,
 *   a path or a joiner: `Priya`, `src/auth.ts`, `ECONNREFUSED`, `v1.2`) weigh 1.5 times their idf.
 * - Time: a time expression in the query (search/time-query.ts) is resolved against `now` and
 *   taken out of the words; results dated inside that window score double. A query with only a
 *   time ("what did we do yesterday") lists the window's sessions, newest first.
 * - `kinds` narrows: note kinds, `episode` (episodes and digests), `transcript` (passages); all by
 *   default. `scope` keeps one store's notes; episodes and transcripts belong to `project`.
 *   The session asking is left out; so is anything outside the project.
 * - Each note returned counts one hit (memory.ts `recordHits`).
 */
import { addStats, type Bm25Index, type IndexHit } from "../search/bm25-index.ts";
import { IndexCorruptError } from "../search/segment-layout.ts";
import { DEFAULT_GROUP_RULE, rankGroups, type GroupRule, type RankedGroup, type ScoredItem } from "../search/group-rank.ts";
import { parseTimeQuery, type TimeWindow } from "../search/time-query.ts";
import { tokenizeQuery } from "../search/tokenize.ts";
import { DIGEST_ID_PREFIX, EPISODE_SEGMENT, openMemoryIndex, type EpisodeCard, type OpenedMemoryIndex } from "../store/memory-index.ts";
import {
  RECALL_DEFAULT_LIMIT,
  RECALL_KINDS,
  TRANSCRIPT_KIND,
  formatRecallCard,
  formatRecallNote,
  recallAbbreviator,
  recordNoteHits,
  type RecallContext,
  type RecallKind,
} from "../store/memory-recall.ts";
import { escapeMemoryText } from "../store/memory-escape.ts";
import type { ScopedMemoryEntry } from "../store/memory.ts";
import { readSessionMessages } from "../store/sessions.ts";
import { shortSessionIds } from "../store/short-ids.ts";
import { buildSnippet } from "./snippet.ts";
import { sessionDocText, type TranscriptCard } from "./transcript-docs.ts";
import { SESSION_PREFIX, openTranscriptIndex, readSession } from "./transcript-index.ts";

export type RecallEverythingKind = RecallKind | typeof TRANSCRIPT_KIND;

export interface RecallEverythingRequest {
  query: string;
  scope?: ScopedMemoryEntry["scope"];
  kinds?: readonly RecallEverythingKind[];
  limit?: number;
}

export interface RecallEverythingContext extends RecallContext {
  /** The session asking: its own transcript is left out. */
  currentSession?: string;
  /** The session-scoring rule (the benchmark compares others). */
  rule?: GroupRule;
  /** How many candidates each index gives before grouping. */
  pool?: number;
  /** How much more a name or code-like word of the query weighs (default 1.5; the benchmark compares others). */
  entityWeight?: number;
  /** How much a result inside the query's time window gains (default 1: its score doubles). */
  windowBoost?: number;
}

interface _Item extends ScoredItem {
  source: "note" | "episode" | "passage";
  id: string;
  /** A passage's session segment. */
  segment?: string;
  data: unknown;
}

export interface RecalledGroup {
  kind: "note" | "session" | "digest";
  key: string;
  score: number;
  at: string;
  note?: ScopedMemoryEntry;
  /** The session's episode (`episodeId`), or the digest. */
  card?: EpisodeCard;
  episodeId?: string;
  /** The session's best passage: its document id and card. */
  passage?: { id: string; card: TranscriptCard };
  sessionId?: string;
}

export interface RecallRanking {
  groups: RecalledGroup[];
  notices: string[];
  /** The words searched (the query without its time expression). */
  words: string;
  window?: TimeWindow;
  notes: Map<string, ScopedMemoryEntry>;
  /** The project's recall index, as opened (ids are abbreviated against it). */
  index: Bm25Index;
  /** The ids of the episodes it holds and their sessions, by first characters (memory-index.ts: read when first asked). */
  episodeIdsStarting: OpenedMemoryIndex["episodeIdsStarting"];
}

const _POOL = 300;
const _ENTITY_WEIGHT = 1.5;

/**
 * The groups that answer `request`, best first (no hits recorded, nothing formatted; nothing
 * indexed and no transcripts: no search). Passages' entries are read only as grouping and the
 * groups shown ask; a damaged one is found then, and the ranking is done again reading every
 * candidate's entry in the search, which rebuilds the index (with its notice) and answers from it.
 */
export function rankEverything(context: RecallEverythingContext, request: RecallEverythingRequest): RecallRanking {
  try {
    return _rank(context, request, true);
  } catch (error) {
    if (!(error instanceof IndexCorruptError)) throw error;
    return _rank(context, request, false);
  }
}

function _rank(context: RecallEverythingContext, request: RecallEverythingRequest, entriesWhenRead: boolean): RecallRanking {
  const now = context.now ?? new Date();
  const time = parseTimeQuery(request.query.trim(), now);
  const words = time.words;
  const kinds = new Set<string>(request.kinds && request.kinds.length > 0 ? request.kinds : [...RECALL_KINDS, TRANSCRIPT_KIND]);
  const projectWide = !request.scope || request.scope === "project";
  const notices: string[] = [];
  const onNotice = (text: string) => {
    notices.push(text);
    context.onNotice?.(text);
  };
  const memory = openMemoryIndex({ ...context, onNotice });
  const acceptMemory = (segment: string, id: string): boolean => {
    if (segment === EPISODE_SEGMENT) return projectWide && kinds.has("episode");
    const note = memory.notes.get(id);
    return note !== undefined && segment === memory.segmentOf(id) && (!request.scope || request.scope === note.scope) && kinds.has(note.kind);
  };
  const transcripts = projectWide && kinds.has(TRANSCRIPT_KIND) ? openTranscriptIndex({ onNotice }) : undefined;
  const root = context.projectRoot;
  const skip = context.currentSession ? SESSION_PREFIX + context.currentSession : undefined;
  const acceptSession = (segment: string): boolean => segment.startsWith(SESSION_PREFIX) && segment !== skip;
  const inProject = (cwd: string) => cwd === root || cwd.startsWith(`${root}/`);
  const acceptPassage = (segment: string, _id: string, data: unknown): boolean => acceptSession(segment) && inProject((data as TranscriptCard).cwd);
  // A session's documents share its folder, recorded with its source (transcript-docs.ts describeTranscriptSource): judged once, no entry read.
  const acceptSource = (_segment: string, data: unknown): boolean | undefined => {
    const cwd = (data as { cwd?: unknown }).cwd;
    return typeof cwd === "string" ? inProject(cwd) : undefined;
  };

  let items: _Item[] = [];
  const pool = context.pool ?? _POOL;
  const weights = _entityWeights(words, context.entityWeight ?? _ENTITY_WEIGHT);
  const search = (query: string): _Item[] => {
    const found: _Item[] = [];
    const indexes: Bm25Index[] = [memory.index, ...(transcripts ? [transcripts] : [])];
    const collection = addStats(indexes.map((index) => index.stats(query)));
    for (const hit of memory.index.search(query, { limit: pool, idFilter: acceptMemory, collection, weights })) found.push(_memoryItem(hit, memory.notes));
    if (transcripts)
      for (const hit of transcripts.search(query, {
        limit: pool,
        segmentPrefix: SESSION_PREFIX,
        segmentFilter: acceptSession,
        sourceFilter: acceptSource,
        filter: acceptPassage,
        entriesWhenRead,
        collection,
        weights,
      }))
        found.push(new _PassageItem(hit));
    return found;
  };
  if ((memory.index.size > 0 || transcripts) && tokenizeQuery(words).length > 0) {
    items = search(words);
  } else if (time.window && projectWide && kinds.has("episode")) {
    const window = time.window;
    for (const entry of memory.index.entries()) {
      const card = entry.data as EpisodeCard | undefined;
      if (entry.segment !== EPISODE_SEGMENT || card?.kind !== "episode" || card.at < window.from || card.at >= window.to) continue;
      items.push({ source: "episode", group: SESSION_PREFIX + card.sessionId, id: entry.id, score: 0, at: card.at, data: card });
    }
  }
  const limit = request.limit ?? RECALL_DEFAULT_LIMIT;
  const ranked = rankGroups(items, {
    rule: context.rule ?? DEFAULT_GROUP_RULE,
    limit,
    ...(time.window ? { window: time.window } : {}),
    ...(context.windowBoost === undefined ? {} : { boost: context.windowBoost }),
  });
  const groups = ranked.map((group): RecalledGroup => {
    const best = group.items[0]!;
    if (best.source === "note") return { kind: "note", key: group.key, score: group.score, at: group.at, note: memory.notes.get(best.id)! };
    let episode: _Item | undefined;
    let passage: _Item | undefined;
    for (const item of group.items)
      if (item.source === "episode") episode ??= item;
      else if (item.source === "passage") passage ??= item;
    if (group.key.startsWith(_DIGEST_GROUP)) return _withCard({ kind: "digest", key: group.key, score: group.score, at: group.at }, episode!);
    return new _SessionGroup(group, episode, passage);
  });
  // A session's time without an episode is its passages' (their entries): read here, where a damaged one can still be searched around.
  for (const group of groups) if (group.kind === "session" && !group.episodeId) void group.at;
  return {
    groups,
    notices,
    words,
    ...(time.window ? { window: time.window } : {}),
    notes: memory.notes,
    index: memory.index,
    episodeIdsStarting: memory.episodeIdsStarting,
  };
}

/** `recall`'s answer: one line per group (a second for a stale note or a session's passage), notices first. */
export function recallEverything(context: RecallEverythingContext, request: RecallEverythingRequest): string {
  const ranking = rankEverything(context, request);
  const now = context.now ?? new Date();
  recordNoteHits(
    context.stores ?? [context.project, context.global],
    ranking.groups.flatMap((group) => (group.note ? [group.note.id] : [])),
    ranking.notes,
  );
  const snippets = passageSnippets(ranking.groups, ranking.words);
  // Only transcript lines show a bare session id: the session folders are listed only for them.
  const bare = ranking.groups.filter((group) => !group.note && !group.card);
  const shortIds = new Map(shortSessionIds(bare.map((group) => group.sessionId ?? "")).map((short, at) => [bare[at]!, short]));
  const abbreviate = recallAbbreviator(ranking.notes.keys(), ranking.episodeIdsStarting);
  const lines = ranking.groups.map((group) => {
    if (group.note) return formatRecallNote(group.note, now, context.projectRoot);
    if (group.card) {
      const line = formatRecallCard(group.card, abbreviate);
      const snippet = snippets.get(group.key);
      if (!snippet || !group.passage || (group.card.kind === "episode" && _shownIn(snippet, group.card.ask))) return line;
      return `${line}\n  ${_role(group.passage.card)}: ${escapeMemoryText(snippet)}`;
    }
    const card = group.passage!.card;
    return `transcript session ${shortIds.get(group)} ${card.at.slice(0, 10)} ${_role(card)}: ${escapeMemoryText(snippets.get(group.key) ?? "")}`;
  });
  if (lines.length === 0) lines.push(`Nothing recorded about "${request.query.trim()}".`);
  else if (ranking.groups.some((group) => group.card?.kind === "episode")) lines.push("(recall a session id to see its episode in full)");
  return [...ranking.notices.map((text) => `Notice: ${text}`), ...lines].join("\n");
}

/** Each session group's best passage as a one-line snippet around the query's words (one read per session). */
export function passageSnippets(groups: readonly RecalledGroup[], words: string, width = 240): Map<string, string> {
  const snippets = new Map<string, string>();
  for (const group of groups) {
    if (!group.passage || !group.sessionId) continue;
    const messages = readSessionMessages(group.sessionId);
    const text = messages && sessionDocText(messages, group.passage.id, () => readSession(group.sessionId!));
    if (text !== undefined) snippets.set(group.key, buildSnippet(text, words, width).text);
  }
  return snippets;
}

// Over ASCII, \p{L} is A-Za-z, \p{N} 0-9 and \p{Lu} A-Z: the Unicode classes, which cost a process's
// first ranking about 0.3 ms to compile, are used only for a query outside ASCII (as tokenize.ts does).
const _NOT_ASCII = /[^\x00-\x7f]/;

/** Names and code-like words of the query (capitalised past the first word, or holding a digit or joiner) weigh `weight` (exec and a loop, not match and forEach: a first request's ranking would be those builtins' first calls, each compiled then). */
function _entityWeights(query: string, weight: number): Map<string, number> {
  const weights = new Map<string, number>();
  const unicode = _NOT_ASCII.test(query);
  const pattern = unicode ? /[\p{L}\p{N}_./:-]+/gu : /[A-Za-z0-9_./:-]+/g;
  const capital = unicode ? /^\p{Lu}/u : /^[A-Z]/;
  for (let found = pattern.exec(query), i = 0; found !== null; found = pattern.exec(query), i++) {
    const word = found[0];
    if ((i > 0 && capital.test(word)) || /\d|[_./:-]\w/.test(word)) for (const term of tokenizeQuery(word)) weights.set(term, weight);
  }
  return weights;
}

function _memoryItem(hit: IndexHit, notes: Map<string, ScopedMemoryEntry>): _Item {
  if (hit.segment !== EPISODE_SEGMENT) {
    const note = notes.get(hit.id)!;
    return { source: "note", group: `note:${hit.id}`, id: hit.id, score: hit.score, at: note.createdAt, data: undefined };
  }
  return new _EpisodeItem(hit);
}

type _CardFields = { sessionId: string; at: string };

// A hit's item is a class whose lazy members are on its prototype: a search makes hundreds of items
// on the way to a first request, and an object literal's getters are new closures each, about 300
// bytes an item more: what tipped a `recall` turn at 5,000 sessions into its first garbage
// collection (docs/memory.md; `bun run bench:scale` counts them).

/** An episode's or a digest's item: the ranking reads the card's session alone (a digest's month is its id's tail), its date for a tie or a window; the whole card is decoded for a group shown. */
class _EpisodeItem implements _Item {
  readonly source = "episode" as const;
  readonly group: string;
  readonly id: string;
  readonly score: number;
  readonly #hit: IndexHit;
  #at: string | undefined;

  constructor(hit: IndexHit) {
    this.#hit = hit;
    this.id = hit.id;
    this.score = hit.score;
    const month = this.id.startsWith(DIGEST_ID_PREFIX) ? this.id.slice(DIGEST_ID_PREFIX.length) : undefined;
    this.#at = month;
    this.group = month !== undefined ? _DIGEST_GROUP + month : SESSION_PREFIX + this.#field("sessionId");
  }

  get at(): string {
    return (this.#at ??= this.#field("at"));
  }

  get data(): unknown {
    return this.#hit.data;
  }

  #field(key: keyof _CardFields): string {
    const hit = this.#hit;
    return (hit.field ? hit.field(key) : (hit.data as _CardFields)[key]) as string;
  }
}

/** A passage's item: its id, its time (read alone from its card, once) and its card are read when first asked for: grouping needs the session and the score, a tie the time. */
class _PassageItem implements _Item {
  readonly source = "passage" as const;
  readonly group: string;
  readonly segment: string;
  readonly score: number;
  readonly #hit: IndexHit;
  #at: string | undefined;

  constructor(hit: IndexHit) {
    this.#hit = hit;
    this.group = hit.segment;
    this.segment = hit.segment;
    this.score = hit.score;
  }

  get id(): string {
    return this.#hit.id;
  }

  get at(): string {
    const hit = this.#hit;
    return (this.#at ??= (hit.field ? hit.field("at") : (hit.data as TranscriptCard).at) as string);
  }

  get data(): unknown {
    return this.#hit.data;
  }
}
const _DIGEST_GROUP = "digest:";

/** A session's group: its time (its episode's card's, else its items' newest) and its episode's card read when first asked for; a class, as the items are (above). */
class _SessionGroup implements RecalledGroup {
  readonly kind = "session" as const;
  readonly key: string;
  readonly score: number;
  readonly episodeId?: string;
  readonly passage?: { id: string; card: TranscriptCard };
  readonly sessionId: string;
  readonly #group: RankedGroup<_Item>;
  readonly #episode: _Item | undefined;

  constructor(group: RankedGroup<_Item>, episode: _Item | undefined, passage: _Item | undefined) {
    this.key = group.key;
    this.score = group.score;
    this.#group = group;
    this.#episode = episode;
    if (episode) this.episodeId = episode.id;
    if (passage) this.passage = { id: passage.id, card: passage.data as TranscriptCard };
    this.sessionId = group.key.slice(SESSION_PREFIX.length);
  }

  get at(): string {
    return this.#episode ? this.#episode.at : this.#group.at;
  }

  get card(): EpisodeCard | undefined {
    return this.#episode?.data as EpisodeCard | undefined;
  }
}

/** `group` with its card: the episode item's, decoded when first read. */
function _withCard(group: RecalledGroup, episode: _Item): RecalledGroup {
  return Object.defineProperty(group, "card", { enumerable: true, get: () => episode.data as EpisodeCard });
}

function _role(card: TranscriptCard): string {
  return card.tool ? `${card.role} ${card.tool}` : card.role;
}

/** True when the snippet's text (ellipses aside) is already in the episode's ask. */
function _shownIn(snippet: string, ask: string): boolean {
  const core = snippet.replace(/^…|…$/g, "").trim();
  const shown = ask.replace(/…$/, "");
  return core.length > 0 && (shown.includes(core) || core.startsWith(shown));
}
