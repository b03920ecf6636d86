/**
 * What an export shows, whatever its format: a session or a run as a title, metadata rows, the
 * task list and the transcript as entries (prompts, answers, tool calls with their results, notices,
 * and compaction blocks holding the messages they replaced with their summary).
 *
 * Contract: `loadExportDoc` resolves a full id or unique prefix against saved sessions and logged
 * runs (a prefix naming one of each is ambiguous), and every string of the result has passed
 * through the redactor (secrets/redact.ts `redactValue`); `loadExportRecord` is the stored record
 * itself (session file, or run snapshot and events), redacted the same way, for `--format json`.
 */
import { UserError } from "../platform/errors.ts";
import { paths } from "../platform/paths.ts";
import { redactText, redactValue } from "../secrets/redact.ts";
import type { Todo } from "../notebook.ts";
import { findRun, readRunEvents, type LoggedEvent, type RunSnapshot } from "../store/runs.ts";
import { storedIds } from "../store/short-ids.ts";
import { findSession } from "../store/sessions.ts";
import type { SessionRecord } from "../store/session-record.ts";
import { sessionEntries, runEntries, type ExportEntry } from "./export-entries.ts";

export type { ExportEntry } from "./export-entries.ts";

export interface ExportDoc {
  kind: "session" | "run";
  id: string;
  title: string;
  meta: [string, string][];
  todos: Todo[];
  entries: ExportEntry[];
}

export type ExportRecord = { kind: "session"; session: SessionRecord } | { kind: "run"; run: RunSnapshot; events: LoggedEvent[] };

/** The stored record an id or unique prefix names, redacted. */
export function loadExportRecord(idOrPrefix: string): ExportRecord {
  const wanted = idOrPrefix.trim().toLowerCase();
  if (!/^[0-9a-f-]+$/.test(wanted)) throw new UserError(`no session or run matching "${idOrPrefix}"; shiro sessions and shiro runs list their ids`);
  const sessions = storedIds(paths.sessionsDir(), ".json").filter((id) => id.startsWith(wanted));
  const runs = storedIds(paths.runsDir(), ".json").filter((id) => id.startsWith(wanted));
  const exactSession = sessions.includes(wanted);
  const exactRun = runs.includes(wanted);
  if (sessions.length > 0 && runs.length > 0 && !exactSession && !exactRun) {
    throw new UserError(`"${idOrPrefix}" matches a session and a run; give more characters`);
  }
  if (exactSession || (sessions.length > 0 && !exactRun)) return redactValue({ kind: "session", session: findSession(exactSession ? wanted : idOrPrefix) });
  if (runs.length === 0) throw new UserError(`no session or run matching "${idOrPrefix}"; shiro sessions and shiro runs list their ids`);
  const run = findRun(exactRun ? wanted : idOrPrefix);
  return redactValue({ kind: "run", run, events: readRunEvents(run.id).events });
}

/** The export view of a record (already redacted by loadExportRecord; redacted again here for any other caller). */
export function buildExportDoc(record: ExportRecord): ExportDoc {
  return redactValue(record.kind === "session" ? _sessionDoc(record.session) : _runDoc(record.run, record.events));
}

export function loadExportDoc(idOrPrefix: string): ExportDoc {
  return buildExportDoc(loadExportRecord(idOrPrefix));
}

function _sessionDoc(session: SessionRecord): ExportDoc {
  return {
    kind: "session",
    id: session.id,
    title: session.title,
    meta: [
      ["session", session.id],
      ["directory", session.cwd],
      ["model", `${session.provider}/${session.model}`],
      ["created", session.createdAt],
      ["updated", session.updatedAt],
      ["duration", _duration(session.createdAt, session.updatedAt)],
      ["tokens", `${session.inputTokens} in, ${session.outputTokens} out`],
      ["cost", session.costUsd === undefined ? "not priced" : `$${session.costUsd.toFixed(4)}`],
      ["exchanges", String(session.exchanges.length)],
    ],
    todos: session.notebook.todos,
    entries: sessionEntries(session),
  };
}

function _runDoc(run: RunSnapshot, events: readonly LoggedEvent[]): ExportDoc {
  const todos = [...events].reverse().find((event) => event.type === "state" && event.todos);
  return {
    kind: "run",
    id: run.id,
    title: redactText(run.prompt).text.replace(/\s+/g, " ").slice(0, 80) || "run",
    meta: [
      ["run", run.id],
      ["session", run.sessionId],
      ["status", run.status],
      ["directory", run.cwd],
      ["model", `${run.provider}/${run.model} (${run.protocol})`],
      ["agent", run.agent],
      ["started", run.startedAt],
      ["duration", run.endedAt ? _duration(run.startedAt, run.endedAt) : "-"],
      ["steps", String(run.steps)],
      ["tokens", run.usage ? `${run.usage.inputTokens} in, ${run.usage.outputTokens} out` : "-"],
      ["cost", run.costUsd === undefined ? "not priced" : `$${run.costUsd.toFixed(4)}`],
    ],
    todos: todos?.type === "state" ? (todos.todos ?? []) : [],
    entries: runEntries(run, events),
  };
}

/** `2m 05s`, `1h 02m`, `850ms`. */
function _duration(from: string, to: string): string {
  const ms = Date.parse(to) - Date.parse(from);
  if (!(ms >= 0)) return "-";
  if (ms < 1000) return `${ms}ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, "0")}m`;
}
