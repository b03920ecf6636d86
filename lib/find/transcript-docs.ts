/**
 * What of a saved session or a logged run is searchable, as index documents: one per passage
 * (lib/search/passages.ts: a paragraph or a few dialogue turns, at most PASSAGE_MAX characters) of
 * each prompt, answer, tool call and tool result (and, for runs, each error), plus compaction
 * summaries and the transcripts `/compact` archived.
 *
 * Only what was said: a call and result marked `bookkeeping` (a tool declaring `memoryContent:
 * false`, such as recall; a denied call), notices and denials are not documents.
 *
 * Document ids are stable positions, so a document is found again by re-reading its source:
 * - session: `m<i>` (message i; an assistant's text), `m<i>.c<j>` (its j-th tool call),
 *   `m<i>.r<j>` (the j-th result of a tool message), `s<k>` (span k's summary), and
 *   `a<k>.…` for the same inside archive k (`a<k>.sum` its summary);
 * - run: `prompt`, `e<seq>` (the logged event with that seq).
 * A text of more than one passage makes one document per passage, `<id>.p<k>` (k from 0).
 * A document's `data` is its TranscriptCard: enough to filter and label a hit without the source
 * (whether it is a session's or a run's is in its segment's name).
 */
import type { IndexedDocInput } from "../search/bm25-index.ts";
import { splitPassages } from "../search/passages.ts";
import * as v from "valibot";
import { CompactionStateSchema, type CompactionState } from "../context-state/state.ts";
import type { Message } from "../messages.ts";
import type { LoggedEvent, RunSnapshot } from "../store/runs.ts";
import { isRecord } from "../store/quick-check.ts";
import type { SessionRecord } from "../store/session-record.ts";
import type { SessionMessages } from "../store/sessions.ts";

export type TranscriptRole = "prompt" | "answer" | "tool-call" | "tool-result" | "tool-error" | "summary" | "notice" | "error";

export interface TranscriptCard {
  /** When it was said (best known: a session message takes the time of its exchange). */
  at: string;
  /** The folder the session or run worked in. */
  cwd: string;
  role: TranscriptRole;
  /** The tool, for tool documents. */
  tool?: string;
}

export interface TranscriptDoc extends IndexedDocInput {
  data: TranscriptCard;
}

// What of one message is indexed at most: a pasted book is indexed up to here.
const _TEXT_CAP = 400_000;

/**
 * What holds for every document of one session or run, recorded with its source in the index
 * (bm25-index.ts `describe`): the folder they were said in, `{ cwd }`, when they all share one
 * (a session's and a run's always do); undefined otherwise. A search judges a source's folder
 * from it without reading its documents' entries.
 */
export function describeTranscriptSource(docs: readonly IndexedDocInput[]): { cwd: string } | undefined {
  const cwd = (docs[0]?.data as Partial<TranscriptCard> | undefined)?.cwd;
  if (typeof cwd !== "string") return undefined;
  for (const doc of docs) if ((doc.data as Partial<TranscriptCard> | undefined)?.cwd !== cwd) return undefined;
  return { cwd };
}

/** Every searchable document of a session, compaction archives and span summaries included. */
export function sessionDocs(session: SessionRecord): TranscriptDoc[] {
  const state = _compactionOf(session);
  const docs: TranscriptDoc[] = [];
  const base = { cwd: session.cwd };
  state.archive?.forEach((entry, k) => {
    docs.push(..._messageDocs(entry.messages, `a${k}.`, () => entry.at, session.cwd));
    docs.push(..._docs(`a${k}.sum`, entry.summary, { ...base, at: entry.at, role: "summary" }));
  });
  const times = _exchangeTimes(session);
  docs.push(..._messageDocs(session.messages, "", (prompt) => times(prompt), session.cwd));
  state.spans.forEach((span, k) => {
    if (span.summary) docs.push(..._docs(`s${k}`, span.summary, { ...base, at: span.createdAt, role: "summary" }));
  });
  return docs;
}

/**
 * The text of the document `id` of `sessionDocs(session)`, made from its one message (a
 * snippet needs one passage, not the session's every document), read from `messages` (only that
 * message is checked; a call's text also reads the stored results' `bookkeeping` flags); undefined
 * when there is none. Ids of archives and span summaries are looked up among all the documents of
 * `whole()`, the session loaded in full.
 */
