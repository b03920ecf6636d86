/**
 * The session record: its shape (validated on load), the exchange log, titles, one-line
 * summaries, and the history a resumed run sends. In memory only; lib/store/sessions.ts reads,
 * lists and writes the files.
 */
import * as v from "valibot";
import type { StopKind } from "../events.ts";
import { uuidv7 } from "../platform/ids.ts";
import type { Message } from "../messages.ts";
import { NotebookSchema, type Notebook } from "../notebook.ts";
import { messageSchema } from "./session-schema.ts";
import { isRecord } from "./quick-check.ts";
import { redactText } from "../secrets/redact.ts";

export const EXCHANGE_STATUSES = ["completed", "error", "aborted", "blocked", "max-steps", "max-cost"] as const satisfies readonly StopKind[];
export const UNTITLED = "untitled";
const _TITLE_CAP = 60;

/** One compact record per turn: what was asked, what came back, how the run ended. */
export interface Exchange {
  query: string;
  answer: string;
  status: StopKind;
  steps: number;
  /** e.g. `read_file×3, bash×1`. */
  toolsSummary?: string;
  runId: string;
  at: string;
}

export interface SessionRecord {
  version: 1;
  id: string;
  createdAt: string;
  updatedAt: string;
  cwd: string;
  provider: string;
  model: string;
  title: string;
  inputTokens: number;
  outputTokens: number;
  /** Absent while no priced usage was recorded. */
  costUsd?: number;
  /** The subagents' share of the totals above; absent while none ran. */
  subagents?: { inputTokens: number; outputTokens: number; costUsd?: number };
  notebook: Notebook;
  exchanges: Exchange[];
  messages: Message[];
  compaction?: unknown;
}

/** What a listing shows; reading it costs one parse, no more. */
export interface SessionSummary extends Pick<SessionRecord, "id" | "createdAt" | "updatedAt" | "cwd" | "provider" | "model" | "title"> {
  messageCount: number;
  exchangeCount: number;
}

export interface LiveSession {
  id: string;
  pid: number;
  since: string;
}

const _ID_PATTERN = /^[0-9a-f-]+$/;

function _buildSession(): v.GenericSchema<unknown, SessionRecord> {
  const exchange = v.object({
    query: v.string(),
    answer: v.string(),
    status: v.picklist(EXCHANGE_STATUSES),
    steps: v.pipe(v.number(), v.integer(), v.minValue(0)),
    toolsSummary: v.optional(v.string()),
    runId: v.string(),
    at: v.string(),
  });

  const count = v.pipe(v.number(), v.minValue(0));

  return v.object({
    version: v.literal(1),
    id: v.pipe(v.string(), v.regex(_ID_PATTERN, "must be a session id")),
    createdAt: v.string(),
    updatedAt: v.string(),
    cwd: v.string(),
    provider: v.string(),
    model: v.string(),
    title: v.string(),
    inputTokens: count,
    outputTokens: count,
    costUsd: v.optional(count),
    subagents: v.optional(v.object({ inputTokens: count, outputTokens: count, costUsd: v.optional(count) })),
    notebook: v.optional(NotebookSchema, () => ({ todos: [] })),
    exchanges: v.optional(v.array(exchange), () => []),
    messages: v.array(messageSchema()),
    compaction: v.optional(v.unknown()),
  });
}
let _session: v.GenericSchema<unknown, SessionRecord> | undefined;
/** The session file's schema, built at first read. */
export const sessionSchema = (): v.GenericSchema<unknown, SessionRecord> => (_session ??= _buildSession());

/** What every read of a session file checks, its messages aside: format version 1, the id, and that `messages` is a list (sessions.ts `readSessionMessages`). */
export type SessionShell = { id: string; messages: unknown[] };
let _shell: v.GenericSchema<unknown, SessionShell> | undefined;
export const sessionShellSchema = (): v.GenericSchema<unknown, SessionShell> =>
  (_shell ??= v.looseObject({ version: v.literal(1), id: v.pipe(v.string(), v.regex(_ID_PATTERN)), messages: v.array(v.unknown()) }));

/**
 * The shell's hand check (lib/store/quick-check.ts), for a parsed file that should hold session
 * `id`: what it passes, the schema passes with `id` and these messages, built and run cold on every
 * snippet's session otherwise; what it refuses is left to the schema.
 */
export function isSessionShell(raw: unknown, id: string): raw is SessionShell {
  const shell = raw as Partial<Record<keyof SessionShell | "version", unknown>> | null;
  return isRecord(shell) && shell.version === 1 && shell.id === id && _ID_PATTERN.test(id) && Array.isArray(shell.messages);
}

// ---- records ---------------------------------------------------------------------------------

export interface SessionMeta {
  cwd: string;
  provider: string;
  model: string;
}

/** A new, empty session in memory; nothing is written until its writer saves it. */
export function createSession(meta: SessionMeta, now: Date = new Date()): SessionRecord {
  const at = now.toISOString();
  return {
    version: 1,
    id: uuidv7(now.getTime()),
    createdAt: at,
    updatedAt: at,
    cwd: meta.cwd,
    provider: meta.provider,
    model: meta.model,
    title: UNTITLED,
    inputTokens: 0,
    outputTokens: 0,
    notebook: { todos: [] },
    exchanges: [],
    messages: [],
  };
}

/** The first prompt on one line, redacted, then cut past 60 characters with `...`; `untitled` when there is none. */
export function deriveTitle(prompt: string | undefined): string {
  const line = redactText(prompt ?? "")
    .text.replace(/\s+/g, " ")
    .trim();
  if (!line) return UNTITLED;
  return line.length > _TITLE_CAP ? `${line.slice(0, _TITLE_CAP)}...` : line;
}

export function summarizeSession(session: SessionRecord): SessionSummary {
  return {
    id: session.id,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    cwd: session.cwd,
    provider: session.provider,
    model: session.model,
    title: session.title,
    messageCount: session.messages.length,
    exchangeCount: session.exchanges.length,
  };
}

// ---- exchanges -------------------------------------------------------------------------------

/** Records one finished turn on the session (in memory; mark the writer changed to save it). */
export function appendExchange(session: SessionRecord, exchange: Omit<Exchange, "at"> & { at?: string }): Exchange {
  const record: Exchange = { ...exchange, at: exchange.at ?? new Date().toISOString() };
  session.exchanges.push(record);
  return record;
}

/**
 * The history a resumed run sends. `historyPairs` 0 means the full transcript. Above 0, only the
 * last N exchanges go, each as a plain user message (the query) and assistant message (the
 * answer); a session with no exchanges falls back to its full transcript.
 */
export function historyForResume(session: SessionRecord, historyPairs: number): Message[] {
  if (historyPairs <= 0 || session.exchanges.length === 0) return session.messages;
  const messages: Message[] = [];
  for (const exchange of session.exchanges.slice(-historyPairs)) {
    const answer = exchange.answer.trim() || `(this turn ended as ${exchange.status} before any answer)`;
    messages.push({ role: "user", content: exchange.query });
    messages.push({ role: "assistant", parts: [{ type: "text", text: answer }] });
  }
  return messages;
}

export function firstPrompt(session: SessionRecord): string | undefined {
  const first = session.messages.find((message) => message.role === "user");
  return first?.role === "user" ? first.content : session.exchanges[0]?.query;
}
