/**
 * A BM25 full-text index over documents grouped in segments, kept in memory and saved as one flat
 * JSON document. It knows nothing of what the documents are: a caller names each segment (one per
 * source file, say), gives each document an id, a stamp, its text and optional opaque `data`
 * (returned with hits, so a result can be shown without reading the source again).
 *
 * Saved form (IndexDocument), written compact:
 *   {version: 1, tokenizer: <TOKENIZER_VERSION>, segments: {<name>: <stamp>},
 *    docs: [{seg, id, stamp, len, data?}], terms: {<term>: postings}}
 * `len` is the document's term count. A term's postings list the documents holding it in
 * document order, each as the gap from the previous one's index (the first from -1); a document
 * holding the term more than once is written as the negative gap followed by the count:
 * docs 0, 3 (twice) and 4 → [1, -3, 2, 1].
 *
 * Contract:
 * - `sync(segment, stamp, load)` is the incremental update: when the segment's saved stamp equals
 *   `stamp` nothing happens and `load` is not called; otherwise `load()` lists the segment's
 *   documents, and only those whose id is new or whose stamp changed are tokenised; documents no
 *   longer listed leave the index. `dirty` says whether anything changed since load.
 * - `search` scores with BM25 (k1 1.2, b 0.75) over the query's distinct terms; a document needs
 *   one term, not all. Hits come best first; equal scores (to 1e-9) are ordered by `tieBreak`.
 * - `toDocument()` drops removed documents and renumbers the postings.
 */
import * as v from "valibot";
import { TOKENIZER_VERSION, tokenize, tokenizeQuery } from "./tokenize.ts";

export const INDEX_FORMAT_VERSION = 1;

export interface IndexedDocInput {
  id: string;
  /** Changes whenever `text` or `data` changes (a hash, a version, a length). */
  stamp: string;
  text: string;
  data?: unknown;
}

export interface IndexHit {
  segment: string;
  id: string;
  data: unknown;
  score: number;
  /** How many distinct query terms the document holds. */
  matched: number;
}

export interface SearchOptions {
  limit: number;
  /** Only documents it accepts are scored. */
  filter?: (segment: string, id: string, data: unknown) => boolean;
  /** Orders hits of equal score; negative puts `a` first. */
  tieBreak?: (a: IndexHit, b: IndexHit) => number;
  /**
   * The collection the scores are measured against, when it is wider than this index (several
   * indexes ranked on one scale: add up their `stats`). Default: this index's own.
   */
  collection?: CollectionStats;
  /** Per-term multipliers of the idf (a term absent weighs 1). */
  weights?: ReadonlyMap<string, number>;
}

/** What BM25 needs of a collection: how many documents, their total length, and each term's document frequency. */
export interface CollectionStats {
  docs: number;
  totalLen: number;
  df: Map<string, number>;
}

/** The stats of several indexes as one collection. */
export function addStats(parts: readonly CollectionStats[]): CollectionStats {
  const df = new Map<string, number>();
  for (const part of parts) for (const [term, n] of part.df) df.set(term, (df.get(term) ?? 0) + n);
  return { docs: parts.reduce((sum, part) => sum + part.docs, 0), totalLen: parts.reduce((sum, part) => sum + part.totalLen, 0), df };
}

const _StoredDocSchema = v.object({
  seg: v.string(),
  id: v.string(),
  stamp: v.string(),
  len: v.pipe(v.number(), v.integer(), v.minValue(0)),
  data: v.optional(v.unknown()),
});
type _StoredDoc = v.InferOutput<typeof _StoredDocSchema>;

export const IndexDocumentSchema = v.object({
  version: v.literal(INDEX_FORMAT_VERSION),
  tokenizer: v.number(),
  segments: v.record(v.string(), v.string()),
  docs: v.array(_StoredDocSchema),
  // Postings are checked for shape where they are used; validating every number here would cost
  // more than the search.
  terms: v.custom<Record<string, number[]>>((value) => value !== null && typeof value === "object" && !Array.isArray(value), "must be an object of postings"),
});
export type IndexDocument = v.InferOutput<typeof IndexDocumentSchema>;

