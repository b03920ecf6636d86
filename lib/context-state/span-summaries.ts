/**
 * Episodes: what the model is asked to write when history leaves the wire, and the search over
 * the verbatim history behind those summaries.
 *
 * - A span summary (automatic compaction) is budgeted and sectioned so the agent can carry on
 *   from it: goal, decisions, files, commands, dead ends, open questions.
 * - A manual compaction (`/compact`, `shiro sessions compact`) replaces the whole transcript with
 *   one summary message; the replaced transcript is archived in the compaction state, verbatim.
 * - The ledger is everything off the wire: messages inside compacted spans and archived
 *   transcripts. searchLedger returns verbatim excerpts of it, for recall_discarded.
 */
import type { Message } from "../messages.ts";
import { redactText } from "../secrets/redact.ts";
import { listOffWireSegments, type CompactionState } from "./state.ts";
import spanSystem from "../agent/prompts/span-summary-system.md" with { type: "text" };
import spanInstructions from "../agent/prompts/span-summary.md" with { type: "text" };
import compactSystem from "../agent/prompts/compact-system.md" with { type: "text" };
import compactInstructions from "../agent/prompts/compact.md" with { type: "text" };

export interface SummaryRequest {
  system: string;
  prompt: string;
}

export interface SpanSummaryOptions {
  /** Upper bound for the summary, in tokens. Default 1200. */
  budgetTokens?: number;
  /** What the summary should pay most attention to. */
  focus?: string;
  /**
   * Summaries of earlier spans that this summary replaces (a roll-up): the new summary must
   * carry what still matters from them, since they leave the wire with it.
   */
  earlier?: string[];
}

/** Characters of rendered history a summary request carries at most (about 15k tokens). */
export const SUMMARY_PROMPT_CAP = 60_000;
const _CALL_ARGS_CAP = 300;
const _RESULT_CAP = 1_500;
const _TEXT_CAP = 4_000;

const _SPAN_SYSTEM = spanSystem.trimEnd();
const _MANUAL_SYSTEM = compactSystem.trimEnd();

/** The request asking for a budgeted summary of `span` (the messages that left the wire). */
export function buildSpanSummaryRequest(span: Message[], options: SpanSummaryOptions = {}): SummaryRequest {
  const budget = options.budgetTokens ?? 1200;
  const prompt = [
    spanInstructions.trimEnd().replace("{budget}", String(budget)),
    ...(options.focus?.trim() ? [`Pay most attention to: ${options.focus.trim()}`] : []),
    ...(options.earlier && options.earlier.length > 0
      ? [
          "The summaries below cover the history before it and are replaced by yours: fold in what still matters from them.",
          `<earlier-summaries>\n${options.earlier.join("\n\n---\n\n")}\n</earlier-summaries>`,
        ]
      : []),
    `<history>\n${renderTranscript(span)}\n</history>`,
  ].join("\n\n");
  return { system: _SPAN_SYSTEM, prompt };
}

/** The request for `/compact`: a summary that replaces the whole transcript. */
export function buildManualCompactRequest(messages: Message[], focus?: string): SummaryRequest {
  const prompt = [
    compactInstructions.trimEnd(),
    ...(focus?.trim() ? [`Pay most attention to: ${focus.trim()}`] : []),
    `<session>\n${renderTranscript(messages)}\n</session>`,
  ].join("\n\n");
  return { system: _MANUAL_SYSTEM, prompt };
}

/** The summary in a model reply, or undefined when the reply is empty. */
export function parseSummary(reply: string): string | undefined {
  const summary = reply.trim();
  return summary === "" ? undefined : summary;
}

export interface ManualCompaction {
  messages: Message[];
  state: CompactionState;
}

/**
 * Replaces the transcript with one user message holding `summary` and archives the replaced
 * messages in the state (spans start over). An empty session is returned unchanged.
 */
export function applyManualCompaction(messages: Message[], state: CompactionState, summary: string, focus?: string, now = new Date()): ManualCompaction {
  if (messages.length === 0) return { messages, state };
  const text = parseSummary(summary);
  if (text === undefined) throw new Error("the summary is empty, so the session was left as it was");
  const entry = { at: now.toISOString(), messages, summary: text, ...(focus?.trim() ? { focus: focus.trim() } : {}) };
  return {
    messages: [{ role: "user", content: `Summary of the session so far:\n\n${text}` }],
    state: { spans: [], archive: [...(state.archive ?? []), entry] },
  };
}

/**
 * One block per message (one per tool result), with tool arguments, results and long texts cut.
 * Past SUMMARY_PROMPT_CAP the middle is left out: the start holds the goal, the end the latest state.
 */
export function renderTranscript(messages: Message[]): string {
  const blocks = messages.flatMap(_renderBlocks);
  const total = blocks.reduce((sum, block) => sum + block.length + 1, 0);
  if (total <= SUMMARY_PROMPT_CAP) return blocks.join("\n");
  const head: string[] = [];
  let headSize = 0;
  while (head.length < blocks.length && headSize + blocks[head.length]!.length + 1 <= SUMMARY_PROMPT_CAP / 3) {
    headSize += blocks[head.length]!.length + 1;
    head.push(blocks[head.length]!);
  }
  const tail: string[] = [];
  let tailSize = 0;
  for (let index = blocks.length - 1; index >= head.length; index--) {
    const size = blocks[index]!.length + 1;
    if (headSize + tailSize + size > SUMMARY_PROMPT_CAP - 100) break;
    tail.unshift(blocks[index]!);
    tailSize += size;
  }
  const omitted = blocks.length - head.length - tail.length;
  return [...head, `[… ${omitted} entries left out to fit the summary request …]`, ...tail].join("\n");
}

