/**
 * A segment's term dictionary (layout in segment-layout.ts: term index, term blocks, postings),
 * read in proportion to the terms asked for: the term index is read once, its keys kept as bytes
 * and walked only as far as the terms looked up need; then a term costs one dictionary block (its
 * document frequency) and, for its postings, their bytes. A lookup compares the term's UTF-8
 * bytes with the keys' bytes, decoding none: for a term with no character at U+E000 or above (no
 * byte 0xEE–0xFF) byte order is JavaScript string order, the order the writer sorts keys in; any
 * other term compares decoded keys. A key compared that is not ASCII is still decoded once, so one
 * that is not UTF-8 is found corrupt.
 *
 * Contract: every method throws IndexCorruptError when the bytes it reads are not what the writer
 * leaves; a term's dictionary entry is looked up once.
 */
import { ByteReader, IndexCorruptError, SECTION, decodeText, textEncoder } from "./segment-layout.ts";

// How many blocks of the term index a lookup walks between looks at whether it is past its term.
const _WALK_STEP = 64;

export interface Postings {
  docs: Uint32Array;
  tfs: Uint32Array;
}

export interface TermDictionary {
  postings(term: string): Postings | undefined;
  /** The dictionary's document count for `term` (tombstoned documents included), 0 when absent. */
  frequency(term: string): number;
  /** How many of `docs` (ascending) hold `term`: its postings decoded only up to the last of them, nothing kept. */
  holding(term: string, docs: Uint32Array): number;
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
  let termIndex: { bytes: Uint8Array; keyStarts: Uint32Array; keyLengths: Uint32Array; offsets: Uint32Array; count: number; position: number } | undefined;
  const entries = new Map<string, _Entry | null>();

