/**
 * Reads one segment (layout in segment-layout.ts) through positioned reads, in proportion to what
 * is asked: opening reads the header; a term's postings cost the term index (once), one block of
 * the dictionary and the term's posting bytes; a document's entry costs two small reads; a
 * source's entry, one read of the 32 entries around it.
 *
 * Contract: every method throws IndexCorruptError when the bytes it reads are not what the writer
 * leaves; nothing is cached across segments, and a reader holds its ByteSource until `close`.
 */
import {
  ByteReader,
  DOC_BLOCK,
  bufferSource,
  HEADER_BYTES,
  IndexCorruptError,
  SECTION,
  SECTIONS,
  SEGMENT_FORMAT,
  SEGMENT_MAGIC,
  decodeText,
  fnv1a,
  u32At,
  type ByteSource,
} from "./segment-layout.ts";
import { decodeString, decodeValue, skipValue } from "./entry-codec.ts";
import type { SegmentContent, SegmentDocEntry, SegmentSourceEntry } from "./segment-write.ts";

export interface Postings {
  docs: Uint32Array;
  tfs: Uint32Array;
}

export interface SegmentReader {
  readonly docs: number;
  readonly sources: number;
  readonly terms: number;
  readonly totalLen: number;
  readonly tokenizer: number;
  postings(term: string): Postings | undefined;
  /** Every document's term count. */
  lengths(): Uint32Array;
  doc(index: number): SegmentDocEntry;
  source(ordinal: number): SegmentSourceEntry;
  /** The ordinal of the source document `doc` belongs to (no entry read). */
  sourceOf(doc: number): number;
  /** The ordinal of the source named `name`, or -1. */
  findSource(name: string): number;
  /** Everything, decoded (for a merge). */
  content(): SegmentContent;
  close(): void;
}

const _BLOCK_CACHE = 256;
const _SOURCE_CHUNK = 32;
// Past this many lookups by name, the whole source table is read once instead of searched.
const _SOURCE_SCAN_AFTER = 64;

