/**
 * The context manager: decides, once per step, what part of the history goes on the wire.
 *
 * The session keeps every message; this module only chooses a view of them. In order of cost:
 * 1. the whole history, when it fits the threshold (and nothing was compacted, or /uncompact
 *    was used since);
 * 2. the same with reasoning removed, oldest response first, all of a response's reasoning at
 *    once, except the last assistant message's when Anthropic thinking is on (Anthropic wants
 *    the final assistant message of a tool loop to open with its signed thinking block);
 * 3. a recent tail of about 64, 32, 16, 8 or 4 messages (the widest that fits under `compactTo`,
 *    half the threshold by default, else the narrowest), with everything older replaced by one
 *    user message per compacted span: its summary, or a marker pointing at recall_discarded while
 *    it has none. Once a span is recorded it stays off the wire (until /uncompact).
 * Exchanges go whole: a cut before the newest user request falls on a user message, so an earlier
 * question is never on the wire without its answer, nor an answer without its question. The
 * newest user request (the current one) is always on the wire, byte for byte, after every
 * summary and marker. The first user message is never inside a span: while it is the current
 * request it stays on the wire before the spans; once it is an earlier question, it leaves the
 * wire with the first span, whose summary was written with it (`spanSource`) and whose text
 * counts it. Every plan then goes through repairForWire, so any cut is a valid request.
 *
 * Tool calls and results are never dropped from what stays on the wire: a model that cannot see
 * what it already ran runs it again, until the step cap ends the turn.
 */
import type { AssistantMessage, Message, Protocol } from "../../messages.ts";
import { repairForWire } from "./repair.ts";
import { isUncompacted, listOffWireSegments, type CompactionState, type OffWireSegment } from "../../context-state/state.ts";

/** Estimated tokens above which the wire is shortened. */
export const DEFAULT_COMPACTION_THRESHOLD = 120_000;

/** Tail widths tried in step 3, widest first. */
export const TAIL_LADDER = [64, 32, 16, 8, 4] as const;

/** What one attached image counts as, in tokens (its base64 is not counted: providers bill images by size, ~1.6k for a screen-sized one). */
export const IMAGE_TOKEN_ESTIMATE = 1_600;

/**
 * A rough token count: a quarter of the JSON length, an image IMAGE_TOKEN_ESTIMATE. Show it as an
 * estimate, never as a count.
 */
export function estimateTokens(messages: Message[], system = ""): number {
  return Math.round(
    (_arrayLength(
      messages.reduce((sum, message) => sum + _sizeOf(message).full, 0),
      messages.length,
    ) +
      system.length) /
      4,
  );
}

export interface WireOptions {
  /** Estimated tokens (see estimateTokens) the wire should stay under. */
  threshold: number;
  protocol: Protocol;
  /** Anthropic extended thinking is on for this request. */
  thinking: boolean;
  state: CompactionState;
  /** The system prompt; counted in the estimate. */
  system?: string;
  /** False: send the whole history (repaired) whatever its size. */
  auto: boolean;
  /**
   * Estimated tokens the tail is cut down to when a new span leaves the wire (a low-water mark),
   * so the next steps have room before compacting again; without it every step past the
   * threshold would cut a few messages and ask for another summary. Default: half the threshold.
   */
  compactTo?: number;
}

export interface WirePlan {
  /** What to send. */
  messages: Message[];
  /** Length of the session's history. */
  before: number;
  /** Length of the wire. */
  after: number;
  /** Some history is not on the wire as it is: reasoning was removed or spans were replaced. */
  pruned: boolean;
  reasoningDropped: boolean;
  /**
   * A span leaving the wire for the first time. The wire shows a marker for it; summarise
   * `history.slice(from, to)`, record it with recordSpan (with or without a summary), and plan
   * again to send the summary instead.
   */
  newSpan?: { from: number; to: number };
  /** estimateTokens(messages, system) of the wire. */
  estimate: number;
}

