/**
 * One search over everything shiro keeps: session messages (compaction archives included), run
 * events, notes and episodes. Transcripts are ranked through the transcript index
 * (transcript-index.ts), notes and episodes through the project's recall index
 * (store/memory-index.ts); both are BM25 over the same tokeniser, so their scores merge into one
 * ranking (best first; equal scores newest first).
 *
 * Contract:
 * - Each hit names what `shiro sessions show`, `shiro runs show` or `shiro memory show` accepts:
 *   `shortId` is the shortest prefix (8 characters at least) unique among every id that command
 *   resolves (all session files, all run snapshots, this project's notes, the global notes and
 *   its episodes).
 * - `project` keeps transcripts whose folder is the project root or inside it, and that project's
 *   notes and episodes (with the global notes); without it, every transcript and this project's
 *   memory, plus the memory of `moreMemoryRoots` (a memory id is then short among its own
 *   project's: `shiro memory show` takes it in that project). `since` drops what is older.
 * - A run's events repeat its session's messages. When both are searched, a hit found in both
 *   (same role, same text) is shown once: as the run's for tool calls and results (the run log
 *   holds them with their timing), as the session's for prompts, answers and summaries.
 * - Reads only: notes found here do not count a recall hit.
 */
import type { Bm25Index, IndexHit } from "../search/bm25-index.ts";
import { EPISODE_SEGMENT, episodeText, openMemoryIndex } from "../store/memory-index.ts";
import { shortSessionIds } from "../store/short-ids.ts";
import { listMemoryItems } from "./memory-items.ts";
import { buildSnippet, type Snippet } from "./snippet.ts";
import type { TranscriptCard, TranscriptDoc } from "./transcript-docs.ts";
import { RUN_PREFIX, SESSION_PREFIX, openTranscriptIndex, readRunDocs, readSessionDocs } from "./transcript-index.ts";

export const SEARCH_SOURCES = ["sessions", "runs", "memory"] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];
export const SEARCH_DEFAULT_LIMIT = 20;
/** Recall looks at sessions only: each run's messages are also its session's, so runs would repeat them. */
export const RECALL_TRANSCRIPT_SOURCES: ReadonlySet<SearchSource> = new Set(["sessions"]);

export interface SearchRequest {
  query: string;
  sources?: readonly SearchSource[];
  /** A project root: only its transcripts and memory. */
  project?: string;
  /** Whose notes and episodes are searched when `project` is not given. */
  memoryRoot: string;
  /** Other projects whose notes and episodes are searched too (`--all`); the global notes count once. */
  moreMemoryRoots?: readonly string[];
  since?: Date;
  limit?: number;
  onNotice?: (text: string) => void;
}

export interface SearchHit {
  /** The store the id belongs to; `shiro <kind>s show <shortId>` (memory: `shiro memory show`). */
  kind: "session" | "run" | "note" | "episode";
  /** What matched: prompt, answer, tool-call, tool-result, tool-error, summary, notice, error; a note's kind; episode. */
  role: string;
  tool?: string;
  id: string;
  shortId: string;
  at: string;
  /** The folder the session or run worked in; the project root for memory. */
  project: string;
  score: number;
  snippet: Snippet;
}

