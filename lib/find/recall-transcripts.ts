/**
 * The `recall` tool's answer, chosen by what was asked:
 * - words (the default): everything remembered ranked as one (recall-everything.ts): notes,
 *   episodes and digests, and this project's past session passages, grouped per note and session;
 * - a `file`, or a session id as the query: the notes-and-episodes recall (store/memory-recall.ts),
 *   which finds the episodes touching the file or expands the session's episodes;
 * - with config `memory.embeddings`, the notes and episodes ranked by words and meaning
 *   (recallMemoryHybrid), and transcripts listed after them when `kinds` holds `transcript`:
 *   the one-scale ranking is lexical only.
 */
import { TRANSCRIPT_KIND, recallMemory, type RecallContext, type RecallKind, type RecallRequest } from "../store/memory-recall.ts";
import { escapeMemoryText } from "../store/memory-escape.ts";
import { recallEverything } from "./recall-everything.ts";
import { describeTranscriptHits, rankTranscripts, RECALL_TRANSCRIPT_SOURCES } from "./search.ts";
import { openTranscriptIndex } from "./transcript-index.ts";

export type RecallToolKind = RecallKind | typeof TRANSCRIPT_KIND;
export type RecallToolRequest = Omit<RecallRequest, "kinds"> & { kinds?: readonly RecallToolKind[] };

const _DEFAULT_LIMIT = 8;
const _SESSION_ID = /^[0-9a-f]{8}(?:-[0-9a-f-]{0,28})?$/i;

/** `recall` answers `request` (see the module contract); `hybrid` is the words-and-meaning recall when embeddings are configured. */
export async function recallWithTranscripts(
  request: RecallToolRequest,
  context: RecallContext,
  currentSession: string | undefined,
  hybrid?: (request: RecallRequest) => Promise<string>,
): Promise<string> {
  const query = request.query.trim();
  const kinds = request.kinds ?? [];
  const memoryKinds = kinds.filter((kind): kind is RecallKind => kind !== TRANSCRIPT_KIND);
  if (request.file || !query || _SESSION_ID.test(query)) {
    if (!kinds.includes(TRANSCRIPT_KIND) || request.file) return recallMemory(context, { ...request, kinds: memoryKinds });
    if (memoryKinds.length === 0 && !_SESSION_ID.test(query)) return "A transcript search needs words in query.";
    return recallMemory(context, { ...request, kinds: memoryKinds });
  }
  if (!hybrid) return recallEverything({ ...context, ...(currentSession ? { currentSession } : {}) }, request);
  const parts: string[] = [];
  if (memoryKinds.length > 0 || !kinds.includes(TRANSCRIPT_KIND)) parts.push(await hybrid({ ...request, kinds: memoryKinds }));
  if (kinds.includes(TRANSCRIPT_KIND)) parts.push(recallTranscriptLines(query, context.projectRoot, request.limit ?? _DEFAULT_LIMIT, currentSession));
  return parts.join("\n");
}

/** The best transcript matches of the project (the session asking left out), one line each, or a line saying there were none. */
export function recallTranscriptLines(query: string, projectRoot: string, limit: number, currentSession?: string): string {
  const notices: string[] = [];
  const index = openTranscriptIndex({ onNotice: (text) => notices.push(`Notice: ${text}`) });
  const hits = describeTranscriptHits(
    rankTranscripts(index, { query, project: projectRoot, memoryRoot: projectRoot }, RECALL_TRANSCRIPT_SOURCES, limit, undefined, currentSession),
    query,
  );
  // Tool names (an MCP server's) and the passage are foreign text: the whole line is escaped.
  const lines = hits.map((hit) =>
    escapeMemoryText(`transcript ${hit.kind} ${hit.shortId} ${hit.at.slice(0, 10)} ${hit.tool ? `${hit.role} ${hit.tool}` : hit.role}: ${hit.snippet.text}`),
  );
  return [...notices, ...(lines.length > 0 ? lines : [`No transcript mentions "${query}".`])].join("\n");
}
