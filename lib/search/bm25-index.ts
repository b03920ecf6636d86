/**
 * What every full-text index here answers to (segmented-index.ts implements it over segment files
 * and memory): sources of documents kept up to date by `sync`, BM25 search, collection stats.
 * It knows nothing of what the documents are: a caller names each source (`segment` below: one per
 * source file, say), gives each document an id, a stamp, its text and optional opaque `data`
 * (returned with hits, so a result can be shown without reading the source again).
 *
 * Contract:
 * - `sync(segment, stamp, load)` is the incremental update: when the segment's saved stamp equals
 *   `stamp` nothing happens and `load` is not called; otherwise `load()` lists the segment's
 *   documents, and only those whose id is new or whose stamp changed are tokenised; documents no
 *   longer listed leave the index. `dirty` says whether anything changed since load. `describe`,
 *   when given, says what holds for the whole source (say, the folder every document of a session
 *   was said in), from the documents listed; a search's `sourceFilter` reads it.
 * - `search` scores with BM25 (k1 1.2, b 0.75) over the query's distinct terms; a document needs
 *   one term, not all. Hits come best first; equal scores (to 1e-9) are ordered by `tieBreak`.
 */
export interface IndexedDocInput {
  id: string;
  /** Changes whenever `text` or `data` changes (a hash, a version, a length). */
  stamp: string;
  text: string;
  data?: unknown;
}

/** What holds for a whole source, from all its documents (JSON; undefined: nothing). */
export type SourceDescriber = (docs: readonly IndexedDocInput[]) => unknown;

export interface IndexHit {
  segment: string;
  id: string;
  /** The document's `data`, decoded when first read. */
  data: unknown;
  /** One member of an object `data`, read without decoding the rest (when the index can; not enumerable). */
  field?: (key: string) => unknown;
  score: number;
  /** How many distinct query terms the document holds. */
  matched: number;
}

export interface SearchOptions {
  limit: number;
  /** Only documents it accepts are scored. */
  filter?: (segment: string, id: string, data: unknown) => boolean;
  /** Only documents it accepts, judged by segment and id before the entry's data is read (then `filter`). */
  idFilter?: (segment: string, id: string) => boolean;
  /** Only documents of the segments it accepts: judged before a document's entry is read (cheap), then `filter`. */
  segmentFilter?: (segment: string) => boolean;
  /**
   * Judged once per source of each segment that recorded what its `describe` said of it (the
   * source's data), after `segmentFilter`: true accepts its documents without `filter` and false
   * rejects them, neither reading their entries; undefined (or a source with nothing recorded)
   * leaves each document to `filter`. It must agree with `filter` on every document of the source.
   */
  sourceFilter?: (segment: string, data: unknown) => boolean | undefined;
  /**
   * Only documents of segments whose name starts with this: the others are not even scored (a
   * segment file keeps its sources in name order, so this is one range of documents). The
   * collection statistics still count every document.
   */
  segmentPrefix?: string;
  /** Orders hits of equal score; negative puts `a` first. */
  tieBreak?: (a: IndexHit, b: IndexHit) => number;
  /**
   * The collection the scores are measured against, when it is wider than this index (several
   * indexes ranked on one scale: add up their `stats`). Default: this index's own.
   */
  collection?: CollectionStats;
  /** Per-term multipliers of the idf (a term absent weighs 1). */
  weights?: ReadonlyMap<string, number>;
  /**
   * A hit of a source `sourceFilter` accepted (no `idFilter` given) has its entry read when its
   * id, data or a field is first read, not in the search. A damaged entry is then found by the
   * caller, after the search, as an IndexCorruptError: it searches again without this to have the
   * index rebuilt and be answered from it.
   */
  entriesWhenRead?: boolean;
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
  let docs = 0;
  let totalLen = 0;
  // Loops, not reduce: a first request's ranking is that builtin's first call (compiled then).
  for (const part of parts) {
    for (const [term, n] of part.df) df.set(term, (df.get(term) ?? 0) + n);
    docs += part.docs;
    totalLen += part.totalLen;
  }
  return { docs, totalLen, df };
}

export interface Bm25Index {
  /** Live documents. */
  readonly size: number;
  /** True once anything changed since it was created or loaded. */
  readonly dirty: boolean;
  sync(segment: string, stamp: string, load: () => readonly IndexedDocInput[], describe?: SourceDescriber): boolean;
  /** Every segment synced so far (one whose documents were all removed included). */
  segmentNames(): string[];
  /** Every live document, in index order. */
  entries(): { segment: string; id: string; stamp: string; data: unknown }[];
  search(query: string, options: SearchOptions): IndexHit[];
  /** This index's collection stats for the query's terms. */
  stats(query: string): CollectionStats;
}