export function planWire(messages: Message[], options: WireOptions): WirePlan {
  const system = options.system ?? "";
  if (!options.auto) return _finish(messages, messages, system, { pruned: false, reasoningDropped: false });

  const sizes = _measure(messages, options.protocol === "anthropic" && options.thinking);
  const under = (limit: number) => (sum: number, count: number) => Math.round((_arrayLength(sum, count) + system.length) / 4) <= limit;
  const fits = under(options.threshold);
  const fitsAfterCut = under(options.compactTo ?? Math.floor(options.threshold / 2));
  const n = messages.length;
  const head = messages[0]?.role === "user" ? 1 : 0;
  const pins = _findPins(messages);
  const segments = listOffWireSegments(options.state, n, head);
  const covered = segments.length > 0 ? segments[segments.length - 1]!.to : head;

  if (segments.length === 0 || isUncompacted(options.state)) {
    const whole = _fitRegion(messages, sizes, [], 0, pins, fits);
    if (whole) return _finish(messages, whole.wire, system, { pruned: whole.reasoningDropped, reasoningDropped: whole.reasoningDropped });
  }
  // The first message leaves with the first span once it is an earlier question: that span's text counts it.
  const fold = head === 1 && pins.newest !== 0;
  const render = (segment: OffWireSegment, first: boolean) => _renderSegment(first && fold ? { ...segment, from: 0 } : segment);
  const spanPrefix = segments.map((segment, at) => render(segment, at === 0));
  if (segments.length > 0) {
    const kept = _fitRegion(messages, sizes, spanPrefix, covered, pins, fits);
    if (kept) return _finish(messages, kept.wire, system, { pruned: true, reasoningDropped: kept.reasoningDropped });
  }

  // Every rung's cuts, widest tail first: the first that fits wins, else the narrowest.
  const cuts = [...new Set(TAIL_LADDER.flatMap((width) => _placeCuts(messages, n - width, covered, pins.newest)))].sort((a, b) => a - b);
  let chosen: { cut: number; wire: Message[]; reasoningDropped: boolean } | undefined;
  for (const cut of cuts) {
    const prefix = [...spanPrefix, render({ from: covered, to: cut }, segments.length === 0)];
    const candidate = _assemble(messages, sizes, prefix, cut, pins);
    chosen = { cut, ...candidate };
    if (fitsAfterCut(candidate.sum, candidate.wire.length)) break;
  }
  if (!chosen) {
    const all = _assemble(messages, sizes, spanPrefix, segments.length > 0 ? covered : 0, pins);
    return _finish(messages, all.wire, system, { pruned: segments.length > 0 || all.reasoningDropped, reasoningDropped: all.reasoningDropped });
  }
  return _finish(messages, chosen.wire, system, {
    pruned: true,
    reasoningDropped: chosen.reasoningDropped,
    newSpan: { from: covered, to: chosen.cut },
  });
}

/**
 * The messages a new span's summary is written from: the span, and the first user message when the
 * span starts right after it. That message is never inside a span, but once it is an earlier
 * question it leaves the wire with the first span, so the first summary must carry it.
 */
export function spanSource(messages: Message[], span: { from: number; to: number }): Message[] {
  return messages.slice(span.from === 1 && messages[0]?.role === "user" ? 0 : span.from, span.to);
}

/** The numbers of the `compacted {before, after}` event. */
export function pruneStats(plan: WirePlan): { before: number; after: number } {
  return { before: plan.before, after: plan.after };
}

export function formatCompactedLine(before: number, after: number): string {
  return `context compacted: ${before} messages pruned to ${after} on the wire`;
}

/** The wire text standing in for a segment: its summary, or a marker while it has none. */
export function renderSegmentText(segment: OffWireSegment): string {
  if (segment.summary !== undefined) {
    return `[Summary of messages ${segment.from + 1}–${segment.to}, compacted to fit the context window]\n${segment.summary}`;
  }
  const count = segment.to - segment.from;
  return `[${count} earlier ${count === 1 ? "message was" : "messages were"} removed from the context to fit the window. Use recall_discarded to search them.]`;
}

/** JSON lengths per message: as stored, and without the reasoning step 2 may drop (-1: nothing left). */
interface _Sizes {
  full: number[];
  lean: number[];
}

