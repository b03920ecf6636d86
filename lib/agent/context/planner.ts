/**
 * The context manager: decides, once per step, what part of the history goes on the wire.
 *
 * The session keeps every message; this module only chooses a view of them. In order of cost:
 * 1. the whole history, when it fits the threshold (and nothing was compacted, or /uncompact
 *    was used since);
 * 2. the same with reasoning removed, oldest response first, all of a response's reasoning at
 *    once, except the last assistant message's when Anthropic thinking is on (Anthropic wants
 *    the final assistant message of a tool loop to open with its signed thinking block);
 * 3. a recent tail of 64, 32, 16, 8 or 4 messages (the widest that fits under `compactTo`, half
 *    the threshold by default, else the narrowest), with everything older replaced by one user
 *    message per compacted span: its summary, or a marker pointing at recall_discarded while it
 *    has none. Once a span is recorded it stays off the wire (until /uncompact).
 * The first user message and the newest user request are always on the wire, byte for byte.
 * Every plan then goes through repairForWire, so any cut is a valid request.
 *
 * Tool calls and results are never dropped from what stays on the wire: a model that cannot see
 * what it already ran runs it again, until the step cap ends the turn.
 */
import type { AssistantMessage, Message, Protocol } from "../../messages.ts";
import { repairForWire } from "./repair.ts";
import { isUncompacted, listOffWireSegments, type CompactionState, type OffWireSegment } from "./state.ts";

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
    const whole = _fitRegion(messages, sizes, [], head, pins, fits);
    if (whole) return _finish(messages, whole.wire, system, { pruned: whole.reasoningDropped, reasoningDropped: whole.reasoningDropped });
  }
  const spanPrefix = segments.map(_renderSegment);
  if (segments.length > 0) {
    const kept = _fitRegion(messages, sizes, spanPrefix, covered, pins, fits);
    if (kept) return _finish(messages, kept.wire, system, { pruned: true, reasoningDropped: kept.reasoningDropped });
  }

  let chosen: { cut: number; wire: Message[]; reasoningDropped: boolean } | undefined;
  for (const width of TAIL_LADDER) {
    const cut = _placeCut(messages, n - width, covered);
    if (cut === undefined || (chosen && cut === chosen.cut)) continue;
    const prefix = [...spanPrefix, _renderSegment({ from: covered, to: cut })];
    const candidate = _assemble(messages, sizes, prefix, cut, pins);
    chosen = { cut, ...candidate };
    if (fitsAfterCut(candidate.sum, candidate.wire.length)) break;
  }
  if (!chosen) {
    const all = _assemble(messages, sizes, spanPrefix, covered, pins);
    return _finish(messages, all.wire, system, { pruned: true, reasoningDropped: all.reasoningDropped });
  }
  return _finish(messages, chosen.wire, system, {
    pruned: true,
    reasoningDropped: chosen.reasoningDropped,
    newSpan: { from: covered, to: chosen.cut },
  });
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
  first: number;
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
    first: messages.findIndex((message) => message.role === "user"),
    newest: messages.findLastIndex((message) => message.role === "user"),
  };
}

/** What stands before the region from `cut`: the first user message, the span texts, the newest request. */
function _prefix(messages: Message[], sizes: _Sizes, segments: _Rendered[], cut: number, pins: _Pins): { messages: Message[]; sum: number } {
  const out: Message[] = [];
  let sum = 0;
  if (pins.first >= 0 && pins.first < cut) {
    out.push(messages[pins.first]!);
    sum += sizes.full[pins.first]!;
  }
  for (const segment of segments) {
    out.push(segment.message);
    sum += segment.size;
  }
  if (pins.newest >= 0 && pins.newest < cut && pins.newest !== pins.first) {
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
 * Where a tail of `target` onward starts: moved back onto the assistant message when it would
 * open with a tool message (a result must follow its call), or forward when moving back would
 * reach the compacted part. Undefined when the rung leaves no new span off the wire.
 */
function _placeCut(messages: Message[], target: number, covered: number): number | undefined {
  if (target <= covered) return undefined;
  let cut = target;
  while (cut > covered && messages[cut]?.role === "tool") cut -= 1;
  if (cut <= covered) {
    cut = target;
    while (cut < messages.length && messages[cut]?.role === "tool") cut += 1;
  }
  return cut < messages.length ? cut : undefined;
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
