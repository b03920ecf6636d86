/**
 * Manual compaction and its undo, on a whole session record (`shiro sessions compact|uncompact`,
 * and `/compact`, `/uncompact` in the REPL). Compaction replaces the transcript with the model's
 * summary and archives the replaced messages in the session (never destroyed); uncompaction puts
 * the full history back on the wire for the next step when it fits.
 */
import type { Message } from "../messages.ts";
import { readCompactionState } from "./context/manager.ts";
import { uncompact, type CompactionState } from "../context-state/state.ts";
import { applyManualCompaction, buildManualCompactRequest, parseSummary } from "../context-state/span-summaries.ts";
import type { CompleteFn } from "../providers/complete.ts";

export interface CompactableSession {
  messages: Message[];
  compaction?: unknown;
}

export type CompactOutcome = { changed: false; message: string } | { changed: true; before: number; after: number; message: string };

/** Asks the model for a summary and applies it. The session is untouched when the call fails or returns nothing. */
export async function compactSession(session: CompactableSession, complete: CompleteFn, focus?: string, signal?: AbortSignal): Promise<CompactOutcome> {
  if (session.messages.length === 0) return { changed: false, message: "nothing to compact: the session has no messages" };
  const request = buildManualCompactRequest(session.messages, focus);
  const summary = parseSummary(await complete(request.system, request.prompt, signal));
  if (!summary) return { changed: false, message: "the model returned an empty summary, so the session was left as it was" };
  const before = session.messages.length;
  const result = applyManualCompaction(session.messages, readCompactionState(session), summary, focus);
  session.messages = result.messages;
  session.compaction = result.state;
  return { changed: true, before, after: result.messages.length, message: `compacted ${before} messages into ${result.messages.length}` };
}

/**
 * Undoes compaction. After a manual compaction whose summary still opens the transcript, the
 * archived messages come back in its place; automatic spans are marked uncompacted so the next
 * step sends the full history if it fits (and recompacts with the same summaries if not).
 */
export function uncompactSession(session: CompactableSession): { changed: boolean; message: string } {
  const state: CompactionState = readCompactionState(session);
  const archive = state.archive ?? [];
  const latest = archive[archive.length - 1];
  const first = session.messages[0];
  if (latest && first?.role === "user" && first.content === `Summary of the session so far:\n\n${latest.summary}`) {
    session.messages = [...latest.messages, ...session.messages.slice(1)];
    session.compaction = { ...state, spans: [], archive: archive.slice(0, -1) };
    return { changed: true, message: `restored ${latest.messages.length} messages replaced by the compaction of ${latest.at}` };
  }
  if (state.spans.length === 0) return { changed: false, message: "nothing to uncompact: no history has left the wire" };
  session.compaction = uncompact(state);
  return { changed: true, message: `the full history (${session.messages.length} messages) goes back on the wire at the next step, if it fits` };
}