interface _Pins {
  /** The newest user message: the current request. */
  newest: number;
}

interface _Rendered {
  message: Message;
  size: number;
}

function _renderSegment(segment: OffWireSegment): _Rendered {
  const message: Message = { role: "user", content: renderSegmentText(segment) };
  return { message, size: JSON.stringify(message).length };
}

/**
 * Serialised sizes per message, cached by object: history messages are never mutated once in the
 * session (replacements are new objects), so each message is measured once, not once per step.
 * Both sizes come from one serialisation, part by part: an array's JSON is its elements' JSON
 * joined by commas in brackets, whatever the envelope around it.
 */
const _sizeCache = new WeakMap<Message, { full: number; lean: number }>();

function _sizeOf(message: Message): { full: number; lean: number } {
  const cached = _sizeCache.get(message);
  if (cached) return cached;
  let sizes: { full: number; lean: number };
  if (message.role === "user" && message.images?.length) {
    const length = JSON.stringify({ ...message, images: undefined }).length + message.images.length * IMAGE_TOKEN_ESTIMATE * 4;
    sizes = { full: length, lean: length };
  } else if (message.role !== "assistant" || !message.parts.some((part) => part.type === "reasoning")) {
    const length = JSON.stringify(message).length;
    sizes = { full: length, lean: length };
  } else {
    const envelope = JSON.stringify({ ...message, parts: [] }).length;
    let all = 0;
    let kept = 0;
    let keptCount = 0;
    for (const part of message.parts) {
      const size = JSON.stringify(part).length;
      all += size;
      if (part.type !== "reasoning") {
        kept += size;
        keptCount += 1;
      }
    }
    sizes = { full: envelope + all + message.parts.length - 1, lean: keptCount === 0 ? -1 : envelope + kept + keptCount - 1 };
  }
  _sizeCache.set(message, sizes);
  return sizes;
}

function _measure(messages: Message[], keepLastReasoning: boolean): _Sizes {
  const protectedIndex = keepLastReasoning ? messages.findLastIndex((message) => message.role === "assistant") : -1;
  const full = new Array<number>(messages.length);
  const lean = new Array<number>(messages.length);
  for (let index = 0; index < messages.length; index++) {
    const sizes = _sizeOf(messages[index]!);
    full[index] = sizes.full;
    lean[index] = index === protectedIndex ? sizes.full : sizes.lean;
  }
  return { full, lean };
}

function _arrayLength(sum: number, count: number): number {
  return 2 + sum + Math.max(count - 1, 0);
}

function _findPins(messages: Message[]): _Pins {
  return {
    newest: messages.findLastIndex((message) => message.role === "user"),
  };
}

/**
 * What stands before the region from `cut`: the span texts, then the current request when it is
 * older than the cut (so it is the last user text before the tail, on every protocol).
 */
function _prefix(messages: Message[], sizes: _Sizes, segments: _Rendered[], cut: number, pins: _Pins): { messages: Message[]; sum: number } {
  const out: Message[] = [];
  let sum = 0;
  for (const segment of segments) {
    out.push(segment.message);
    sum += segment.size;
  }
  if (pins.newest >= 0 && pins.newest < cut) {
    out.push(messages[pins.newest]!);
    sum += sizes.full[pins.newest]!;
  }
  return { messages: out, sum };
}

/**
 * Steps 1–2 over the region from `cut`: the region as it is if it fits, else with reasoning
 * dropped oldest response first until it fits; undefined when even all of it is too much.
 */