export function sessionDocText(messages: SessionMessages, id: string, whole: () => SessionRecord | undefined): string | undefined {
  const parts = /^m(\d+)(?:\.([cr])(\d+))?(?:\.p(\d+))?$/.exec(id);
  if (!parts) {
    const session = whole();
    return session && sessionDocs(session).find((doc) => doc.id === id)?.text;
  }
  const message = messages.at(Number(parts[1]));
  const [kind, at] = [parts[2], Number(parts[3])];
  let text: string | undefined;
  if (message?.role === "user" && !kind) text = message.content;
  else if (message?.role === "assistant" && !kind)
    text = message.parts
      .filter((part) => part.type === "text")
      .map((part) => part.text)
      .join("\n");
  else if (message?.role === "assistant" && kind === "c") {
    const call = message.parts.filter((part) => part.type === "tool-call")[at];
    if (call && !_storedBookkeepingCalls(messages.stored).has(call.id)) text = `${call.name} ${_inputText(call.input)}`;
  } else if (message?.role === "tool" && kind === "r") {
    const result = message.results[at];
    if (result && !result.bookkeeping) text = result.output;
  }
  return text === undefined ? undefined : _passageText(text, parts[4]);
}

/**
 * The text of the document `id` of `runDocs(snapshot, events)`, made from its one event (or the
 * prompt, the only document that reads `snapshot()`): what a snippet needs, without the run's
 * every document. When events share a seq, the last one holding the document gives it, as a
 * lookup among runDocs would.
 */
export function runDocText(events: readonly LoggedEvent[], id: string, snapshot: () => RunSnapshot | undefined): string | undefined {
  const [, base, passage] = /^(.*?)(?:\.p(\d+))?$/.exec(id)!;
  if (base === "prompt") {
    const prompt = snapshot()?.prompt;
    return prompt ? _passageText(prompt, passage) : undefined;
  }
  const bookkeeping = _bookkeepingEvents(events);
  let text: string | undefined;
  for (const event of events) {
    if (`e${event.seq}` !== base || ("id" in event && typeof event.id === "string" && bookkeeping.has(event.id))) continue;
    const found = eventText(event);
    const passageText = found && _passageText(found.text, passage);
    if (passageText !== undefined) text = passageText;
  }
  return text;
}

/** Passage `passage` of `text` as _docs cuts it: the whole text's one passage when `passage` is undefined. */
function _passageText(text: string, passage: string | undefined): string | undefined {
  const passages = splitPassages(text.length > _TEXT_CAP ? text.slice(0, _TEXT_CAP) : text);
  if (passage === undefined) return passages.length === 1 ? passages[0] : undefined;
  return passages.length > 1 ? passages[Number(passage)] : undefined;
}

/** Every searchable document of a run: its prompt and each logged event that carries text. */
export function runDocs(snapshot: RunSnapshot | undefined, events: readonly LoggedEvent[]): TranscriptDoc[] {
  const cwd = snapshot?.cwd ?? _runStartCwd(events);
  const docs: TranscriptDoc[] = [];
  if (snapshot?.prompt) docs.push(..._docs("prompt", snapshot.prompt, { at: snapshot.startedAt, cwd, role: "prompt" }));
  const bookkeeping = _bookkeepingEvents(events);
  for (const event of events) {
    if ("id" in event && typeof event.id === "string" && bookkeeping.has(event.id)) continue;
    const found = eventText(event);
    if (found) docs.push(..._docs(`e${event.seq}`, found.text, { at: event.at, cwd, role: found.role, ...(found.tool ? { tool: found.tool } : {}) }));
  }
  return docs;
}

/** The searchable text of one logged event, or undefined for events that carry none. */
export function eventText(event: LoggedEvent): { text: string; role: TranscriptRole; tool?: string } | undefined {
  switch (event.type) {
    case "message":
      return { text: event.text, role: "answer" };
    case "tool-call":
      return { text: `${event.name} ${_inputText(event.input)}`, role: "tool-call", tool: event.name };
    case "tool-result":
      return { text: event.output, role: "tool-result", tool: event.name };
    case "tool-error":
      return { text: event.error, role: "tool-error", tool: event.name };
    case "error":
      return { text: event.error, role: "error" };
    case "compacted":
      return event.summary ? { text: event.summary, role: "summary" } : undefined;
    default:
      return undefined;
  }
}

