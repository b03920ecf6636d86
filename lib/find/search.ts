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
import { EPISODE_SEGMENT, episodeText, openMemoryIndex, type EpisodeCard } from "../store/memory-index.ts";
import { listSessionAndRunNames, shortSessionIds, shortSessionIdsAmong } from "../store/short-ids.ts";
import { listMemoryItems } from "./memory-items.ts";
import { buildSnippet, type Snippet } from "./snippet.ts";
import { runDocText, sessionDocText, type TranscriptCard } from "./transcript-docs.ts";
import { RUN_PREFIX, SESSION_PREFIX, openTranscriptIndex, readSession } from "./transcript-index.ts";
import { loadRun, readRunEvents, type LoggedEvent, type RunSnapshot } from "../store/runs.ts";
import { readSessionMessages, type SessionMessages } from "../store/sessions.ts";

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

/**
 * The best hits of every source asked for, best first. Ranked from the indexes alone; what only a
 * source holds (a transcript's text for its snippet, an episode's, the short ids) is read for the
 * hits kept: transcript snippets for the candidates of each source (a repeat is told by its
 * snippet), memory snippets and every short id only for the hits returned.
 */
export async function searchEverything(request: SearchRequest): Promise<SearchHit[]> {
  // The folders the transcript hits' short ids are made among are listed while the ranking runs.
  const names = _searchesTranscripts(request) ? listSessionAndRunNames() : [];
  const shown = _rankEverything(request);
  const transcripts = shown.filter(_isTranscript);
  const shortIds = shortSessionIdsAmong(
    transcripts.map((hit) => hit.id),
    await names,
  );
  return _finish(shown, new Map(shortIds.map((short, at) => [transcripts[at]!, short])));
}

function _sources(request: SearchRequest): Set<SearchSource> {
  return new Set<SearchSource>(request.sources && request.sources.length > 0 ? request.sources : SEARCH_SOURCES);
}

function _searchesTranscripts(request: SearchRequest): boolean {
  const sources = _sources(request);
  return request.query.trim() !== "" && (sources.has("sessions") || sources.has("runs"));
}

function _rankEverything(request: SearchRequest): _Draft[] {
  const sources = _sources(request);
  const limit = request.limit ?? SEARCH_DEFAULT_LIMIT;
  const query = request.query.trim();
  if (!query) return [];
  const drafts: _Draft[] = [];
  if (sources.has("sessions") || sources.has("runs")) {
    const found = _transcriptDrafts(rankTranscripts(openTranscriptIndex({ onNotice: request.onNotice }), request, sources, limit * 2), query);
    drafts.push(...(sources.has("sessions") && sources.has("runs") ? _dropRepeats(found) : found).slice(0, limit));
  }
  if (sources.has("memory")) {
    const roots = [...new Set([request.project ?? request.memoryRoot, ...(request.moreMemoryRoots ?? [])])];
    const seen = new Set<string>();
    for (const root of roots) drafts.push(..._searchMemory(request, root, limit).filter((hit) => !seen.has(hit.id) && seen.add(hit.id)));
  }
  return drafts.sort((a, b) => (Math.abs(b.score - a.score) > 1e-9 ? b.score - a.score : a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, limit);
}

/** The hits returned: snippets and memory short ids made now, transcript short ids from `shortIds`. */
function _finish(shown: readonly _Draft[], shortIds: ReadonlyMap<_Draft, string>): SearchHit[] {
  return shown.map((draft) => {
    const done = draft.finish();
    return _hit(draft, shortIds.get(draft) ?? done.shortId, done.snippet);
  });
}

const _isTranscript = (hit: _Draft) => hit.kind === "session" || hit.kind === "run";

function _hit(draft: _Draft, shortId: string, snippet: Snippet): SearchHit {
  const { kind, role, tool, id, at, project, score } = draft;
  return { kind, role, ...(tool ? { tool } : {}), id, shortId, at, project, score, snippet };
}

/** A hit ranked, its snippet (when not made yet) and its memory short id made by `finish`, for a hit returned. */
type _Draft = Omit<SearchHit, "shortId" | "snippet"> & { snippet?: Snippet; finish: () => { snippet: Snippet; shortId: string } };

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
  const only = sources.has("sessions") === sources.has("runs") ? undefined : sources.has("sessions") ? SESSION_PREFIX : RUN_PREFIX;
  return index.search(request.query, { limit, segmentFilter, filter, tieBreak: _newerFirst, ...(only ? { segmentPrefix: only } : {}) });
}

