/**
 * A BM25 index over immutable segments (segment-read.ts) plus the documents added in this process
 * (pending, kept as one more segment built in memory). It knows nothing of what the documents are:
 * a caller names each source (one per source file, say), gives each document an id, a stamp, its
 * text and optional opaque `data` (returned with hits, so a result can be shown without reading
 * the source again).
 *
 * Contract:
 * - `sync(source, stamp, load)` is the incremental update: when the source's newest stamp (the
 *   pending one, else the newest segment's entry) equals `stamp`, nothing happens and `load` is
 *   not called; otherwise `load()` lists the source's documents, and only those whose id is new or
 *   whose stamp changed are tokenised (pending); documents no longer listed or restamped are
 *   tombstoned where they live. `dirty` says whether anything changed since it was opened.
 *   `describe(listed)`, when given, is recorded with the source in the segment its documents go to.
 * - `search` scores with BM25 (k1 1.2, b 0.75) over the query's distinct terms and the live
 *   collection (or `collection`); a document needs one term, not all. Hits come best first; equal
 *   scores (to 1e-9) are ordered by `tieBreak`, else oldest segment first, then segment order.
 *   Postings are read per term, and only of segments holding documents of `segmentPrefix` (a
 *   segment with no tombstone gives a term's live frequency from its dictionary alone, one with
 *   few its dictionary's count less the tombstones found in the term's postings); sources
 *   are judged once each (`segmentFilter`, then `sourceFilter` on what the segment recorded of
 *   them), and `filter` in score order, only until `limit` hits (and the ties of the last) are
 *   accepted. A hit's data is decoded when first asked for; with `entriesWhenRead`, a document its
 *   source's verdict accepts (with no `idFilter`) has not even its entry read until its id, data
 *   or a field is.
 * - With a candidate store (segment-candidates.ts), a segment file with no tombstone whose kept
 *   candidates for the query answer it exactly has no postings read: those documents are rescored
 *   (the same scores, to the bit); a search scoring a segment the store did not answer keeps its
 *   best documents there for the next one.
 * - `changes()` is what to write: the pending segment's content and the new tombstones.
 */
import type { Bm25Index, CollectionStats, IndexHit } from "./bm25-index.ts";
import type { SegmentDocEntry } from "./segment-write.ts";
import { countSortedIn } from "./ranked-candidates.ts";
import type { CandidateStore } from "./segment-candidates.ts";
import { searchParts } from "./segment-search.ts";
import { bufferSource, fnv1a, mayHoldSource } from "./segment-layout.ts";
import { openSegment, type Postings, type SegmentReader } from "./segment-read.ts";
import { createSegmentBuilder, encodeSegment, type SegmentContent } from "./segment-write.ts";
import { TOKENIZER_VERSION, tokenizeQuery } from "./tokenize.ts";

export interface OpenSegment {
  file: string;
  reader: SegmentReader;
  /** Tombstoned documents. */
  dead: ReadonlySet<number>;
  /** What names this file's content for good (its name and stamp): only such a segment's candidates are kept (under it and its tombstones). */
  identity?: string;
  /** The greatest source name of each kind the segment holds (index-manifest.ts `last`), when its manifest says. */
  last?: readonly string[];
}

export interface IndexChanges {
  /** The documents added and sources restamped, as one segment; undefined when there are none. */
  content?: SegmentContent;
  /** `content` encoded (segment-write.ts). */
  bytes?: Uint8Array;
  /** New tombstones, per segment file. */
  dead: Map<string, number[]>;
  /** Live documents and their total length, after the changes. */
  docs: number;
  totalLen: number;
}

export interface SegmentedIndex extends Bm25Index {
  /** Documents added in this process, not yet in a segment file. */
  readonly pendingDocs: number;
  changes(): IndexChanges;
}

interface _Part {
  file: string;
  /** What names the part's live documents for good (its file's identity and tombstones); undefined: its candidates are not kept. */
  identity?: string;
  reader: SegmentReader;
  /** The greatest source name of each kind the part holds, when its manifest says (OpenSegment `last`). */
  last?: readonly string[];
  isDead: (doc: number) => boolean;
  /** False while no document of the part is dead: its postings count as they are. */
  hasDead: () => boolean;
  /** One byte per document, 1 for a dead one; undefined while none is (what a loop over postings checks). */
  deadMap: () => Uint8Array | undefined;
  /** The dead documents, ascending. */
  deadDocs: () => Uint32Array;
}

/** `segment`'s identity with its tombstones: the file's, then their count and checksum when it has any. */
function liveIdentity(segment: OpenSegment): string | undefined {
  if (segment.dead.size === 0) return segment.identity;
  const dead = Uint32Array.from(segment.dead).sort();
  return `${segment.identity} dead ${dead.length}:${fnv1a(new Uint8Array(dead.buffer)).toString(16)}`;
}

