/**
 * What an earlier search learned of a segment file, kept so that the same words asked again are
 * answered without reading their postings there: per query (its distinct terms, their weights and
 * the prefix of sources searched) and per segment (its identity: file name and stamp, then its
 * tombstones' count and checksum when it has any, segmented-index.ts), the documents that scored
 * best in it, each with its length and every term's frequency, the best score left out (`cut`),
 * and the statistics they were scored under (each term's idf, the average length).
 *
 * Exactness: every BM25 part is positive, so under new statistics a document left out scores at
 * most `cut` × ρ, ρ = the largest ratio of a term's idf now to then × max(1, average now / then).
 * A search rescores the kept documents (ranked-candidates.ts `scoreKept`: the same sums, so the
 * same bits) and keeps its answer only when its `limit`-th hit scores more than 1e-9 above that
 * bound of every segment answered so, which is when the postings would give the same hits;
 * otherwise it searches the postings again and the entry is rewritten.
 *
 * Files: `<index folder>/candidates/<hash>.json`, one per query, written whole (atomic rename, not
 * fsynced: derived data) when a search scored a segment the entry did not hold:
 *
 *   {"version": 1, "key": <the query's key>,
 *    "parts": [{"segment": <identity>, "idf": [<per term of the key>], "average": <n>, "cut": <n>,
 *               "docs": [<ascending>], "lengths": […], "tfs": [[<per doc>] per term of the key],
 *               "sources": [[<ordinal>, <name>, <stamp>, <first doc>, <count>, <data>?], …],
 *               "range": [<first document of the prefix>, <past its last>]}]}
 *
 * `sources` are the segment's entries of the sources the search that wrote the file judged there
 * (its hits' sessions, segment-search.ts), as the segment stores them: a search answered from the
 * part adopts them (segment-read.ts `adoptSource`, checked as a read one is) and decodes none of
 * them again, what a recall's 300 passages of 300 sessions cost most (about 1.2 ms at 5,000
 * sessions). `range` is the segment's documents of the prefix searched: a search that finds the
 * part takes it instead of looking the prefix's first and last sources up by name (reading and
 * decoding a dozen source entries of each large segment). A part kept without either (an older
 * file) is written again once, with them.
 *
 * Past KEPT_QUERIES files the oldest are removed. A file that does not parse or is of another
 * key or version reads as absent; deleting the folder costs one slower search per query.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { writeTextAtomic } from "../state-file/json-file.ts";
import type { SearchOptions } from "./bm25-index.ts";
import { lowerBound } from "./ranked-candidates.ts";
import { IndexCorruptError, fnv1a } from "./segment-layout.ts";
import type { SegmentReader } from "./segment-read.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";

export const KEPT_QUERIES = 16;
/** Documents of the prefix a segment must hold for its candidates to be kept (a smaller one is scored from its postings). */
export const KEEP_FROM_DOCS = 4_096;
const _VERSION = 1;

export interface KeptSegment {
  segment: string;
  /** Per term of the key, the idf (weight included) the documents were scored with. */
  idf: number[];
  average: number;
  /** The best score of a document of the segment left out; 0 when none scored was. */
  cut: number;
  docs: number[];
  lengths: number[];
  /** Per term of the key, each document's frequency of it. */
  tfs: number[][];
  /** Source entries of the segment, each `[ordinal, …the entry as stored]`. */
  sources?: unknown[][];
  /** The segment's documents `[from, to)` of the prefix searched. */
  range?: [number, number];
}

export interface KeptQuery {
  key: string;
  /** The key's terms, in its order. */
  terms: string[];
  parts: KeptSegment[];
}

export interface CandidateStore {
  read(terms: readonly string[], weights: ReadonlyMap<string, number> | undefined, prefix: string | undefined): KeptQuery | undefined;
  write(query: KeptQuery): void;
}

