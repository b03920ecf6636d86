/**
 * A segment's term dictionary (layout in segment-layout.ts: term index, term blocks, postings),
 * read in proportion to the terms asked for: the term index is read once and its keys kept as
 * bytes (a lookup decodes the dozen keys its binary search compares), then a term costs one
 * dictionary block (its document frequency) and, for its postings, their bytes.
 *
 * Contract: every method throws IndexCorruptError when the bytes it reads are not what the writer
 * leaves; a term's dictionary entry is looked up once.
 */
import { ByteReader, IndexCorruptError, SECTION } from "./segment-layout.ts";

export interface Postings {
  docs: Uint32Array;
  tfs: Uint32Array;
}

export interface TermDictionary {
  postings(term: string): Postings | undefined;
  /** The dictionary's document count for `term` (tombstoned documents included), 0 when absent. */
  frequency(term: string): number;
  /** Every term with its postings, in key order (for a merge). */
  forEach(visit: (term: string, postings: Postings) => void): void;
}

interface _Entry {
  df: number;
  start: number;
  length: number;
}

/** `read(section, from, length)`: bytes of a section of the segment; `span(section)`: its size; `docs`: the segment's document count. */
export function openTermDictionary(
  read: (section: number, from: number, length: number) => Uint8Array,
  span: (section: number) => number,
  docs: number,
): TermDictionary {
  let termIndex: { bytes: Uint8Array; keyStarts: Uint32Array; keyLengths: Uint32Array; offsets: Uint32Array; count: number } | undefined;
  const entries = new Map<string, _Entry | null>();

  const loadTermIndex = () => {
    if (termIndex) return termIndex;
    const raw = read(SECTION.termIndex, 0, span(SECTION.termIndex));
    const reader = new ByteReader(raw);
    const keyStarts: number[] = [];
    const keyLengths: number[] = [];
    const blockOffsets: number[] = [];
    while (!reader.done) {
      const length = reader.varint();
      if (reader.position + length > raw.length) throw new IndexCorruptError("a key runs past its section");
      keyStarts.push(reader.position);
      keyLengths.push(length);
      reader.position += length;
      blockOffsets.push(reader.varint());
    }
    const count = keyStarts.length;
    termIndex = {
      bytes: raw,
      keyStarts: Uint32Array.from(keyStarts),
      keyLengths: Uint32Array.from(keyLengths),
      offsets: Uint32Array.from(blockOffsets),
      count,
    };
    return termIndex;
  };
  const termKey = (index: number): string => {
    const terms = loadTermIndex();
    const reader = new ByteReader(terms.bytes);
    reader.position = terms.keyStarts[index]!;
    return reader.key(terms.keyLengths[index]!);
  };
  /** The dictionary's entry for `term` (one block walked), or null. */
  const lookup = (term: string): _Entry | null => {
    let found = entries.get(term);
    if (found !== undefined) return found;
    found = null;
    const index = loadTermIndex();
    let low = 0;
    let high = index.count - 1;
    let block = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (termKey(mid) <= term) {
        block = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    if (block >= 0)
      walkBlock(block, (key, df, start, length) => {
        if (key === term) found = { df, start, length };
        return key >= term;
      });
    entries.set(term, found);
    return found;
  };

  const readPostings = (df: number, start: number, length: number): Postings => {
    if (start + length > span(SECTION.postings)) throw new IndexCorruptError("postings run past their section");
    const raw = read(SECTION.postings, start, length);
    const reader = new ByteReader(raw);
    const docIds = new Uint32Array(df);
    const tfs = new Uint32Array(df);
    // This loop runs once per posting of every query word, mostly before the JIT has compiled it:
    // locals only, and a one-byte varint (most) read inline, a longer one by the reader.
    let position = 0;
    let previous = -1;
    for (let i = 0; i < df; i++) {
      if (position >= length) throw new IndexCorruptError("a number runs past its section");
      let word = raw[position]!;
      if (word < 0x80) position += 1;
      else {
        reader.position = position;
        word = reader.varint();
        position = reader.position;
      }
      const odd = word & 1;
      const gap = (word - odd) / 2;
      previous += gap;
      if (gap === 0 || previous >= docs) throw new IndexCorruptError("postings point past the documents");
      docIds[i] = previous;
      if (odd === 0) tfs[i] = 1;
      else {
        if (position >= length) throw new IndexCorruptError("a number runs past its section");
        const tf = raw[position]!;
        if (tf < 0x80) {
          tfs[i] = tf;
          position += 1;
        } else {
          reader.position = position;
          tfs[i] = reader.varint();
          position = reader.position;
        }
      }
    }
    return { docs: docIds, tfs };
  };

  /** Walks one dictionary block; `visit` returns true to stop. */
  const walkBlock = (block: number, visit: (key: string, df: number, start: number, length: number) => boolean) => {
    const index = loadTermIndex();
    const start = index.offsets[block]!;
    const end = block + 1 < index.count ? index.offsets[block + 1]! : span(SECTION.termBlocks);
    if (end < start || end > span(SECTION.termBlocks)) throw new IndexCorruptError("a dictionary block runs past its section");
    const reader = new ByteReader(read(SECTION.termBlocks, start, end - start));
    while (!reader.done) if (visit(reader.text(), reader.varint(), reader.varint(), reader.varint())) return;
  };

  return {
    postings(term) {
      const found = lookup(term);
      return found ? readPostings(found.df, found.start, found.length) : undefined;
    },
    frequency: (term) => lookup(term)?.df ?? 0,
    forEach(visit) {
      const blocks = loadTermIndex().count;
      for (let block = 0; block < blocks; block++)
        walkBlock(block, (key, df, start, length) => {
          visit(key, readPostings(df, start, length));
          return false;
        });
    },
  };
}