function _messageDocs(messages: readonly Message[], prefix: string, timeOf: (promptIndex: number) => string, cwd: string): TranscriptDoc[] {
  const docs: TranscriptDoc[] = [];
  const bookkeeping = _bookkeepingCalls(messages);
  let prompt = -1;
  messages.forEach((message, i) => {
    const id = `${prefix}m${i}`;
    if (message.role === "user") prompt += 1;
    const card = { at: timeOf(Math.max(0, prompt)), cwd };
    if (message.role === "user") docs.push(..._docs(id, message.content, { ...card, role: "prompt" }));
    else if (message.role === "assistant") {
      const text = message.parts
        .filter((part) => part.type === "text")
        .map((part) => part.text)
        .join("\n");
      docs.push(..._docs(id, text, { ...card, role: "answer" }));
      message.parts
        .filter((part) => part.type === "tool-call")
        .forEach((part, j) => {
          if (!bookkeeping.has(part.id))
            docs.push(..._docs(`${id}.c${j}`, `${part.name} ${_inputText(part.input)}`, { ...card, role: "tool-call", tool: part.name }));
        });
    } else {
      message.results.forEach((result, j) => {
        if (!result.bookkeeping)
          docs.push(..._docs(`${id}.r${j}`, result.output, { ...card, role: result.isError ? "tool-error" : "tool-result", tool: result.name }));
      });
    }
  });
  return docs;
}

/** The ids of the calls whose results are bookkeeping (not documents, nor their calls). */
function _bookkeepingCalls(messages: readonly Message[]): Set<string> {
  return new Set(messages.flatMap((message) => (message.role === "tool" ? message.results.filter((r) => r.bookkeeping).map((r) => r.callId) : [])));
}

/** The ids of a run's calls whose results are bookkeeping (not documents, nor their calls). */
function _bookkeepingEvents(events: readonly LoggedEvent[]): Set<string> {
  return new Set(events.flatMap((event) => ((event.type === "tool-result" || event.type === "tool-error") && event.bookkeeping ? [event.id] : [])));
}

/** `_bookkeepingCalls` of messages as stored, unchecked: each tool result whose `bookkeeping` is true and whose `callId` is a string. */
function _storedBookkeepingCalls(stored: readonly unknown[]): Set<string> {
  const calls = new Set<string>();
  for (const message of stored) {
    if (!isRecord(message) || message.role !== "tool" || !Array.isArray(message.results)) continue;
    for (const result of message.results) if (isRecord(result) && result.bookkeeping === true && typeof result.callId === "string") calls.add(result.callId);
  }
  return calls;
}

/** Prompt k took place at exchange k's time; prompts past the exchanges at the session's last save. */
function _exchangeTimes(session: SessionRecord): (prompt: number) => string {
  return (prompt) => session.exchanges[prompt]?.at ?? session.updatedAt;
}

/** The documents of one text: itself when it is one passage, else `<id>.p<k>` per passage; none when blank. */
function _docs(id: string, text: string, data: TranscriptCard): TranscriptDoc[] {
  const passages = splitPassages(text.length > _TEXT_CAP ? text.slice(0, _TEXT_CAP) : text);
  const one = passages.length === 1;
  return passages.map((passage, k) => ({ id: one ? id : `${id}.p${k}`, stamp: `${data.role}:${passage.length}`, text: passage, data }));
}

function _inputText(input: unknown): string {
  if (typeof input === "string") return input;
  if (input && typeof input === "object")
    return Object.values(input)
      .map((value) => (typeof value === "string" ? value : JSON.stringify(value)))
      .join("\n");
  return String(input ?? "");
}

function _runStartCwd(events: readonly LoggedEvent[]): string {
  const start = events.find((event) => event.type === "run-start");
  return start?.type === "run-start" ? start.cwd : "";
}

function _compactionOf(session: SessionRecord): CompactionState {
  const parsed = v.safeParse(CompactionStateSchema, session.compaction);
  return parsed.success ? parsed.output : { spans: [] };
}