/** An index over `segments` (oldest first) whose live totals are `totals`; with no segments, an index in memory only; `candidates`: where searches keep what they learned of a segment. */
export function createSegmentedIndex(segments: readonly OpenSegment[] = [], totals = { docs: 0, totalLen: 0 }, candidates?: CandidateStore): SegmentedIndex {
  const builder = createSegmentBuilder();
  const killed = new Map<string, Set<number>>();
  const deadMaps = new Map<string, Uint8Array>();
  const deadLists = new Map<string, Uint32Array>();
  const parts: _Part[] = segments.map((segment): _Part => {
    let identity: string | undefined;
    return {
      file: segment.file,
      // A segment's candidates answer for its live documents: its tombstones are part of what names them
      // (a file's tombstones only grow until it is merged away, so each set names them anew); none once this process tombstones more.
      get identity() {
        return segment.identity === undefined || killed.has(segment.file) ? undefined : (identity ??= liveIdentity(segment));
      },
      reader: segment.reader,
      ...(segment.last ? { last: segment.last } : {}),
      isDead: (doc) => segment.dead.has(doc) || killed.get(segment.file)?.has(doc) === true,
      hasDead: () => segment.dead.size > 0 || killed.has(segment.file),
      deadMap: () => {
        if (segment.dead.size === 0 && !killed.has(segment.file)) return undefined;
        let map = deadMaps.get(segment.file);
        if (!map) {
          map = new Uint8Array(segment.reader.docs);
          for (const doc of segment.dead) map[doc] = 1;
          for (const doc of killed.get(segment.file) ?? []) map[doc] = 1;
          deadMaps.set(segment.file, map);
        }
        return map;
      },
      deadDocs: () => {
        let list = deadLists.get(segment.file);
        if (!list) {
          list = Uint32Array.from(new Set([...segment.dead, ...(killed.get(segment.file) ?? [])])).sort();
          deadLists.set(segment.file, list);
        }
        return list;
      },
    };
  });
  let live = totals.docs;
  let totalLen = totals.totalLen;
  let dirty = false;
  let pendingDocs = 0;
  // The pending documents laid out as one segment, once per change: searched, then written as they are.
  let pending: { content: SegmentContent; bytes: Uint8Array; part: _Part } | undefined;
  const postingsCache = new Map<SegmentReader, Map<string, Postings | null>>();

  const pendingSegment = () => {
    if (!pending) {
      const content = builder.build();
      const bytes = encodeSegment(content, TOKENIZER_VERSION);
      pending = {
        content,
        bytes,
        part: {
          file: "",
          reader: openSegment(bufferSource(bytes), true),
          isDead: () => false,
          hasDead: () => false,
          deadMap: () => undefined,
          deadDocs: () => new Uint32Array(0),
        },
      };
    }
    return pending;
  };
  // A pending segment of sources without documents has nothing to search: it is laid out only when written.
  const pendingPart = (): _Part | undefined => (pendingDocs === 0 ? undefined : pendingSegment().part);
  const allParts = (): _Part[] => {
    const extra = pendingPart();
    return extra ? [...parts, extra] : parts;
  };
  const postingsOf = (part: _Part, term: string): Postings | undefined => {
    let cache = postingsCache.get(part.reader);
    if (!cache) postingsCache.set(part.reader, (cache = new Map()));
    let found = cache.get(term);
    if (found === undefined) {
      found = part.reader.postings(term) ?? null;
      cache.set(term, found);
    }
    return found ?? undefined;
  };
  // Each term's live document frequency, until the next change.
  const dfCache = new Map<string, number>();
  const liveDf = (term: string): number => {
    let df = dfCache.get(term);
    if (df !== undefined) return df;
    df = 0;
    for (const part of allParts()) {
      // A part with no tombstone counts the dictionary's frequency: its postings are not read.
      if (!part.hasDead()) {
        df += part.reader.frequency(term);
        continue;
      }
      // Postings read already are counted; otherwise their walk stops past the last tombstone, nothing kept (kept candidates may answer the search).
      const list = postingsCache.get(part.reader)?.get(term);
      if (list) df += list.docs.length - countSortedIn(list.docs, part.deadDocs());
      else if (list === undefined) df += part.reader.frequency(term) - part.reader.holding(term, part.deadDocs());
    }
    dfCache.set(term, df);
    return df;
  };
  const kill = (part: _Part, doc: number) => {
    let set = killed.get(part.file);
    if (!set) killed.set(part.file, (set = new Set()));
    set.add(doc);
    deadMaps.delete(part.file);
    deadLists.delete(part.file);
    live -= 1;
    // One length read: tombstoning a document does not read its segment's whole table.
    totalLen -= part.reader.lengthsIn(doc, doc + 1)[0]!;
  };
  // The entry is read here, inside the search (a damaged one is found while the index can be rebuilt), its data when first asked for;
  // `later`: the entry too (a document its source's verdict accepted, which nothing in the search reads).
  const hitOf = (part: _Part, doc: number, segment: string, score: number, matched: number, later = false): IndexHit => {
    const entry = later ? undefined : part.reader.doc(doc);
    return new _Hit(segment, score, matched, part.reader, doc, entry);
  };
  // A save's new session and runs are in no segment: the manifest's `last` says so without a read.
  const sourceIn = (part: _Part, name: string): number => (mayHoldSource(part.last, name) ? part.reader.findSource(name) : -1);
  const currentStamp = (name: string): string | undefined => {
    const stamp = builder.stampOf(name);
    if (stamp !== undefined) return stamp;
    for (let i = parts.length - 1; i >= 0; i--) {
      const ordinal = sourceIn(parts[i]!, name);
      if (ordinal >= 0) return parts[i]!.reader.source(ordinal).stamp;
    }
    return undefined;
  };

  return {
    get size() {
      return live;
    },
    get dirty() {
      return dirty;
    },
    get pendingDocs() {
      return pendingDocs;
    },

    sync(name, stamp, load, describe) {
      if (currentStamp(name) === stamp) return false;
      const docs = load();
      const listed = new Map(docs.map((input) => [input.id, input]));
      const kept = new Set<string>();
      for (const part of parts) {
        const ordinal = sourceIn(part, name);
        if (ordinal < 0) continue;
        const source = part.reader.source(ordinal);
        for (let doc = source.firstDoc; doc < source.firstDoc + source.count; doc++) {
          if (part.isDead(doc)) continue;
          const entry = part.reader.doc(doc);
          const next = listed.get(entry.id);
          if (next && next.stamp === entry.stamp && !kept.has(entry.id)) kept.add(entry.id);
          else kill(part, doc);
        }
      }
      const dropped = builder.remove(name);
      live -= dropped.docs;
      totalLen -= dropped.len;
      pendingDocs -= dropped.docs;
      const added = builder.add(
        name,
        stamp,
        [...listed.values()].filter((input) => !kept.has(input.id)),
        describe?.(docs),
      );
      live += added.docs;
      totalLen += added.len;
      pendingDocs += added.docs;
      pending = undefined;
      dfCache.clear();
      dirty = true;
      return true;
    },

    segmentNames() {
      const names = new Set<string>();
      for (const part of parts) for (let i = 0; i < part.reader.sources; i++) names.add(part.reader.source(i).name);
      for (const name of builder.names()) names.add(name);
      return [...names];
    },

    entries() {
      const out: { segment: string; id: string; stamp: string; data: unknown }[] = [];
      for (const part of allParts())
        for (let doc = 0; doc < part.reader.docs; doc++) {
          if (part.isDead(doc)) continue;
          const entry = part.reader.doc(doc);
          out.push({ segment: part.reader.source(entry.source).name, id: entry.id, stamp: entry.stamp, data: entry.data });
        }
      return out;
    },

    stats(query): CollectionStats {
      const df = new Map<string, number>();
      for (const term of tokenizeQuery(query)) df.set(term, liveDf(term));
      return { docs: live, totalLen, df };
    },

    search(query, options) {
      const terms = tokenizeQuery(query);
      if (terms.length === 0 || live === 0) return [];
      const at = { parts: allParts(), live, totalLen, postingsOf, liveDf, hitOf };
      return searchParts(at, terms, options, candidates, candidates !== undefined);
    },

    changes() {
      return {
        ...(builder.empty ? {} : { content: pendingSegment().content, bytes: pendingSegment().bytes }),
        dead: new Map([...killed].map(([file, docs]) => [file, [...docs].sort((a, b) => a - b)])),
        docs: live,
        totalLen,
      };
    },
  };
}