function _renderBlocks(message: Message): string[] {
  if (message.role === "user") return [`[user] ${_cut(message.content, _TEXT_CAP)}`];
  if (message.role === "tool") {
    return message.results.map((result) => `[${result.name} ${result.isError ? "error" : "result"}] ${_cut(result.output, _RESULT_CAP)}`);
  }
  const blocks: string[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && part.text.trim()) blocks.push(`[assistant] ${_cut(part.text, _TEXT_CAP)}`);
    if (part.type === "tool-call") blocks.push(`[call] ${part.name}(${_cut(JSON.stringify(part.input) ?? "", _CALL_ARGS_CAP)})`);
  }
  return blocks;
}

/** Redacted whole before the cut, so a key cut short cannot leave its prefix behind. */
function _cut(raw: string, cap: number): string {
  if (raw.length <= cap) return raw;
  const text = redactText(raw).text;
  return text.length <= cap ? text : `${text.slice(0, cap)}… [${text.length - cap} more chars]`;
}

export interface LedgerSearchOptions {
  /** Default 8. */
  maxExcerpts?: number;
  /** Width of each excerpt in characters. Default 400. */
  excerptChars?: number;
}

export interface LedgerExcerpt {
  /** `message 42, read_file result` or `archived transcript 1, message 7, user`. */
  label: string;
  /** Verbatim text around the first term, with `…` where it was cut. */
  text: string;
}

export interface LedgerSearchResult {
  excerpts: LedgerExcerpt[];
  /** Matching entries, shown or not. */
  matches: number;
}

/** formatLedgerResult never returns more than this many characters. */
export const LEDGER_OUTPUT_CAP = 6_000;

/**
 * Searches the history that is off the wire, newest first: messages inside compacted spans, then
 * archived transcripts. An entry (a user message, an assistant message with its calls, or one
 * tool result) matches when it contains every whitespace-separated term, ignoring case.
 * Message numbers count from 1, as in the span summaries' headers.
 */
export function searchLedger(messages: Message[], state: CompactionState, query: string, options: LedgerSearchOptions = {}): LedgerSearchResult {
  const terms = query
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((term) => new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i"));
  const result: LedgerSearchResult = { excerpts: [], matches: 0 };
  if (terms.length === 0) return result;
  const maxExcerpts = options.maxExcerpts ?? 8;
  const width = Math.min(options.excerptChars ?? 400, LEDGER_OUTPUT_CAP - 300);
  let used = 0;
  for (const entry of _ledgerEntries(messages, state)) {
    if (!terms.every((term) => term.test(entry.text))) continue;
    result.matches += 1;
    if (result.excerpts.length >= maxExcerpts) continue;
    const excerpt = { label: entry.label, text: _excerpt(entry.text, terms[0]!, width) };
    const size = _formatExcerpt(excerpt).length + 2;
    if (used + size > LEDGER_OUTPUT_CAP - 100) continue;
    used += size;
    result.excerpts.push(excerpt);
  }
  return result;
}

/** The excerpts as the model reads them, then how many matches were not shown. */
export function formatLedgerResult(result: LedgerSearchResult): string {
  const blocks = result.excerpts.map(_formatExcerpt);
  const hidden = result.matches - result.excerpts.length;
  if (hidden > 0) blocks.push(`${hidden} more ${hidden === 1 ? "match" : "matches"} not shown; add words to the query to narrow it.`);
  return blocks.join("\n\n");
}

function _formatExcerpt(excerpt: LedgerExcerpt): string {
  return `[${excerpt.label}]\n${excerpt.text}`;
}

interface _LedgerEntry {
  label: string;
  text: string;
}

function* _ledgerEntries(messages: Message[], state: CompactionState): Generator<_LedgerEntry> {
  const head = messages[0]?.role === "user" ? 1 : 0;
  const segments = listOffWireSegments(state, messages.length, head);
  for (let s = segments.length - 1; s >= 0; s--) {
    const segment = segments[s]!;
    for (let index = segment.to - 1; index >= segment.from; index--) yield* _entriesOf(messages[index]!, `message ${index + 1}`);
  }
  // The first message leaves the wire with the first span once it is an earlier question (planner.ts).
  if (head === 1 && segments.length > 0 && messages.findLastIndex((message) => message.role === "user") !== 0) yield* _entriesOf(messages[0]!, "message 1");
  const archive = state.archive ?? [];
  for (let a = archive.length - 1; a >= 0; a--) {
    const archived = archive[a]!.messages;
    for (let index = archived.length - 1; index >= 0; index--) {
      yield* _entriesOf(archived[index]!, `archived transcript ${a + 1}, message ${index + 1}`);
    }
  }
}

function* _entriesOf(message: Message, where: string): Generator<_LedgerEntry> {
  if (message.role === "user") {
    yield { label: `${where}, user`, text: message.content };
    return;
  }
  if (message.role === "tool") {
    for (const result of message.results) yield { label: `${where}, ${result.name} ${result.isError ? "error" : "result"}`, text: result.output };
    return;
  }
  const text = message.parts
    .flatMap((part) => (part.type === "text" ? [part.text] : part.type === "tool-call" ? [`${part.name}(${JSON.stringify(part.input)})`] : []))
    .join("\n");
  if (text) yield { label: `${where}, assistant`, text };
}

/** `width` characters of `text` centred on the first match of `term`, redacted before the cut. */
function _excerpt(raw: string, term: RegExp, width: number): string {
  if (raw.length <= width) return raw;
  const text = redactText(raw).text;
  const match = term.exec(text);
  const centre = match ? match.index + Math.floor(match[0].length / 2) : 0;
  const start = Math.max(0, Math.min(centre - Math.floor(width / 2), text.length - width));
  const end = start + width;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