/** `inMemory`: the bytes are a buffer already (reading it whole costs nothing more). */
export function openSegment(bytes: ByteSource, inMemory = false): SegmentReader {
  if (bytes.size < HEADER_BYTES) throw new IndexCorruptError("shorter than its header");
  const header = bytes.read(0, HEADER_BYTES);
  if (decodeText(header.subarray(0, 8)) !== SEGMENT_MAGIC) throw new IndexCorruptError("not a segment file");
  if (u32At(header, 76) !== fnv1a(header.subarray(0, 76))) throw new IndexCorruptError("its header does not match its checksum");
  if (u32At(header, 8) !== SEGMENT_FORMAT) throw new IndexCorruptError(`segment format ${u32At(header, 8)}`);
  const docs = u32At(header, 16);
  const sources = u32At(header, 20);
  const offsets = Array.from({ length: SECTIONS }, (_, i) => u32At(header, 32 + i * 4));
  const at = (section: number) => offsets[section]!;
  for (let i = 1; i <= SECTION.end; i++) if (at(i) < at(i - 1)) throw new IndexCorruptError("its sections are out of order");
  if (at(0) !== HEADER_BYTES || at(SECTION.end) !== bytes.size) throw new IndexCorruptError(`its size is ${bytes.size}, its header says ${at(SECTION.end)}`);
  const span = (section: number) => at(section + 1) - at(section);
  if (
    span(SECTION.sourceOffsets) !== (sources + 1) * 4 ||
    span(SECTION.lengths) !== docs * 4 ||
    span(SECTION.sourceStarts) !== sources * 4 ||
    span(SECTION.docOffsets) !== (Math.ceil(docs / DOC_BLOCK) + 1) * 4
  )
    throw new IndexCorruptError("its tables do not match its counts");

  let termIndex: { keys: string[]; offsets: number[] } | undefined;
  let lengths: Uint32Array | undefined;
  const sourceCache = new Map<number, SegmentSourceEntry>();
  let sourceLookups = 0;
  let byName: Map<string, number> | undefined;

  // Each table of entry offsets is read whole the first time an entry of it is: one read, then one per entry.
  const tables = new Map<number, Uint32Array>();
  const table = (section: number, count: number): Uint32Array => {
    let found = tables.get(section);
    if (!found) {
      found = _u32s(bytes.read(at(section), (count + 1) * 4), count + 1);
      tables.set(section, found);
    }
    return found;
  };
  let strings: string[] | undefined;
  const stringTable = (): string[] => {
    if (!strings) {
      let list: unknown;
      try {
        list = JSON.parse(decodeText(bytes.read(at(SECTION.strings), span(SECTION.strings))));
      } catch (error) {
        throw error instanceof IndexCorruptError ? error : new IndexCorruptError("a string table that does not parse");
      }
      if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) throw new IndexCorruptError("a string table that is not one");
      strings = list;
    }
    return strings;
  };
  // The last blocks of document entries decoded, so neighbouring hits cost one read.
  const blocks = new Map<number, SegmentDocEntry[]>();
  const block = (number: number): SegmentDocEntry[] => {
    let entries = blocks.get(number);
    if (!entries) {
      const offsets = table(SECTION.docOffsets, Math.ceil(docs / DOC_BLOCK));
      const start = offsets[number]!;
      const end = offsets[number + 1]!;
      if (end < start || at(SECTION.docEntries) + end > at(SECTION.docEntries + 1)) throw new IndexCorruptError("a block of entries runs past its section");
      const reader = new ByteReader(bytes.read(at(SECTION.docEntries) + start, end - start));
      const known = stringTable();
      const lengths = readLengths();
      entries = [];
      for (let doc = number * DOC_BLOCK; doc < Math.min(docs, (number + 1) * DOC_BLOCK); doc++) {
        const source = reader.varint();
        if (source >= sources) throw new IndexCorruptError(`document ${doc} names source ${source} of ${sources}`);
        const id = decodeString(reader, known);
        const stamp = decodeString(reader, known);
        const flag = reader.byte();
        if (flag > 1) throw new IndexCorruptError(`document ${doc} is malformed`);
        const entry: SegmentDocEntry = { source, id, stamp, len: lengths[doc]! };
        if (flag === 1) {
          // Decoded when asked for: a sync compares ids and stamps only.
          const at = reader.position;
          skipValue(reader);
          let value: unknown;
          let decoded = false;
          Object.defineProperty(entry, "data", {
            enumerable: true,
            get: () => {
              if (!decoded) {
                const from = new ByteReader(reader.bytes);
                from.position = at;
                value = decodeValue(from, known);
                decoded = true;
              }
              return value;
            },
          });
        }
        entries.push(entry);
      }
      if (!reader.done) throw new IndexCorruptError("a block of entries holds more than its documents");
      if (blocks.size >= _BLOCK_CACHE) blocks.delete(blocks.keys().next().value!);
      blocks.set(number, entries);
    }
    return entries;
  };
  let starts: Uint32Array | undefined;
  const sourceOf = (doc: number): number => {
    starts ??= _u32s(bytes.read(at(SECTION.sourceStarts), sources * 4), sources);
    let low = 0;
    let high = sources - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= doc) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  const readLengths = (): Uint32Array => {
    lengths ??= _u32s(bytes.read(at(SECTION.lengths), docs * 4), docs);
    return lengths;
  };

  // Source entries are read _SOURCE_CHUNK at a time: a search that judges many sources by name costs one read per chunk.
  const sourceChunks = new Map<number, Uint8Array>();
  const sourceEntry = (ordinal: number): unknown => {
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= sources) throw new IndexCorruptError(`entry ${ordinal} of ${sources}`);
    const offsets = table(SECTION.sourceOffsets, sources);
    const chunk = Math.floor(ordinal / _SOURCE_CHUNK);
    const first = offsets[chunk * _SOURCE_CHUNK]!;
    let bytesOfChunk = sourceChunks.get(chunk);
    if (!bytesOfChunk) {
      const last = offsets[Math.min(sources, (chunk + 1) * _SOURCE_CHUNK)]!;
      if (last < first || at(SECTION.sourceEntries) + last > at(SECTION.sourceEntries + 1)) throw new IndexCorruptError("an entry runs past its section");
      bytesOfChunk = bytes.read(at(SECTION.sourceEntries) + first, last - first);
      sourceChunks.set(chunk, bytesOfChunk);
    }
    const start = offsets[ordinal]! - first;
    const end = offsets[ordinal + 1]! - first;
    if (start < 0 || end < start || end > bytesOfChunk.length) throw new IndexCorruptError("an entry runs past its section");
    try {
      return JSON.parse(decodeText(bytesOfChunk.subarray(start, end)));
    } catch (error) {
      throw error instanceof IndexCorruptError ? error : new IndexCorruptError("an entry that does not parse");
    }
  };

  const source = (ordinal: number): SegmentSourceEntry => {
    let found = sourceCache.get(ordinal);
    if (!found) {
      const raw = sourceEntry(ordinal);
      if (!Array.isArray(raw) || typeof raw[0] !== "string" || typeof raw[1] !== "string" || !_count(raw[2], docs) || !_count(raw[3], docs - raw[2]))
        throw new IndexCorruptError(`source ${ordinal} is malformed`);
      found = { name: raw[0], stamp: raw[1], firstDoc: raw[2], count: raw[3] };
      sourceCache.set(ordinal, found);
    }
    return found;
  };

  const loadTermIndex = () => {
    if (termIndex) return termIndex;
    const reader = new ByteReader(bytes.read(at(SECTION.termIndex), span(SECTION.termIndex)));
    const keys: string[] = [];
    const blockOffsets: number[] = [];
    while (!reader.done) {
      keys.push(reader.text());
      blockOffsets.push(reader.varint());
    }
    termIndex = { keys, offsets: blockOffsets };
    return termIndex;
  };

  const readPostings = (df: number, start: number, length: number): Postings => {
    if (start + length > span(SECTION.postings)) throw new IndexCorruptError("postings run past their section");
    const reader = new ByteReader(bytes.read(at(SECTION.postings) + start, length));
    const raw = reader.bytes;
    const out: Postings = { docs: new Uint32Array(df), tfs: new Uint32Array(df) };
    // This loop runs once per posting of every query word: a one-byte varint (most) is read inline, a longer one by the reader.
    let previous = -1;
    for (let i = 0; i < df; i++) {
      const first = raw[reader.position] ?? 0x80;
      let word: number;
      if (first < 0x80) {
        word = first;
        reader.position += 1;
      } else word = reader.varint();
      const gap = Math.floor(word / 2);
      previous += gap;
      if (gap === 0 || previous >= docs) throw new IndexCorruptError("postings point past the documents");
      out.docs[i] = previous;
      if (word % 2 === 1) {
        const tf = raw[reader.position] ?? 0x80;
        if (tf < 0x80) {
          out.tfs[i] = tf;
          reader.position += 1;
        } else out.tfs[i] = reader.varint();
      } else out.tfs[i] = 1;
    }
    return out;
  };

  /** Walks one dictionary block; `visit` returns true to stop. */
  const walkBlock = (block: number, visit: (key: string, df: number, start: number, length: number) => boolean) => {
    const index = loadTermIndex();
    const start = index.offsets[block]!;
    const end = block + 1 < index.offsets.length ? index.offsets[block + 1]! : span(SECTION.termBlocks);
    if (end < start || end > span(SECTION.termBlocks)) throw new IndexCorruptError("a dictionary block runs past its section");
    const reader = new ByteReader(bytes.read(at(SECTION.termBlocks) + start, end - start));
    while (!reader.done) if (visit(reader.text(), reader.varint(), reader.varint(), reader.varint())) return;
  };

  return {
    docs,
    sources,
    terms: u32At(header, 24),
    totalLen: u32At(header, 28),
    tokenizer: u32At(header, 12),

    postings(term) {
      const index = loadTermIndex();
      let low = 0;
      let high = index.keys.length - 1;
      let block = -1;
      while (low <= high) {
        const mid = (low + high) >> 1;
        if (index.keys[mid]! <= term) {
          block = mid;
          low = mid + 1;
        } else high = mid - 1;
      }
      if (block < 0) return undefined;
      let found: Postings | undefined;
      walkBlock(block, (key, df, start, length) => {
        if (key === term) found = readPostings(df, start, length);
        return key >= term;
      });
      return found;
    },

    lengths: readLengths,

    doc(index) {
      if (!Number.isInteger(index) || index < 0 || index >= docs) throw new IndexCorruptError(`document ${index} of ${docs}`);
      return block(Math.floor(index / DOC_BLOCK))[index % DOC_BLOCK]!;
    },

    source,
    sourceOf,

    findSource(name) {
      if (byName) return byName.get(name) ?? -1;
      if (++sourceLookups > _SOURCE_SCAN_AFTER) {
        byName = new Map();
        for (let i = 0; i < sources; i++) byName.set(source(i).name, i);
        return byName.get(name) ?? -1;
      }
      if (sources === 0) return -1;
      // A name past the last one (a session or run saved after everything here: ids grow with
      // time) is answered by one entry, not a search: what a save looks up in every segment.
      const last = source(sources - 1).name;
      if (name === last) return sources - 1;
      if (name > last) return -1;
      let low = 0;
      let high = sources - 2;
      while (low <= high) {
        const mid = (low + high) >> 1;
        const key = source(mid).name;
        if (key === name) return mid;
        if (key < name) low = mid + 1;
        else high = mid - 1;
      }
      return -1;
    },

    content() {
      // A merge reads every byte: one read, then decoded from memory.
      if (!inMemory) return openSegment(bufferSource(bytes.read(0, bytes.size)), true).content();
      const content: SegmentContent = { sources: [], docs: [], postings: new Map() };
      for (let i = 0; i < sources; i++) content.sources.push(source(i));
      for (let i = 0; i < docs; i++) content.docs.push(this.doc(i));
      const blocks = loadTermIndex().keys.length;
      for (let block = 0; block < blocks; block++)
        walkBlock(block, (key, df, start, length) => {
          const found = readPostings(df, start, length);
          const pairs: number[] = [];
          for (let i = 0; i < df; i++) pairs.push(found.docs[i]!, found.tfs[i]!);
          content.postings.set(key, pairs);
          return false;
        });
      return content;
    },

    close() {
      bytes.close();
    },
  };
}

const _LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `count` little-endian u32s from `raw` (on a little-endian machine, one copy of the bytes). */
function _u32s(raw: Uint8Array, count: number): Uint32Array {
  if (_LITTLE_ENDIAN) {
    const copy = new Uint8Array(count * 4);
    copy.set(raw.subarray(0, count * 4));
    return new Uint32Array(copy.buffer);
  }
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(i * 4, true);
  return out;
}

function _count(value: unknown, max: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;
}