function _fitRegion(
  messages: Message[],
  sizes: _Sizes,
  segments: _Rendered[],
  cut: number,
  pins: _Pins,
  fits: (sum: number, count: number) => boolean,
): { wire: Message[]; reasoningDropped: boolean } | undefined {
  const prefix = _prefix(messages, sizes, segments, cut, pins);
  let sum = prefix.sum;
  let count = prefix.messages.length + messages.length - cut;
  for (let index = cut; index < messages.length; index++) sum += sizes.full[index]!;
  let leanUntil = cut;
  while (!fits(sum, count)) {
    while (leanUntil < messages.length && sizes.lean[leanUntil] === sizes.full[leanUntil]) leanUntil += 1;
    if (leanUntil === messages.length) return undefined;
    const lean = sizes.lean[leanUntil]!;
    if (lean < 0) {
      sum -= sizes.full[leanUntil]!;
      count -= 1;
    } else sum -= sizes.full[leanUntil]! - lean;
    leanUntil += 1;
  }
  const region = _leanRegion(messages, sizes, cut, leanUntil);
  return { wire: [...prefix.messages, ...region.messages], reasoningDropped: region.dropped };
}

/** Step 3's wire for a cut: the prefix, then the tail from `cut` without droppable reasoning. */
function _assemble(
  messages: Message[],
  sizes: _Sizes,
  segments: _Rendered[],
  cut: number,
  pins: _Pins,
): { wire: Message[]; sum: number; reasoningDropped: boolean } {
  const prefix = _prefix(messages, sizes, segments, cut, pins);
  let sum = prefix.sum;
  for (let index = cut; index < messages.length; index++) sum += Math.max(sizes.lean[index]!, 0);
  const region = _leanRegion(messages, sizes, cut, messages.length);
  return { wire: [...prefix.messages, ...region.messages], sum, reasoningDropped: region.dropped };
}

/** Messages from `cut`, those before `leanUntil` without droppable reasoning. */
function _leanRegion(messages: Message[], sizes: _Sizes, cut: number, leanUntil: number): { messages: Message[]; dropped: boolean } {
  const out: Message[] = [];
  let dropped = false;
  for (let index = cut; index < messages.length; index++) {
    const message = messages[index]!;
    if (index >= leanUntil || sizes.lean[index] === sizes.full[index]) {
      out.push(message);
      continue;
    }
    dropped = true;
    if (sizes.lean[index]! >= 0) out.push(_withoutReasoning(message as AssistantMessage));
  }
  return { messages: out, dropped };
}

function _withoutReasoning(message: AssistantMessage): AssistantMessage {
  return { ...message, parts: message.parts.filter((part) => part.type !== "reasoning") };
}

/**
 * Where a tail of about `target` onward may start, widest first; none when the rung leaves no new
 * span off the wire. Inside the current request's answer (after `newest`), the cut moves back onto
 * the assistant message when it would open with a tool message (a result must follow its call), or
 * forward when moving back would reach the compacted part. Before it, the cut falls on a user
 * message, so exchanges go whole: the start of the exchange it hit when that is not compacted
 * already, and the start of the next one.
 */
function _placeCuts(messages: Message[], target: number, covered: number, newest: number): number[] {
  if (target <= covered) return [];
  let cut = target;
  while (cut > covered && messages[cut]?.role === "tool") cut -= 1;
  if (cut <= covered) {
    cut = target;
    while (cut < messages.length && messages[cut]?.role === "tool") cut += 1;
  }
  if (cut >= messages.length) return [];
  if (newest < 0 || cut > newest) return [cut];
  const isUser = (index: number) => messages[index]?.role === "user";
  let back = cut;
  while (back > covered && !isUser(back)) back -= 1;
  let forward = cut;
  while (forward < newest && !isUser(forward)) forward += 1;
  return back > covered && back !== forward ? [back, forward] : [forward];
}

function _finish(
  history: Message[],
  wire: Message[],
  system: string,
  flags: { pruned: boolean; reasoningDropped: boolean; newSpan?: { from: number; to: number } },
): WirePlan {
  const messages = repairForWire(wire);
  return {
    messages,
    before: history.length,
    after: messages.length,
    pruned: flags.pruned,
    reasoningDropped: flags.reasoningDropped,
    ...(flags.newSpan ? { newSpan: flags.newSpan } : {}),
    estimate: Math.round(
      (_arrayLength(
        messages.reduce((sum, message) => sum + _sizeOf(message).full, 0),
        messages.length,
      ) +
        system.length) /
        4,
    ),
  };
}