export interface Bm25Index {
  /** Live documents. */
  readonly size: number;
  /** True once anything changed since it was created or loaded. */
  readonly dirty: boolean;
  sync(segment: string, stamp: string, load: () => readonly IndexedDocInput[]): boolean;
  /** Every segment synced so far (one whose documents were all removed included). */
  segmentNames(): string[];
  /** Every live document, in index order. */
  entries(): { segment: string; id: string; stamp: string; data: unknown }[];
  search(query: string, options: SearchOptions): IndexHit[];
  /** This index's collection stats for the query's terms. */
  stats(query: string): CollectionStats;
  toDocument(): IndexDocument;
}

const _K1 = 1.2;
const _B = 0.75;

/** An index from its saved form, or an empty one. A saved form from another tokenizer must not be passed. */
export function createBm25Index(saved?: IndexDocument): Bm25Index {
  const docs: (_StoredDoc | undefined)[] = saved ? [...saved.docs] : [];
  // A saved term's postings are decoded the first time the term is looked up: opening a large
  // index for one query decodes only that query's terms.
  const encoded = saved?.terms;
  const decoded = new Map<string, number[]>();
  const postingsOf = (term: string): number[] | undefined => {
    let list = decoded.get(term);
    if (list === undefined && encoded && Object.hasOwn(encoded, term)) {
      list = _decode(encoded[term]);
      decoded.set(term, list);
    }
    return list;
  };
  const segments = new Map<string, string>(saved ? Object.entries(saved.segments) : []);
  const where = new Map<string, number>();
  // Each segment's live documents, so a sync touches its own segment's documents only.
  const bySegment = new Map<string, Set<number>>();
  const track = (segment: string, index: number) => {
    const set = bySegment.get(segment);
    if (set) set.add(index);
    else bySegment.set(segment, new Set([index]));
  };
  docs.forEach((doc, index) => {
    if (!doc) return;
    where.set(_key(doc.seg, doc.id), index);
    track(doc.seg, index);
  });
  let live = where.size;
  let totalLen = docs.reduce((sum, doc) => sum + (doc?.len ?? 0), 0);
  let dirty = false;

  const liveDf = (term: string): number => {
    const list = postingsOf(term);
    if (!Array.isArray(list)) return 0;
    let df = 0;
    for (let i = 0; i < list.length; i += 2) if (docs[list[i]!]) df += 1;
    return df;
  };

  const add = (segment: string, input: IndexedDocInput) => {
    const terms = tokenize(input.text);
    const index = docs.length;
    docs.push({ seg: segment, id: input.id, stamp: input.stamp, len: terms.length, ...(input.data === undefined ? {} : { data: input.data }) });
    where.set(_key(segment, input.id), index);
    track(segment, index);
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      const list = postingsOf(term);
      if (list) list.push(index, tf);
      else decoded.set(term, [index, tf]);
    }
    live += 1;
    totalLen += terms.length;
  };

  const remove = (key: string) => {
    const index = where.get(key)!;
    bySegment.get(docs[index]!.seg)?.delete(index);
    totalLen -= docs[index]!.len;
    docs[index] = undefined;
    where.delete(key);
    live -= 1;
  };

  return {
    get size() {
      return live;
    },
    get dirty() {
      return dirty;
    },

    sync(segment, stamp, load) {
      if (segments.get(segment) === stamp) return false;
      const listed = new Map(load().map((input) => [input.id, input]));
      for (const index of [...(bySegment.get(segment) ?? [])]) {
        const doc = docs[index]!;
        const next = listed.get(doc.id);
        if (next && next.stamp === doc.stamp) listed.delete(doc.id);
        else remove(_key(segment, doc.id));
      }
      for (const input of listed.values()) add(segment, input);
      segments.set(segment, stamp);
      dirty = true;
      return true;
    },

    segmentNames() {
      return [...segments.keys()];
    },

    entries() {
      return docs.filter((doc): doc is _StoredDoc => doc !== undefined).map((doc) => ({ segment: doc.seg, id: doc.id, stamp: doc.stamp, data: doc.data }));
    },

    stats(query) {
      const df = new Map<string, number>();
      for (const term of tokenizeQuery(query)) df.set(term, liveDf(term));
      return { docs: live, totalLen, df };
    },

    search(query, options) {
      const terms = tokenizeQuery(query);
      if (terms.length === 0 || live === 0) return [];
      const collection = options.collection;
      const total = collection?.docs ?? live;
      const average = (collection ? collection.totalLen / collection.docs : totalLen / live) || 1;
      const scores = new Float64Array(docs.length);
      const matched = new Uint16Array(docs.length);
      const allowed = new Int8Array(docs.length);
      for (const term of terms) {
        const list = postingsOf(term);
        if (!Array.isArray(list)) continue;
        const df = collection?.df.get(term) ?? liveDf(term);
        const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5)) * (options.weights?.get(term) ?? 1);
        for (let i = 0; i < list.length; i += 2) {
          const index = list[i]!;
          const doc = docs[index];
          if (!doc || typeof list[i + 1] !== "number") continue;
          if (allowed[index] === 0) allowed[index] = !options.filter || options.filter(doc.seg, doc.id, doc.data) ? 1 : -1;
          if (allowed[index]! < 0) continue;
          const tf = list[i + 1]!;
          scores[index]! += (idf * tf * (_K1 + 1)) / (tf + _K1 * (1 - _B + (_B * doc.len) / average));
          matched[index]! += 1;
        }
      }
      const hits: IndexHit[] = [];
      scores.forEach((score, index) => {
        if (score <= 0) return;
        const doc = docs[index]!;
        hits.push({ segment: doc.seg, id: doc.id, data: doc.data, score, matched: matched[index]! });
      });
      hits.sort((a, b) => (Math.abs(b.score - a.score) > 1e-9 ? b.score - a.score : (options.tieBreak?.(a, b) ?? 0)));
      return hits.slice(0, options.limit);
    },

    toDocument() {
      const renumber = new Int32Array(docs.length).fill(-1);
      const kept: _StoredDoc[] = [];
      docs.forEach((doc, index) => {
        if (!doc) return;
        renumber[index] = kept.length;
        kept.push(doc);
      });
      const terms: Record<string, number[]> = {};
      if (encoded) for (const term of Object.keys(encoded)) postingsOf(term);
      for (const [term, list] of decoded) {
        const next: number[] = [];
        for (let i = 0; i < list.length; i += 2) {
          const index = renumber[list[i]!]!;
          if (index >= 0) next.push(index, list[i + 1]!);
        }
        if (next.length > 0) Object.defineProperty(terms, term, { value: _encode(next), enumerable: true, writable: true, configurable: true });
      }
      return { version: INDEX_FORMAT_VERSION, tokenizer: TOKENIZER_VERSION, segments: Object.fromEntries(segments), docs: kept, terms };
    },
  };
}

/** Pairs [doc, tf, …] in doc order to the saved form: gaps between docs, a negative gap before a tf above 1. */
function _encode(pairs: readonly number[]): number[] {
  const out: number[] = [];
  let previous = -1;
  for (let i = 0; i < pairs.length; i += 2) {
    const gap = pairs[i]! - previous;
    previous = pairs[i]!;
    if (pairs[i + 1] === 1) out.push(gap);
    else out.push(-gap, pairs[i + 1]!);
  }
  return out;
}

/** The inverse of _encode; anything that is not a number ends the list. */
function _decode(saved: unknown): number[] {
  const pairs: number[] = [];
  if (!Array.isArray(saved)) return pairs;
  let previous = -1;
  for (let i = 0; i < saved.length; i++) {
    const gap = saved[i];
    if (typeof gap !== "number" || gap === 0) break;
    previous += Math.abs(gap);
    if (gap > 0) pairs.push(previous, 1);
    else {
      const tf = saved[++i];
      if (typeof tf !== "number") break;
      pairs.push(previous, tf);
    }
  }
  return pairs;
}

function _key(segment: string, id: string): string {
  return `${segment}\u0000${id}`;
}