/** The query's key terms (sorted) and its key: the tokenizer, each term with its weight, the prefix. */
export function queryKey(
  terms: readonly string[],
  weights: ReadonlyMap<string, number> | undefined,
  prefix: string | undefined,
): { key: string; terms: string[] } {
  const sorted = [...terms].sort();
  return { key: JSON.stringify([TOKENIZER_VERSION, sorted.map((term) => [term, weights?.get(term) ?? 1]), prefix ?? ""]), terms: sorted };
}

/** The bound of what `kept` left out, under the idf (per term of the key) and average now; Infinity when a term's idf is unknown. */
export function keptBound(kept: KeptSegment, idf: readonly number[], average: number): number {
  if (kept.cut === 0) return 0;
  let ratio = 0;
  // A term the segment lacked (idf 0 then) adds nothing to any of its documents.
  for (let t = 0; t < idf.length; t++) if (kept.idf[t]! > 0) ratio = Math.max(ratio, idf[t]! / kept.idf[t]!);
  if (!Number.isFinite(ratio)) return Number.POSITIVE_INFINITY;
  return kept.cut * ratio * Math.max(1, average / kept.average) * (1 + 1e-12);
}

/**
 * The `keep` best-scored documents of a segment's range `[from, …)` as an entry: `scores` and
 * `touched` as the search left them, `lengths` of the range, and per term of the key its postings
 * there (undefined: the segment lacks it).
 */
export function keepSegment(
  segment: string,
  keep: number,
  idf: number[],
  average: number,
  from: number,
  scores: Float64Array,
  touched: Int32Array,
  lengths: Uint32Array | undefined,
  postings: readonly ({ docs: Uint32Array; tfs: Uint32Array } | undefined)[],
): KeptSegment {
  const scored = Array.from(touched).filter((doc) => scores[doc - from]! > 0);
  scored.sort((a, b) => scores[b - from]! - scores[a - from]! || a - b);
  const docs = scored.slice(0, keep).sort((a, b) => a - b);
  const cut = scored.length > keep ? scores[scored[keep]! - from]! : 0;
  return {
    segment,
    idf,
    average,
    cut,
    docs,
    lengths: docs.map((doc) => lengths![doc - from]!),
    tfs: postings.map((list) => docs.map((doc) => (list ? _tfOf(list, doc) : 0))),
  };
}

function _tfOf(list: { docs: Uint32Array; tfs: Uint32Array }, doc: number): number {
  const at = lowerBound(list.docs, doc);
  return list.docs[at] === doc ? list.tfs[at]! : 0;
}

/** What a search asks of a segment to keep its candidates: its identity (what names its live documents: a segment file's content and tombstones; none, not kept). */
export interface KeepablePart {
  identity?: string;
  reader: Pick<SegmentReader, "docs" | "frequency" | "source" | "adoptSource">;
}

/** The documents of the prefix in `part` as `saved` kept them (whole, ascending, inside the segment), or undefined. */
export function keptRange(saved: KeptQuery | undefined, part: KeepablePart): [number, number] | undefined {
  if (!saved || part.identity === undefined) return undefined;
  const range = saved.parts.find((kept) => kept.segment === part.identity)?.range;
  if (!range || !Number.isInteger(range[0]) || !Number.isInteger(range[1])) return undefined;
  return range[0] >= 0 && range[0] <= range[1] && range[1] <= part.reader.docs ? [range[0], range[1]] : undefined;
}

type _Postings = { docs: Uint32Array; tfs: Uint32Array } | undefined;

