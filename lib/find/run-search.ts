/**
 * `shiro runs search`: past runs whose prompt or one logged event (an assistant message, a tool
 * call's input, a tool's result or error, a notice, an error, a compaction summary) holds every
 * word of the query, found through the transcript index (transcript-index.ts) rather than by
 * reading every log. Words match as the tokeniser splits them (`cache` finds `flaky-cache-key`).
 * Hits come newest run first, in log order within a run, each with an excerpt around a match.
 */
import { tokenizeQuery } from "../search/tokenize.ts";
import type { IndexHit } from "../search/bm25-index.ts";
import { describeTranscriptHits, rankTranscripts, transcriptSourceId } from "./search.ts";
import type { TranscriptCard, TranscriptRole } from "./transcript-docs.ts";
import { openTranscriptIndex } from "./transcript-index.ts";

export interface RunSearchHit {
  runId: string;
  /** The shortest prefix `shiro runs show` takes. */
  shortId: string;
  at: string;
  /** `prompt`, or the logged event's type. */
  kind: string;
  /** The tool, for tool events. */
  name?: string;
  excerpt: string;
  cwd?: string;
}

export interface RunSearchOptions {
  /** At most this many hits (default 50). */
  limit?: number;
  /** Only runs started in this folder. */
  cwd?: string;
  onNotice?: (text: string) => void;
}

const _EVENT_TYPE: Record<TranscriptRole, string> = {
  prompt: "prompt",
  answer: "message",
  "tool-call": "tool-call",
  "tool-result": "tool-result",
  "tool-error": "tool-error",
  summary: "compacted",
  notice: "notice",
  error: "error",
};

export function searchRuns(query: string, options: RunSearchOptions = {}): RunSearchHit[] {
  const terms = tokenizeQuery(query).length;
  if (terms === 0) return [];
  const index = openTranscriptIndex({ onNotice: options.onNotice });
  const found = rankTranscripts(
    index,
    { query, memoryRoot: "" },
    new Set(["runs"]),
    Math.max(index.size, 1),
    (card) => !options.cwd || card.cwd === options.cwd,
  )
    .filter((hit) => hit.matched === terms)
    .sort(_newestRunInLogOrder)
    .slice(0, options.limit ?? 50);
  return describeTranscriptHits(found, query).map((hit) => ({
    runId: hit.id,
    shortId: hit.shortId,
    at: hit.at,
    kind: _EVENT_TYPE[hit.role as TranscriptRole] ?? hit.role,
    ...(hit.tool ? { name: hit.tool } : {}),
    excerpt: hit.snippet.text,
    ...(hit.project ? { cwd: hit.project } : {}),
  }));
}

/** Runs newest first (ids are UUIDv7); within a run the prompt, then events by seq. */
function _newestRunInLogOrder(a: IndexHit, b: IndexHit): number {
  const runA = transcriptSourceId(a.segment);
  const runB = transcriptSourceId(b.segment);
  if (runA !== runB) return runA < runB ? 1 : -1;
  return _order(a.id) - _order(b.id) || ((a.data as TranscriptCard).at < (b.data as TranscriptCard).at ? -1 : 0);
}

function _order(docId: string): number {
  return docId === "prompt" ? -1 : Number(docId.slice(1));
}
