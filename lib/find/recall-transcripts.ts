/**
 * The `recall` tool's reach into past transcripts: with `kinds` holding `transcript`, recall also
 * searches this project's saved sessions and logged runs (the transcript index, search.ts) and
 * lists the best matches after whatever the notes and episodes gave, one line each:
 *   `transcript session 0193ab2c 2026-11-28 tool-result bash: …the matched text…`
 * Without `transcript` in `kinds`, recall is exactly the notes-and-episodes recall.
 */
import { TRANSCRIPT_KIND, type RecallKind, type RecallRequest } from "../store/memory-recall.ts";
import { describeTranscriptHits, rankTranscripts, RECALL_TRANSCRIPT_SOURCES } from "./search.ts";
import { openTranscriptIndex } from "./transcript-index.ts";

export type RecallToolKind = RecallKind | typeof TRANSCRIPT_KIND;
export type RecallToolRequest = Omit<RecallRequest, "kinds"> & { kinds?: readonly RecallToolKind[] };

const _DEFAULT_LIMIT = 8;

/** `recall` answers `request`, adding transcript lines when asked for them. */
export async function recallWithTranscripts(
  request: RecallToolRequest,
  projectRoot: string,
  currentSession: string | undefined,
  recall: (request: RecallRequest) => string | Promise<string>,
): Promise<string> {
  const kinds = request.kinds ?? [];
  if (!kinds.includes(TRANSCRIPT_KIND)) return recall(request as RecallRequest);
  const others = kinds.filter((kind): kind is RecallKind => kind !== TRANSCRIPT_KIND);
  const parts: string[] = [];
  if (others.length > 0 || request.file) parts.push(await recall({ ...request, kinds: others }));
  const query = request.query.trim();
  if (query && !/^[0-9a-f]{8}(?:-[0-9a-f-]{0,28})?$/i.test(query))
    parts.push(recallTranscriptLines(query, projectRoot, request.limit ?? _DEFAULT_LIMIT, currentSession));
  return parts.join("\n") || "A transcript search needs words in query.";
}

/** The best transcript matches of the project (the session asking left out), one line each, or a line saying there were none. */
export function recallTranscriptLines(query: string, projectRoot: string, limit: number, currentSession?: string): string {
  const notices: string[] = [];
  const index = openTranscriptIndex({ onNotice: (text) => notices.push(`Notice: ${text}`) });
  const hits = describeTranscriptHits(
    rankTranscripts(index, { query, project: projectRoot, memoryRoot: projectRoot }, RECALL_TRANSCRIPT_SOURCES, limit, undefined, currentSession),
    query,
  );
  const lines = hits.map(
    (hit) => `transcript ${hit.kind} ${hit.shortId} ${hit.at.slice(0, 10)} ${hit.tool ? `${hit.role} ${hit.tool}` : hit.role}: ${hit.snippet.text}`,
  );
  return [...notices, ...(lines.length > 0 ? lines : [`No transcript mentions "${query}".`])].join("\n");
}
