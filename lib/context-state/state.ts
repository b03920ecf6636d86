/**
 * The compaction record a session keeps (its `compaction` field): which spans of the history
 * left the wire, their summaries, and the transcripts `/compact` replaced.
 *
 * Span indices point into the session's full message array: `from` inclusive, `to` exclusive.
 * Spans are in order and never overlap; each new one starts where the previous one ended. The
 * session keeps every message; spans only say what the wire shows in their place.
 */
import * as v from "valibot";
import type { Message } from "../messages.ts";

const _Index = v.pipe(v.number(), v.integer(), v.minValue(0));

export const CompactionSpanSchema = v.object({
  from: _Index,
  to: _Index,
  /** The model's summary; absent when summarising failed (the wire shows a marker instead). */
  summary: v.optional(v.string()),
  createdAt: v.string(),
  runId: v.optional(v.string()),
});

/** Structural check only: the session store validates messages in depth. */
const _ArchivedMessage = v.custom<Message>(
  (raw) => typeof raw === "object" && raw !== null && ["user", "assistant", "tool"].includes((raw as { role?: unknown }).role as string),
  "must be a message",
);

export const CompactionArchiveEntrySchema = v.object({
  at: v.string(),
  /** The transcript `/compact` replaced, verbatim. */
  messages: v.array(_ArchivedMessage),
  summary: v.string(),
  focus: v.optional(v.string()),
});

export const CompactionStateSchema = v.object({
  spans: v.array(CompactionSpanSchema),
  /** Set by /uncompact: full history goes back on the wire while it fits. */
  uncompactedAt: v.optional(v.string()),
  archive: v.optional(v.array(CompactionArchiveEntrySchema)),
});

export type CompactionSpan = v.InferOutput<typeof CompactionSpanSchema>;
export type CompactionArchiveEntry = v.InferOutput<typeof CompactionArchiveEntrySchema>;
export type CompactionState = v.InferOutput<typeof CompactionStateSchema>;

/** A stretch of history that is off the wire; a gap in a hand-edited record has no summary. */
export interface OffWireSegment {
  from: number;
  to: number;
  summary?: string;
}

export function createCompactionState(): CompactionState {
  return { spans: [] };
}

export interface RecordSpanOptions {
  summary?: string;
  runId?: string;
  now?: Date;
}

/**
 * Records a span `planWire` reported as new, with its summary when the model wrote one. Recording
 * the same span again sets its summary and keeps its creation time. Throws when the span would
 * overlap or precede the last one: only planWire's `newSpan` belongs here.
 */
export function recordSpan(state: CompactionState, span: { from: number; to: number }, options: RecordSpanOptions = {}): CompactionState {
  const existing = state.spans.findIndex((entry) => entry.from === span.from && entry.to === span.to);
  if (existing >= 0) {
    const spans = state.spans.slice();
    spans[existing] = { ...spans[existing]!, ...(options.summary !== undefined ? { summary: options.summary } : {}) };
    return { ...state, spans };
  }
  const last = state.spans[state.spans.length - 1];
  if (span.to <= span.from || (last && span.from < last.to)) {
    throw new Error(`span ${span.from}–${span.to} does not follow the last recorded span`);
  }
  const entry: CompactionSpan = {
    from: span.from,
    to: span.to,
    ...(options.summary !== undefined ? { summary: options.summary } : {}),
    createdAt: (options.now ?? new Date()).toISOString(),
    ...(options.runId !== undefined ? { runId: options.runId } : {}),
  };
  return { ...state, spans: [...state.spans, entry] };
}

/** The next wire plan sends the full history again if it fits, else recompacts with the summaries kept. */
export function uncompact(state: CompactionState, now = new Date()): CompactionState {
  return { ...state, uncompactedAt: now.toISOString() };
}

/** True when /uncompact was used after the newest span was made. */
export function isUncompacted(state: CompactionState): boolean {
  const last = state.spans[state.spans.length - 1];
  return state.uncompactedAt !== undefined && (!last || last.createdAt <= state.uncompactedAt);
}

/**
 * The valid spans of `state` for a history of `length` messages, in order, with any gap between
 * `head` and the last span's end filled by a segment without summary. Spans that overlap an
 * earlier one or reach past the history are ignored.
 */
export function listOffWireSegments(state: CompactionState, length: number, head: number): OffWireSegment[] {
  const segments: OffWireSegment[] = [];
  let end = head;
  let floor = 0;
  for (const span of state.spans) {
    if (span.from < floor || span.to <= span.from || span.to > length) continue;
    if (span.from > end) segments.push({ from: end, to: span.from });
    segments.push(span.summary !== undefined ? { from: span.from, to: span.to, summary: span.summary } : { from: span.from, to: span.to });
    end = floor = span.to;
  }
  return segments;
}