/** One search's use of the kept candidates (segmented-index.ts): which parts they answer, and what to keep after it. */
export interface SearchKept {
  /** Per part, the kept candidates that answer it instead of its postings. */
  of: (KeptSegment | undefined)[];
  /** Whether a part answered by kept candidates holds the search's term `t`. */
  holds(t: number): boolean;
  /** The frequencies of the search's term `t` in part `p`'s kept documents. */
  tfs(p: number, t: number): number[];
  /** The idf the search scored its term `t` with. */
  scoredWith(t: number, idf: number): void;
  /** True when the hits (`floor`: the limit-th one's score, -Infinity when fewer) are the ones the postings would give. */
  answers(floor: number, average: number): boolean;
  /** Writes the candidates of every part scored from its postings (with those that answered), when there is one. */
  keep(
    average: number,
    bases: readonly number[],
    scores: readonly Float64Array[],
    touched: readonly Int32Array[],
    lengths: readonly (Uint32Array | undefined)[],
    lists: readonly (readonly _Postings[])[],
    limit: number,
    judged: readonly Iterable<number>[],
  ): void;
}

/** The kept candidates of `terms` for the parts `saved` (the store's entry of the query, read by the caller; undefined: only keep) may answer; undefined when no part is worth keeping. */
export function keptCandidates(
  store: CandidateStore,
  parts: readonly KeepablePart[],
  ranges: readonly [number, number][],
  terms: readonly string[],
  options: Pick<SearchOptions, "weights" | "segmentPrefix">,
  saved: KeptQuery | undefined,
): SearchKept | undefined {
  const worth = parts.map((part, p) => part.identity !== undefined && ranges[p]![1] - ranges[p]![0] >= KEEP_FROM_DOCS);
  if (!worth.some(Boolean)) return undefined;
  const { key, terms: sorted } = queryKey(terms, options.weights, options.segmentPrefix);
  const keyAt = terms.map((term) => sorted.indexOf(term));
  const of = parts.map((part, p) => {
    if (!worth[p] || !saved) return undefined;
    const found = saved.parts.find((kept) => kept.segment === part.identity);
    return found && _inRange(found.docs, ranges[p]!) && _adopted(part, found) ? found : undefined;
  });
  const idf = sorted.map(() => 0);
  return {
    of,
    holds: (t) => of.some((kept, p) => kept !== undefined && parts[p]!.reader.frequency(terms[t]!) > 0),
    tfs: (p, t) => of[p]!.tfs[keyAt[t]!]!,
    scoredWith: (t, value) => void (idf[keyAt[t]!] = value),
    answers: (floor, average) =>
      of.every((kept) => {
        const bound = kept ? keptBound(kept, idf, average) : 0;
        return bound === 0 || bound < floor - 1e-9;
      }),
    keep(average, bases, scores, touched, lengths, lists, limit, judged) {
      // Rewritten for a part kept without its sources or with another range than the segment's (an older file, a damaged one).
      const current = (p: number) => of[p]?.sources !== undefined && of[p]!.range?.[0] === ranges[p]![0] && of[p]!.range?.[1] === ranges[p]![1];
      if (parts.every((_, p) => !worth[p] || current(p))) return;
      const keep = limit + (limit >> 1) + 64;
      const sources = (p: number) => _sourceRows(parts[p]!, judged[p] ?? []);
      const kept = parts.flatMap((part, p): KeptSegment[] => {
        if (!worth[p]) return [];
        const range: [number, number] = [ranges[p]![0], ranges[p]![1]];
        if (of[p]) return [{ ...of[p]!, sources: of[p]!.sources ?? sources(p), range }];
        const postings = sorted.map((term) => lists[terms.indexOf(term)]![p]);
        return [
          { ...keepSegment(part.identity!, keep, [...idf], average, bases[p]!, scores[p]!, touched[p]!, lengths[p], postings), sources: sources(p), range },
        ];
      });
      store.write({ key, terms: sorted, parts: kept });
    },
  };
}

/** The rows of `ordinals`' source entries (read already: cached) as `sources` keeps them. */
function _sourceRows(part: KeepablePart, ordinals: Iterable<number>): unknown[][] {
  const rows: unknown[][] = [];
  for (const ordinal of ordinals) {
    const entry = part.reader.source(ordinal);
    const row: unknown[] = [ordinal, entry.name, entry.stamp, entry.firstDoc, entry.count];
    if (entry.data !== undefined) row.push(entry.data);
    rows.push(row);
  }
  return rows;
}