/** Search results for transcript hits: each source is re-read once, for the snippets. */
export function describeTranscriptHits(found: readonly IndexHit[], query: string): SearchHit[] {
  const drafts = _transcriptDrafts(found, query);
  const shortIds = shortSessionIds(drafts.map((hit) => hit.id));
  return drafts.map((draft, i) => _hit(draft, shortIds[i]!, draft.finish().snippet));
}

/** Transcript hits with their snippets (each source re-read once); their short ids are the caller's. */
function _transcriptDrafts(found: readonly IndexHit[], query: string): _Draft[] {
  // Each source read once: a hit's text is made from its own message or event (a run's snapshot is read for its prompt alone).
  const sessions = new Map<string, SessionMessages | undefined>();
  const runs = new Map<string, { events: LoggedEvent[]; snapshot: () => RunSnapshot | undefined }>();
  const textOf = (hit: IndexHit): string => {
    const source = transcriptSourceId(hit.segment);
    if (hit.segment.startsWith(SESSION_PREFIX)) {
      if (!sessions.has(source)) sessions.set(source, readSessionMessages(source));
      const messages = sessions.get(source);
      return (messages && sessionDocText(messages, hit.id, () => readSession(source))) ?? "";
    }
    let run = runs.get(source);
    if (!run) {
      let loaded: { snapshot: RunSnapshot | undefined } | undefined;
      run = { events: readRunEvents(source).events, snapshot: () => (loaded ??= { snapshot: loadRun(source) }).snapshot };
      runs.set(source, run);
    }
    return runDocText(run.events, hit.id, run.snapshot) ?? "";
  };
  return found.map((hit): _Draft => {
    const card = hit.data as TranscriptCard;
    const id = transcriptSourceId(hit.segment);
    const snippet = buildSnippet(textOf(hit), query);
    return {
      kind: hit.segment.startsWith(SESSION_PREFIX) ? "session" : "run",
      role: card.role,
      ...(card.tool ? { tool: card.tool } : {}),
      id,
      at: card.at,
      project: card.cwd,
      score: hit.score,
      snippet,
      finish: () => ({ snippet, shortId: id }),
    };
  });
}

/** The memory hits of one project, ranked from its recall index: notes are read, episodes only for a hit returned. */
function _searchMemory(request: SearchRequest, root: string, limit: number): _Draft[] {
  const items = listMemoryItems(root, request.onNotice);
  const stores = [items.project, items.global];
  const { index, notes, segmentOf } = openMemoryIndex({
    projectRoot: root,
    stores,
    entries: items.notes,
    episodes: items.episodes,
    onNotice: request.onNotice,
  });
  const since = request.since?.toISOString();
  // An episode's time is its card's (the index keeps it); digests are not searched here.
  const timeOf = (segment: string, id: string, data: unknown) => {
    if (segment !== EPISODE_SEGMENT) return notes.get(id)?.createdAt;
    const card = data as EpisodeCard | undefined;
    return card?.kind === "episode" ? card.at : undefined;
  };
  const filter = (segment: string, id: string, data: unknown): boolean => {
    const at = timeOf(segment, id, data);
    if (at === undefined || (since && at < since)) return false;
    return segment === EPISODE_SEGMENT || segment === segmentOf(id);
  };
  return index.search(request.query, { limit, filter }).map((hit): _Draft => {
    const note = notes.get(hit.id);
    return {
      kind: note ? "note" : "episode",
      role: note ? (note.scope === "global" ? `${note.kind}, global` : note.kind) : "episode",
      id: hit.id,
      at: timeOf(hit.segment, hit.id, hit.data)!,
      project: note?.scope === "global" ? "(global)" : root,
      score: hit.score,
      finish: () => {
        const episode = note ? undefined : items.episode(hit.id);
        return { snippet: buildSnippet(note ? note.text : episode ? episodeText(episode) : "", request.query), shortId: items.shortId(hit.id, index) };
      },
    };
  });
}

/** Each hit that a session and a run both hold, once (see the module contract). */
function _dropRepeats(hits: readonly _Draft[]): _Draft[] {
  const key = (hit: _Draft) => `${hit.role}\u0000${hit.tool ?? ""}\u0000${hit.snippet!.text}`;
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
