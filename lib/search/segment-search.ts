/**
 * One search over a segmented index's parts (segmented-index.ts holds its contract): each part's
 * postings of the query's terms scored with BM25 (or, for a segment whose kept candidates answer the
 * query, those candidates rescored: segment-candidates.ts), the scored documents taken best first,
 * each source judged once, and hits made until `limit` (and the ties of the last) are accepted.
 */
import type { IndexHit, SearchOptions } from "./bm25-index.ts";
import { rankedCandidates, scoreKept, scorePostings } from "./ranked-candidates.ts";
import { keptCandidates, keptRange, type CandidateStore } from "./segment-candidates.ts";
import type { Postings, SegmentReader } from "./segment-read.ts";

/** A part as a search reads it: a segment (or the pending documents laid out as one). */
export interface SearchPart {
  identity?: string;
  reader: SegmentReader;
  /** False while no document of the part is dead. */
  hasDead: () => boolean;
  /** One byte per document, 1 for a dead one; undefined while none is. */
  deadMap: () => Uint8Array | undefined;
}

/** What the index gives its search: its parts, its live collection and its readers (cached per term). */
export interface SearchSource<P extends SearchPart = SearchPart> {
  parts: readonly P[];
  live: number;
  totalLen: number;
  postingsOf(part: P, term: string): Postings | undefined;
  liveDf(term: string): number;
  /** The hit of document `doc` of `part`; `later`: its entry is read when first asked for. */
  hitOf(part: P, doc: number, segment: string, score: number, matched: number, later?: boolean): IndexHit;
}

type _Verdict = "rejected" | "accepted" | "documents";

/** The hits of `terms` over `index`'s parts; `useKept` false: score every part from its postings (and keep what they give), as after kept candidates that did not answer. */
export function searchParts<P extends SearchPart>(
  index: SearchSource<P>,
  terms: string[],
  options: SearchOptions,
  candidates: CandidateStore | undefined,
  useKept: boolean,
): IndexHit[] {
  const { live, totalLen, postingsOf, liveDf, hitOf } = index;
  const collection = options.collection;
  const total = collection?.docs ?? live;
  const average = (collection ? collection.totalLen / collection.docs : totalLen / live) || 1;
  const all = index.parts;
  // A part's postings are read only when it holds a term and documents of the prefix, and no kept candidates answer it.
  // A part kept for the query has its prefix's documents kept too: no source looked up by name.
  const saved = candidates && useKept ? candidates.read(terms, options.weights, options.segmentPrefix) : undefined;
  const ranges: [number, number][] = all.map((part) =>
    terms.some((term) => part.reader.frequency(term) > 0)
      ? (keptRange(saved, part) ?? _docRange(part.reader, options.segmentPrefix))
      : ([0, 0] as [number, number]),
  );
  const kept = candidates && keptCandidates(candidates, all, ranges, terms, options, saved);
  const lists = terms.map((term) => all.map((part, p) => (ranges[p]![0] < ranges[p]![1] && !kept?.of[p] ? postingsOf(part, term) : undefined)));
  // Each part's scores over its range of documents (offset by its first), and the documents scored (at most the postings' total, so no array grows).
  // A part answered by kept candidates numbers them 0 … n - 1, in document order (`docOf`).
  const bases = ranges.map(([from], p) => (kept?.of[p] ? 0 : from));
  const sizes = ranges.map(([from, to], p) => kept?.of[p]?.docs.length ?? to - from);
  const docOf = (p: number, doc: number) => kept?.of[p]?.docs[doc] ?? doc;
  const scores = sizes.map((size) => new Float64Array(size));
  const matched = sizes.map((size) => new Uint16Array(size));
  const touched = all.map((_, p) => new Int32Array(kept?.of[p]?.docs.length ?? _postingsTotal(lists, p)));
  const touchedCount = all.map(() => 0);
  const rangeLengths: (Uint32Array | undefined)[] = [];
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t]!;
    const byPart = lists[t]!;
    // `some`, not `every`: a first request's search calls some already, every would be compiled for it.
    if (!byPart.some((list) => list !== undefined) && !kept?.holds(t)) continue;
    const df = collection?.df.get(term) ?? liveDf(term);
    const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5)) * (options.weights?.get(term) ?? 1);
    kept?.scoredWith(t, idf);
    for (let p = 0; p < all.length; p++) {
      const [from, to] = ranges[p]!;
      const keptPart = kept?.of[p];
      if (keptPart) {
        touchedCount[p] = scoreKept(keptPart.lengths, kept!.tfs(p, t), idf, average, scores[p]!, matched[p]!, touched[p]!, touchedCount[p]!);
        continue;
      }
      const list = byPart[p];
      if (!list || from === to) continue;
      const lengths = (rangeLengths[p] ??= all[p]!.reader.lengthsIn(from, to));
      touchedCount[p] = scorePostings(list, from, to, lengths, all[p]!.deadMap(), idf, average, scores[p]!, matched[p]!, touched[p]!, touchedCount[p]!);
    }
  }
  const ranked = rankedCandidates(
    scores,
    bases,
    touched.map((docs, p) => docs.subarray(0, touchedCount[p])),
    terms.length > 1 ? matched : undefined,
    // What `limit` hits take when a few are filtered out: one batch, one selection.
    options.limit + (options.limit >> 3),
  );
  // Each hit's entry is read below (unless its source is accepted whole and the caller reads entries later): a part told how many reads it up front.
  if (options.entriesWhenRead !== true || options.idFilter)
    for (let p = 0; p < all.length; p++) all[p]!.reader.expectEntries(Math.min(options.limit, touchedCount[p]!));
  const hits: IndexHit[] = [];
  // Whether a hit scored above the one before it (they are taken best first: only a score that is not a number could).
  let rising = false;
  let floor = Number.NEGATIVE_INFINITY;
  // Per part, each source's name and verdict: rejected, accepted as a whole, or left to `filter`.
  const verdicts = all.map(() => new Map<number, { name: string; verdict: _Verdict }>());
  const judged = (p: number, doc: number): { name: string; verdict: _Verdict } => {
    const reader = all[p]!.reader;
    const ordinal = reader.sourceOf(doc);
    let found = verdicts[p]!.get(ordinal);
    if (!found) {
      const source = reader.source(ordinal);
      let verdict: _Verdict = "documents";
      if (options.segmentFilter && !options.segmentFilter(source.name)) verdict = "rejected";
      else if (options.sourceFilter && source.data !== undefined) {
        const whole = options.sourceFilter(source.name, source.data);
        if (whole !== undefined) verdict = whole ? "accepted" : "rejected";
      }
      verdicts[p]!.set(ordinal, (found = { name: source.name, verdict }));
    }
    return found;
  };
  for (let next = ranked(); next; next = ranked()) {
    const [p, slot, score] = next;
    if (hits.length >= options.limit && score < floor - 1e-9) break;
    const doc = docOf(p, slot);
    const source = judged(p, doc);
    if (source.verdict === "rejected") continue;
    const hit = hitOf(
      all[p]!,
      doc,
      source.name,
      score,
      matched[p]![slot - bases[p]!]!,
      source.verdict === "accepted" && !options.idFilter && options.entriesWhenRead === true,
    );
    if (options.idFilter && !options.idFilter(hit.segment, hit.id)) continue;
    if (source.verdict === "documents" && options.filter && !options.filter(hit.segment, hit.id, hit.data)) continue;
    if (hits.length > 0 && !(hit.score <= hits[hits.length - 1]!.score)) rising = true;
    hits.push(hit);
    if (hits.length === options.limit) floor = hit.score;
  }
  // Kept candidates answer only when what they left out scores below the hits' floor; else the postings are searched.
  if (kept && !kept.answers(hits.length >= options.limit ? floor : Number.NEGATIVE_INFINITY, average))
    return searchParts(index, terms, options, candidates, false);
  kept?.keep(
    average,
    bases,
    scores,
    touched.map((docs, p) => docs.subarray(0, touchedCount[p])),
    rangeLengths,
    lists,
    options.limit,
    verdicts.map((judgedHere) => judgedHere.keys()),
  );
  // Without a `tieBreak`, a stable sort of scores that never rise leaves them as they are (its comparator, a few thousand cold calls, is skipped).
  if (options.tieBreak || rising) hits.sort((a, b) => (Math.abs(b.score - a.score) > 1e-9 ? b.score - a.score : (options.tieBreak?.(a, b) ?? 0)));
  return hits.slice(0, options.limit);
}