  // Every block's key and offset, walked in order as far as asked, once per segment, before the JIT
  // has compiled this: locals only, each varint read inline (a key needs at least two bytes, so the
  // tables hold them all). `upTo`: a term's bytes; the walk stops, within _WALK_STEP blocks, once a
  // key sorts after it (the term's block is then known: a recall's words stop before the `term…`
  // keys of a long history's half of the blocks); none, the whole index.
  const loadTermIndex = (upTo?: Uint8Array) => {
    if (!termIndex) {
      const raw = read(SECTION.termIndex, 0, span(SECTION.termIndex));
      const most = raw.length >> 1;
      termIndex = { bytes: raw, keyStarts: new Uint32Array(most), keyLengths: new Uint32Array(most), offsets: new Uint32Array(most), count: 0, position: 0 };
    }
    const index = termIndex;
    const { bytes: raw, keyStarts, keyLengths, offsets } = index;
    let count = index.count;
    let position = index.position;
    while (position < raw.length) {
      if (upTo && count > 0 && count % _WALK_STEP === 0 && compareKey(raw, keyStarts[count - 1]!, keyLengths[count - 1]!, upTo) > 0) break;
      // Two varints a block: its key's length (the key's bytes follow it), then its offset.
      for (let field = 0; field < 2; field++) {
        let value = 0;
        let scale = 1;
        for (let i = 0; ; i++) {
          if (i === 8) throw new IndexCorruptError("a number is too long");
          if (position >= raw.length) throw new IndexCorruptError("a number runs past its section");
          const byte = raw[position++]!;
          value += (byte & 0x7f) * scale;
          if (byte < 0x80) break;
          scale *= 0x80;
        }
        if (field === 1) offsets[count++] = value;
        else {
          if (position + value > raw.length) throw new IndexCorruptError("a key runs past its section");
          keyStarts[count] = position;
          keyLengths[count] = value;
          position += value;
        }
      }
    }
    index.count = count;
    index.position = position;
    return index;
  };
  /** The term's UTF-8 bytes when comparing bytes is comparing strings (no byte 0xEE or above), else undefined. */
  const comparable = (term: string): Uint8Array | undefined => {
    const bytes = textEncoder.encode(term);
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0xee) return undefined;
    return bytes;
  };
  /** The key at `start` (`length` bytes of `bytes`) against `term`'s bytes: negative, 0 or positive as the key sorts before, as or after it. */
  const compareKey = (bytes: Uint8Array, start: number, length: number, term: Uint8Array): number => {
    let ascii = true;
    const shared = Math.min(length, term.length);
    let order = length - term.length;
    for (let i = 0; i < shared; i++) {
      const byte = bytes[start + i]!;
      if (byte >= 0x80) ascii = false;
      if (byte !== term[i]) {
        order = byte - term[i]!;
        break;
      }
    }
    if (ascii) for (let i = shared; i < length; i++) if (bytes[start + i]! >= 0x80) ascii = false;
    if (!ascii) decodeText(bytes.subarray(start, start + length));
    return order;
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
    const bytes = comparable(term);
    // Walked up to a key past the term: the last block whose key is not past it is the term's (only a term compared by bytes stops early).
    const index = loadTermIndex(bytes);
    let low = 0;
    let high = index.count - 1;
    let block = -1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (bytes ? compareKey(index.bytes, index.keyStarts[mid]!, index.keyLengths[mid]!, bytes) <= 0 : termKey(mid) <= term) {
        block = mid;
        low = mid + 1;
      } else high = mid - 1;
    }
    if (block >= 0 && bytes) found = _findInBlock(blockBytes(block), bytes, compareKey);
    else if (block >= 0)
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

  // readPostings's walk, counting where it meets `wanted` and stopping past the last of them: what a
  // segment with a few tombstones asks of each query word (its live frequency), arrays of it unmade.
  const countHolding = (df: number, start: number, length: number, wanted: Uint32Array): number => {
    if (wanted.length === 0) return 0;
    if (start + length > span(SECTION.postings)) throw new IndexCorruptError("postings run past their section");
    const raw = read(SECTION.postings, start, length);
    const reader = new ByteReader(raw);
    const last = wanted[wanted.length - 1]!;
    let position = 0;
    let previous = -1;
    let w = 0;
    let next = wanted[0]!;
    let count = 0;
    for (let i = 0; i < df && previous < last; i++) {
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
      // `next`: the first of `wanted` after the documents walked (`last` once past every one: the loop ends).
      if (previous >= next) {
        while (w < wanted.length && wanted[w]! < previous) w++;
        if (w < wanted.length && wanted[w] === previous) {
          count++;
          w++;
        }
        next = w < wanted.length ? wanted[w]! : last;
      }
      if (odd === 1) {
        if (position >= length) throw new IndexCorruptError("a number runs past its section");
        if (raw[position]! < 0x80) position += 1;
        else {
          reader.position = position;
          reader.varint();
          position = reader.position;
        }
      }
    }
    return count;
  };

  /** One dictionary block's bytes. */
  const blockBytes = (block: number): Uint8Array => {
    // The block's end is the next block's offset: walked on when that block is not known yet (nothing, once all are).
    const index = block + 1 < (termIndex?.count ?? 0) ? termIndex! : loadTermIndex();
    const start = index.offsets[block]!;
    const end = block + 1 < index.count ? index.offsets[block + 1]! : span(SECTION.termBlocks);
    if (end < start || end > span(SECTION.termBlocks)) throw new IndexCorruptError("a dictionary block runs past its section");
    return read(SECTION.termBlocks, start, end - start);
  };
  /** Walks one dictionary block; `visit` returns true to stop. */
  const walkBlock = (block: number, visit: (key: string, df: number, start: number, length: number) => boolean) => {
    const reader = new ByteReader(blockBytes(block));
    while (!reader.done) if (visit(reader.text(), reader.varint(), reader.varint(), reader.varint())) return;
  };

  return {
    postings(term) {
      const found = lookup(term);
      return found ? readPostings(found.df, found.start, found.length) : undefined;
    },
    frequency: (term) => lookup(term)?.df ?? 0,
    holding(term, docs) {
      const found = lookup(term);
      return found ? countHolding(found.df, found.start, found.length, docs) : 0;
    },
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

/** The entry of the term whose UTF-8 bytes are `term` in a dictionary block (keys in order), or null: stops at the first key not before it. */
function _findInBlock(
  raw: Uint8Array,
  term: Uint8Array,
  compareKey: (bytes: Uint8Array, start: number, length: number, term: Uint8Array) => number,
): _Entry | null {
  // Locals only, each varint read inline (as the term index is walked): a first request's lookups walk their blocks cold.
  const end = raw.length;
  let position = 0;
  while (position < end) {
    let order = 0;
    let df = 0;
    let start = 0;
    // Four varints an entry: its key's length (the key's bytes follow it), its document frequency, its postings' offset and bytes.
    for (let field = 0; field < 4; field++) {
      let value = 0;
      let scale = 1;
      for (let i = 0; ; i++) {
        if (i === 8) throw new IndexCorruptError("a number is too long");
        if (position >= end) throw new IndexCorruptError("a number runs past its section");
        const byte = raw[position++]!;
        value += (byte & 0x7f) * scale;
        if (byte < 0x80) break;
        scale *= 0x80;
      }
      if (field === 0) {
        if (position + value > end) throw new IndexCorruptError("a key runs past its section");
        order = compareKey(raw, position, value, term);
        position += value;
      } else if (field === 1) df = value;
      else if (field === 2) start = value;
      else if (order === 0) return { df, start, length: value };
    }
    if (order > 0) return null;
  }
  return null;
}
