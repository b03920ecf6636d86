/**
 * The search's loops over many numbers, each a function of its own (compiled on its own,
 * sooner than a closure over the search, segmented-index.ts): BM25 (k1 1.2, b 0.75) over one
 * term's postings (and over the documents a segment's kept candidates hold), the order a search takes its scored documents in (best first, a batch at
 * a time, so taking the first few of many candidates sorts only those), and the count of a
 * segment's tombstones in a word's postings (its live document frequency).
 */
import type { Postings } from "./segment-dictionary.ts";

/**
 * The scored documents (score > 0; `scores[p]` holds part p's from its document `bases[p]`), best first (equal scores: lower part, then lower document),
 * one per call. Taken in batches from the top (`first`, at least 64, then four times more each time): taking the
 * first few of many candidates sorts only those, and a filter that rejects many still gets all.
 * `matched[p]`, when given, counts the query's terms each document holds: the documents holding
 * one are set aside (only their best score kept) while the batches come from those holding more
 * and their lowest score is above every one-term document's, as when common words are asked
 * together; the order is the same either way.
 */
export function rankedCandidates(
  scores: readonly Float64Array[],
  bases: readonly number[],
  touched: readonly Int32Array[],
  matched: readonly Uint16Array[] | undefined,
  first = 64,
): () => [number, number, number] | undefined {
  // Loops over the parts, not reduce or forEach: a first request's ranking would be those builtins' first calls (each compiled then).
  let size = 0;
  for (const list of touched) size += list.length;
  const parts = new Int32Array(size);
  const docs = new Int32Array(size);
  const values = new Float64Array(size);
  let n = 0;
  let singleTop = 0;
  let singles = 0;
  for (let p = 0; p < touched.length; p++) {
    const list = touched[p]!;
    const partScores = scores[p]!;
    const terms = matched?.[p];
    const base = bases[p]!;
    for (let i = 0; i < list.length; i++) {
      const doc = list[i]!;
      const value = partScores[doc - base]!;
      if (!(value > 0)) continue;
      if (terms !== undefined && terms[doc - base]! < 2) {
        singles += 1;
        if (value > singleTop) singleTop = value;
        continue;
      }
      parts[n] = p;
      docs[n] = doc;
      values[n] = value;
      n += 1;
    }
  }
  // The one-term documents, appended when a batch may reach them.
  const addSingles = () => {
    for (let p = 0; p < touched.length; p++) {
      const list = touched[p]!;
      for (let i = 0; i < list.length; i++) {
        const doc = list[i]!;
        const offset = doc - bases[p]!;
        const value = scores[p]![offset]!;
        if (!(value > 0) || matched![p]![offset]! >= 2) continue;
        parts[n] = p;
        docs[n] = doc;
        values[n] = value;
        n += 1;
      }
    }
    singles = 0;
    work = values.slice(0, n);
  };
  let work = values.slice(0, n);
  let batch: number[] = [];
  let at = 0;
  let taken = 0;
  let upper = Number.POSITIVE_INFINITY;
  let want = Math.max(64, first);
  return () => {
    while (at >= batch.length) {
      if (singles > 0 && taken + want > n) addSingles();
      if (taken >= n) return undefined;
      let low = _selectAscending(work, n - Math.min(n, taken + want));
      if (singles > 0 && !(low > singleTop)) {
        addSingles();
        low = _selectAscending(work, n - Math.min(n, taken + want));
      }
      want *= 4;
      batch = [];
      for (let i = 0; i < n; i++) if (values[i]! >= low && values[i]! < upper) batch.push(i);
      batch.sort((a, b) => values[b]! - values[a]! || parts[a]! - parts[b]! || docs[a]! - docs[b]!);
      upper = low;
      taken += batch.length;
      at = 0;
    }
    const top = batch[at++]!;
    return [parts[top]!, docs[top]!, values[top]!];
  };
}