/** True once `kept`'s sources are adopted by the part's reader; false (the part is scored from its postings and kept again) when one is malformed. */
function _adopted(part: KeepablePart, kept: KeptSegment): boolean {
  try {
    for (const row of kept.sources ?? []) part.reader.adoptSource(row[0] as number, row.slice(1));
    return true;
  } catch (error) {
    if (error instanceof IndexCorruptError) return false;
    throw error;
  }
}

/** True when `docs` (numbers: `_wellFormed`) are whole and ascend inside `[from, to)`. */
function _inRange(docs: readonly number[], [from, to]: readonly [number, number]): boolean {
  // Operators only (no call per document): this runs over hundreds of kept documents per segment before the JIT has compiled it.
  let previous = -1;
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!;
    if (!(doc >= from && doc < to) || doc % 1 !== 0 || doc <= previous) return false;
    previous = doc;
  }
  return true;
}

/** The store of the index folder `dir` (`<dir>/candidates/`). */
export function openCandidateStore(dir: string): CandidateStore {
  const folder = join(dir, "candidates");
  const pathOf = (key: string) => join(folder, `${fnv1a(new TextEncoder().encode(key)).toString(16).padStart(8, "0")}.json`);
  return {
    read(terms, weights, prefix) {
      const { key, terms: sorted } = queryKey(terms, weights, prefix);
      try {
        const value = JSON.parse(readFileSync(pathOf(key), "utf8")) as { version?: unknown; key?: unknown; parts?: unknown };
        if (value.version !== _VERSION || value.key !== key || !Array.isArray(value.parts)) return undefined;
        return { key, terms: sorted, parts: value.parts.filter((part) => _wellFormed(part, sorted.length)) };
      } catch {
        return undefined;
      }
    },
    write(query) {
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
        const path = pathOf(query.key);
        writeTextAtomic(path, JSON.stringify({ version: _VERSION, key: query.key, parts: query.parts }), { verbatim: true, durable: false });
        _evict(folder, basename(path));
      } catch {
        // an unwritable state folder: the next search scores the postings again
      }
    },
  };
}

// Shape only; the documents are checked against the segment's range when used.
function _wellFormed(part: unknown, terms: number): part is KeptSegment {
  const kept = part as Partial<KeptSegment>;
  const numbers = (list: unknown, length?: number): boolean => {
    if (!Array.isArray(list) || (length !== undefined && list.length !== length)) return false;
    for (let i = 0; i < list.length; i++) if (typeof list[i] !== "number") return false;
    return true;
  };
  return (
    typeof kept.segment === "string" &&
    numbers(kept.idf, terms) &&
    typeof kept.average === "number" &&
    typeof kept.cut === "number" &&
    numbers(kept.docs) &&
    numbers(kept.lengths, kept.docs!.length) &&
    Array.isArray(kept.tfs) &&
    kept.tfs.length === terms &&
    kept.tfs.every((list) => numbers(list, kept.docs!.length)) &&
    (kept.sources === undefined || (Array.isArray(kept.sources) && kept.sources.every((row) => Array.isArray(row)))) &&
    (kept.range === undefined || numbers(kept.range, 2))
  );
}

/** The oldest files past KEPT_QUERIES removed, never `written` (the newest, though its time may tie with others'). */
function _evict(folder: string, written: string): void {
  const names = readdirSync(folder).filter((name) => name.endsWith(".json") && name !== written);
  if (names.length < KEPT_QUERIES) return;
  const aged = names.map((name) => ({ name, at: statSync(join(folder, name)).mtimeMs })).sort((a, b) => a.at - b.at);
  for (const { name } of aged.slice(0, names.length - KEPT_QUERIES + 1)) rmSync(join(folder, name), { force: true });
}
