/**
 * Search across past runs: every word of the query must appear (case-insensitive) in one logged
 * event — the run's prompt, an assistant message, a tool call's input, a tool's result or error,
 * a notice or an error. Runs are read newest first; hits come back with a short excerpt around the
 * first word. Reads only; a torn or corrupt log line is skipped.
 */
import { readdirSync } from "node:fs";
import { paths } from "../platform/paths.ts";
import { readRunEvents, loadRun, type LoggedEvent } from "./runs.ts";

export interface RunSearchHit {
  runId: string;
  at: string;
  /** `prompt`, or the event type. */
  kind: string;
  /** The tool, for tool events. */
  name?: string;
  excerpt: string;
  cwd?: string;
}

export interface RunSearchOptions {
  /** At most this many hits (default 50). */
  limit?: number;
  /** Look at the newest N runs only (default 500). */
  runs?: number;
  /** Only runs started in this folder. */
  cwd?: string;
  excerptChars?: number;
}

function _textOf(event: LoggedEvent): { text: string; name?: string } | undefined {
  switch (event.type) {
    case "message":
      return { text: event.text };
    case "tool-call":
      return { text: `${event.name} ${JSON.stringify(event.input)}`, name: event.name };
    case "tool-result":
      return { text: event.output, name: event.name };
    case "tool-error":
      return { text: event.error, name: event.name };
    case "tool-denied":
      return { text: `${event.name}: ${event.reason}`, name: event.name };
    case "error":
      return { text: event.error };
    case "notice":
      return { text: event.text };
    case "compacted":
      return event.summary ? { text: event.summary } : undefined;
    default:
      return undefined;
  }
}

function _excerpt(text: string, term: string, width: number): string {
  const flat = text.replace(/\s+/g, " ");
  const at = flat.toLowerCase().indexOf(term);
  const start = Math.max(0, at - Math.floor(width / 3));
  const cut = flat.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${cut}${start + width < flat.length ? "…" : ""}`;
}

export function searchRuns(query: string, options: RunSearchOptions = {}): RunSearchHit[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return [];
  const matches = (text: string) => {
    const lower = text.toLowerCase();
    return terms.every((term) => lower.includes(term));
  };
  let ids: string[];
  try {
    ids = readdirSync(paths.eventsDir()).filter((name) => name.endsWith(".jsonl")).map((name) => name.slice(0, -6));
  } catch {
    return [];
  }
  ids.sort().reverse();
  const limit = options.limit ?? 50;
  const width = options.excerptChars ?? 160;
  const hits: RunSearchHit[] = [];
  for (const runId of ids.slice(0, options.runs ?? 500)) {
    const snapshot = loadRun(runId);
    if (options.cwd && snapshot?.cwd !== options.cwd) continue;
    if (snapshot && matches(snapshot.prompt)) {
      hits.push({ runId, at: snapshot.startedAt, kind: "prompt", excerpt: _excerpt(snapshot.prompt, terms[0]!, width), cwd: snapshot.cwd });
      if (hits.length >= limit) return hits;
    }
    for (const event of readRunEvents(runId).events) {
      const found = _textOf(event);
      if (!found || !matches(found.text)) continue;
      hits.push({ runId, at: event.at, kind: event.type, ...(found.name ? { name: found.name } : {}), excerpt: _excerpt(found.text, terms[0]!, width), ...(snapshot ? { cwd: snapshot.cwd } : {}) });
      if (hits.length >= limit) return hits;
    }
  }
  return hits;
}