/** The value that would sit at `index` were `values` sorted ascending (quickselect: `values` is reordered). */
function _selectAscending(values: Float64Array, index: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (index <= j) high = j;
    else if (index >= i) low = i;
    else return values[index]!;
  }
  return values[index]!;
}

const _K1 = 1.2;
const _B = 0.75;
const _K1_PLUS_1 = _K1 + 1;
const _ONE_MINUS_B = 1 - _B;

/**
 * Adds one term's BM25 part to the scores of the documents `[from, to)` it is in (`score`,
 * `count` and `lengths` indexed from `from`), notes each document scored for the first time in
 * `seen`, and returns how many `seen` holds. Once per posting, mostly before the JIT has compiled
 * it: a function of its own (compiled on its own, sooner than a closure over the search), locals
 * only, the formula's terms in their order (the same sums, to the bit).
 */
export function scorePostings(
  list: Postings,
  from: number,
  to: number,
  lengths: Uint32Array,
  dead: Uint8Array | undefined,
  idf: number,
  average: number,
  score: Float64Array,
  count: Uint16Array,
  seen: Int32Array,
  seenCount: number,
): number {
  const docIds = list.docs;
  const tfs = list.tfs;
  const end = lowerBound(docIds, to);
  for (let i = from === 0 ? 0 : lowerBound(docIds, from); i < end; i++) {
    const doc = docIds[i]!;
    if (dead !== undefined && dead[doc] === 1) continue;
    const tf = tfs[i]!;
    const at = doc - from;
    if (count[at] === 0) seen[seenCount++] = doc;
    score[at]! += (idf * tf * _K1_PLUS_1) / (tf + _K1 * (_ONE_MINUS_B + (_B * lengths[at]!) / average));
    count[at]! += 1;
  }
  return seenCount;
}

/**
 * Adds one term's BM25 part to the scores of kept documents (segment-candidates.ts), numbered by
 * their place in the kept list (`score` and `count` indexed by it, `seen` noting it): their
 * `lengths` and this term's frequency in each (`tfs`, 0 when absent). The same formula as
 * `scorePostings`, term by term in the same order, so the same sums to the bit. Returns how many
 * `seen` holds.
 */
export function scoreKept(
  lengths: readonly number[],
  tfs: readonly number[],
  idf: number,
  average: number,
  score: Float64Array,
  count: Uint16Array,
  seen: Int32Array,
  seenCount: number,
): number {
  for (let at = 0; at < tfs.length; at++) {
    const tf = tfs[at]!;
    if (tf === 0) continue;
    if (count[at] === 0) seen[seenCount++] = at;
    score[at]! += (idf * tf * _K1_PLUS_1) / (tf + _K1 * (_ONE_MINUS_B + (_B * lengths[at]!) / average));
    count[at]! += 1;
  }
  return seenCount;
}

/** The first index of the ascending `docs` holding `doc` or more. */
export function lowerBound(docs: Uint32Array, doc: number): number {
  let low = 0;
  let high = docs.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (docs[mid]! >= doc) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * How many of `wanted` (ascending, distinct) are in `docs` (ascending, distinct): each looked up
 * by binary search while there are few of them (a segment's tombstones against a word's postings:
 * a handful against thousands), else one walk of both.
 */
export function countSortedIn(docs: Uint32Array, wanted: Uint32Array): number {
  let count = 0;
  if (wanted.length * 16 < docs.length) {
    for (let w = 0; w < wanted.length; w++) {
      const doc = wanted[w]!;
      const low = lowerBound(docs, doc);
      if (low < docs.length && docs[low] === doc) count++;
    }
    return count;
  }
  for (let i = 0, w = 0; i < docs.length && w < wanted.length; ) {
    if (docs[i]! < wanted[w]!) i++;
    else if (docs[i]! > wanted[w]!) w++;
    else {
      count++;
      i++;
      w++;
    }
  }
  return count;
}