/** The best hits of every source asked for, best first. */
export function searchEverything(request: SearchRequest): SearchHit[] {
  const sources = new Set<SearchSource>(request.sources && request.sources.length > 0 ? request.sources : SEARCH_SOURCES);
  const limit = request.limit ?? SEARCH_DEFAULT_LIMIT;
  const query = request.query.trim();
  if (!query) return [];
  const hits: SearchHit[] = [];
  if (sources.has("sessions") || sources.has("runs")) {
    const found = describeTranscriptHits(rankTranscripts(openTranscriptIndex({ onNotice: request.onNotice }), request, sources, limit * 2), query);
    hits.push(...(sources.has("sessions") && sources.has("runs") ? _dropRepeats(found) : found).slice(0, limit));
  }
  if (sources.has("memory")) {
    const roots = [...new Set([request.project ?? request.memoryRoot, ...(request.moreMemoryRoots ?? [])])];
    const seen = new Set<string>();
    for (const root of roots) hits.push(..._searchMemory(request, root, limit).filter((hit) => !seen.has(hit.id) && seen.add(hit.id)));
  }
  return hits.sort((a, b) => (Math.abs(b.score - a.score) > 1e-9 ? b.score - a.score : a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, limit);
}

/** Transcript hits of an open index, best first (`runs search` and the recall tool use this too). */
export function rankTranscripts(
  index: Bm25Index,
  request: SearchRequest,
  sources: ReadonlySet<SearchSource>,
  limit: number,
  accept?: (card: TranscriptCard) => boolean,
  skipSession?: string,
): IndexHit[] {
  const since = request.since?.toISOString();
  const root = request.project;
  const filter = (segment: string, _id: string, data: unknown): boolean => {
    const card = data as TranscriptCard;
    if (!sources.has(segment.startsWith(SESSION_PREFIX) ? "sessions" : "runs")) return false;
    if (skipSession && segment === SESSION_PREFIX + skipSession) return false;
    if (since && card.at < since) return false;
    if (root && card.cwd !== root && !card.cwd.startsWith(`${root}/`)) return false;
    return !accept || accept(card);
  };
  const segmentFilter = (segment: string): boolean =>
    sources.has(segment.startsWith(SESSION_PREFIX) ? "sessions" : "runs") && !(skipSession && segment === SESSION_PREFIX + skipSession);
  return index.search(request.query, { limit, segmentFilter, filter, tieBreak: _newerFirst });
}

/** Search results for transcript hits: each source is re-read once, for the snippets. */
export function describeTranscriptHits(found: readonly IndexHit[], query: string): SearchHit[] {
  const texts = new Map<string, Map<string, TranscriptDoc>>();
  const textOf = (hit: IndexHit): string => {
    let docs = texts.get(hit.segment);
    if (!docs) {
      const source = transcriptSourceId(hit.segment);
      const list = hit.segment.startsWith(SESSION_PREFIX) ? readSessionDocs(source).docs : readRunDocs(source);
      docs = new Map(list.map((doc) => [doc.id, doc]));
      texts.set(hit.segment, docs);
    }
    return docs.get(hit.id)?.text ?? "";
  };
  const shortIds = shortSessionIds(found.map((hit) => transcriptSourceId(hit.segment)));
  return found.map((hit, i): SearchHit => {
    const card = hit.data as TranscriptCard;
    const id = transcriptSourceId(hit.segment);
    const kind = hit.segment.startsWith(SESSION_PREFIX) ? "session" : "run";
    return {
      kind,
      role: card.role,
      ...(card.tool ? { tool: card.tool } : {}),
      id,
      shortId: shortIds[i]!,
      at: card.at,
      project: card.cwd,
      score: hit.score,
      snippet: buildSnippet(textOf(hit), query),
    };
  });
}

function _searchMemory(request: SearchRequest, root: string, limit: number): SearchHit[] {
  const items = listMemoryItems(root, request.onNotice);
  const stores = [items.project, items.global];
  const { index, notes, segments } = openMemoryIndex({
    projectRoot: root,
    stores,
    entries: stores.map((store) => items.items.flatMap((item) => (item.kind === "note" && item.note.scope === store.scope ? [item.note] : []))),
    episodes: items.episodes,
    onNotice: request.onNotice,
  });
  const episodes = new Map(items.items.flatMap((item) => (item.kind === "episode" ? [[item.id, item.episode] as const] : [])));
  const since = request.since?.toISOString();
  const timeOf = (segment: string, id: string) => (segment === EPISODE_SEGMENT ? episodes.get(id)?.endedAt : notes.get(id)?.createdAt);
  const filter = (segment: string, id: string): boolean => {
    const at = timeOf(segment, id);
    if (at === undefined || (since && at < since)) return false;
    return segment === EPISODE_SEGMENT || segment === segments.get(id);
  };
  return index.search(request.query, { limit, filter }).map((hit): SearchHit => {
    const note = notes.get(hit.id);
    const episode = episodes.get(hit.id);
    const text = note ? note.text : episodeText(episode!);
    return {
      kind: note ? "note" : "episode",
      role: note ? (note.scope === "global" ? `${note.kind}, global` : note.kind) : "episode",
      id: hit.id,
      shortId: items.shortId(hit.id),
      at: timeOf(hit.segment, hit.id)!,
      project: note?.scope === "global" ? "(global)" : root,
      score: hit.score,
      snippet: buildSnippet(text, request.query),
    };
  });
}

/** Each hit that a session and a run both hold, once (see the module contract). */
function _dropRepeats(hits: readonly SearchHit[]): SearchHit[] {
  const key = (hit: SearchHit) => `${hit.role}\u0000${hit.tool ?? ""}\u0000${hit.snippet.text}`;
  const kinds = new Map<string, Set<string>>();
  for (const hit of hits) kinds.set(key(hit), (kinds.get(key(hit)) ?? new Set()).add(hit.kind));
  return hits.filter((hit) => {
    if (kinds.get(key(hit))!.size < 2) return true;
    return hit.kind === (hit.role.startsWith("tool-") ? "run" : "session");
  });
}

/** The session or run id of a transcript segment. */
export function transcriptSourceId(segment: string): string {
  return segment.slice(segment.startsWith(SESSION_PREFIX) ? SESSION_PREFIX.length : RUN_PREFIX.length);
}

function _newerFirst(a: IndexHit, b: IndexHit): number {
  const at = (hit: IndexHit) => (hit.data as TranscriptCard).at;
  return at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : 0;
}