/**
 * A search's hit of a segment's document: its entry as read in the search, or (`entry` undefined)
 * read when its id, data or a field is first asked for. A class, its members on the prototype: a
 * search makes hundreds of hits on the way to a first request, and an object literal's getters are
 * new closures each (segmented-index's share of what tipped a `recall` turn into its first garbage
 * collection, docs/memory.md). One class, `field` on every hit (answered from the decoded data when
 * the entry reads no member alone): a subclass costs each of hundreds of cold constructions a `super`.
 */
class _Hit implements IndexHit {
  readonly #reader: SegmentReader;
  readonly #doc: number;
  #entry: SegmentDocEntry | undefined;

  constructor(
    readonly segment: string,
    readonly score: number,
    readonly matched: number,
    reader: SegmentReader,
    doc: number,
    entry: SegmentDocEntry | undefined,
  ) {
    this.#reader = reader;
    this.#doc = doc;
    this.#entry = entry;
  }

  get id(): string {
    return this.entry().id;
  }

  get data(): unknown {
    return this.entry().data;
  }

  /** One member of the data, read without decoding the rest when the entry can. */
  field(key: string): unknown {
    const found = this.entry();
    return found.field ? found.field(key) : (found.data as Record<string, unknown> | undefined)?.[key];
  }

  /** The document's entry, read once. */
  private entry(): SegmentDocEntry {
    return (this.#entry ??= this.#reader.doc(this.#doc));
  }
}