/** How many postings part `p` has over the terms' lists (a loop, not reduce: a first request's ranking would be that builtin's first call). */
function _postingsTotal(lists: readonly (readonly (Postings | undefined)[])[], p: number): number {
  let total = 0;
  for (const byPart of lists) total += byPart[p]?.docs.length ?? 0;
  return total;
}

/**
 * The documents `[from, to)` of the sources whose name starts with `prefix` (sources are in name
 * order); all without one. The first and last names are looked at before any search: most
 * segments hold only the prefix's sources, or none, and each name looked up is a source entry read.
 */
function _docRange(reader: SegmentReader, prefix: string | undefined): [number, number] {
  if (!prefix) return [0, reader.docs];
  const count = reader.sources;
  const name = (ordinal: number) => reader.source(ordinal).name;
  const start = (ordinal: number) => (ordinal < count ? reader.source(ordinal).firstDoc : reader.docs);
  const past = (ordinal: number) => {
    const key = name(ordinal);
    return key > prefix && !key.startsWith(prefix);
  };
  const reached = (ordinal: number) => name(ordinal) >= prefix;
  // `past` and `reached` each hold from some source on: the first past the prefix's names, then the first of them, before it.
  const last = count - 1;
  const to = count === 0 || !past(last) ? count : past(0) ? 0 : _firstIndex(1, last, past);
  const from = to === 0 || reached(0) ? 0 : !reached(to - 1) ? to : _firstIndex(1, to - 1, reached);
  return [start(from), start(to)];
}

/** The first of `low … high - 1` that `past` holds for (it holds for every one after), or `high`. */
function _firstIndex(low: number, high: number, past: (index: number) => boolean): number {
  while (low < high) {
    const mid = (low + high) >> 1;
    if (past(mid)) high = mid;
    else low = mid + 1;
  }
  return low;
}
