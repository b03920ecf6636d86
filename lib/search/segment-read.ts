/**
 * Reads one segment (layout in segment-layout.ts) through positioned reads, in proportion to what
 * is asked: opening reads the header; a term's postings cost the term index (once), one block of
 * the dictionary and the term's posting bytes (its document frequency, the dictionary block
 * alone); a document's entry costs one read of its block (after the table of block offsets,
 * read once), and only that entry of the block is decoded (the ones before it are skipped
 * over; past 16 blocks, a section of entries of at most 512 KiB is read whole); a source's entry, one read of the 32 around it (after its table of offsets; past 16 such reads, a section of at most 512 KiB is read whole); a range of
 * documents' lengths, one read; a format-2 string, one read, until a search has read 32 of them
 * (then the rest of the table's strings in one).
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
  sourceEntryOf,
  SECTION,
  SECTIONS,
  FIRST_SEGMENT_FORMAT,
  SEGMENT_FORMAT,
  SEGMENT_MAGIC,
  decodeText,
  fnv1a,
  u32At,
  u32sAt,
  type ByteSource,
} from "./segment-layout.ts";
import { decodeString, decodeValue, memberReader, openStringTable, skipValue, type StringTable } from "./entry-codec.ts";
import { openTermDictionary, type Postings } from "./segment-dictionary.ts";
import type { SegmentContent, SegmentDocEntry, SegmentSourceEntry } from "./segment-write.ts";

export type { Postings } from "./segment-dictionary.ts";

export interface SegmentReader {
  readonly docs: number;
  readonly sources: number;
  readonly terms: number;
  readonly totalLen: number;
  readonly tokenizer: number;
  postings(term: string): Postings | undefined;
  /** How many documents hold `term`, tombstoned ones included: the dictionary's count, no postings read (0 when absent). */
  frequency(term: string): number;
  /** How many of `docs` (ascending) hold `term`: its postings decoded up to the last of them. */
  holding(term: string, docs: Uint32Array): number;
  /** Every document's term count. */
  lengths(): Uint32Array;
  /** The term counts of documents `from … to - 1` (index 0 is document `from`): one read of that range. */
  lengthsIn(from: number, to: number): Uint32Array;
  doc(index: number): SegmentDocEntry;
  /**
   * A search is about to read the entries of about `count` documents: from 16 up, a section of
   * entries and a string table of at most 512 KiB are each read whole at their next read, not a
   * block or a string at a time (a read is a system call: a recall index's 300 hits made 48).
   */
  expectEntries(count: number): void;
  source(ordinal: number): SegmentSourceEntry;
  /** Source `ordinal` as stored (`raw`, kept beside the segment: segment-candidates.ts), checked as a read one is and cached, so no read decodes it; ignored when cached already. */
  adoptSource(ordinal: number, raw: unknown): void;
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
// Past this many blocks of entries read one at a time, a section of entries of at most _WHOLE_ENTRIES bytes is read whole.
const _BLOCK_READS = 16;
const _WHOLE_ENTRIES = 512 * 1024;
// Past this many lookups by name, the whole source table is read once instead of searched.
const _SOURCE_SCAN_AFTER = 64;

/** A block of document entries as read: entries are found by skipping (`starts` grows as they are) and decoded when asked for. */
interface _Block {
  bytes: Uint8Array;
  /** Where each entry walked so far starts. */
  starts: number[];
  /** Where the next entry to walk starts. */
  next: number;
  entries: (SegmentDocEntry | undefined)[];
}

/** `inMemory`: the bytes are a buffer already (reading it whole costs nothing more). */
export function openSegment(bytes: ByteSource, inMemory = false): SegmentReader {
  if (bytes.size < HEADER_BYTES) throw new IndexCorruptError("shorter than its header");
  const header = bytes.read(0, HEADER_BYTES);
  if (decodeText(header.subarray(0, 8)) !== SEGMENT_MAGIC) throw new IndexCorruptError("not a segment file");
  if (u32At(header, 76) !== fnv1a(header.subarray(0, 76))) throw new IndexCorruptError("its header does not match its checksum");
  const format = u32At(header, 8);
  if (format !== SEGMENT_FORMAT && format !== FIRST_SEGMENT_FORMAT) throw new IndexCorruptError(`segment format ${format}`);
  const docs = u32At(header, 16);
  const sources = u32At(header, 20);
  // A loop, not Array.from: on a first request nothing else has called that builtin yet (its first call is compiled then).
  const offsets: number[] = [];
  for (let i = 0; i < SECTIONS; i++) offsets.push(u32At(header, 32 + i * 4));
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

  let lengths: Uint32Array | undefined;
  const sourceCache = new Map<number, SegmentSourceEntry>();
  let sourceLookups = 0;
  let byName: Map<string, number> | undefined;

  // Each table of entry offsets is read whole the first time an entry of it is: one read, then one per entry.
  const tables = new Map<number, Uint32Array>();
  const spanOf = (section: number, count: number, index: number): [number, number] => {
    let table = tables.get(section);
    if (!table) tables.set(section, (table = u32sAt(bytes.read(at(section), (count + 1) * 4), count + 1)));
    return [table[index]!, table[index + 1]!];
  };
  let strings: StringTable | undefined;
  // Set by `expectEntries`: the search ahead reads entries by the dozen.
  let manyEntries = false;
  const stringTable = (): StringTable => {
    strings ??= openStringTable(
      format === FIRST_SEGMENT_FORMAT,
      (from, length) => bytes.read(at(SECTION.strings) + from, length),
      span(SECTION.strings),
      () => manyEntries && span(SECTION.strings) <= _WHOLE_ENTRIES,
    );
    return strings;
  };
  // The last blocks of document entries read, so neighbouring hits cost one read.
  const blocks = new Map<number, _Block>();
  let blockReads = 0;
  let allEntries: Uint8Array | undefined;
  const blockOf = (number: number): _Block => {
    let found = blocks.get(number);
    if (!found) {
      const [start, end] = spanOf(SECTION.docOffsets, Math.ceil(docs / DOC_BLOCK), number);
      if (end < start || at(SECTION.docEntries) + end > at(SECTION.docEntries + 1)) throw new IndexCorruptError("a block of entries runs past its section");
      // A search that reads many blocks of a small section (a recall index's hundreds of candidates) reads the rest at once: a read is a system call.
      if (!allEntries && (++blockReads > _BLOCK_READS || manyEntries) && span(SECTION.docEntries) <= _WHOLE_ENTRIES)
        allEntries = bytes.read(at(SECTION.docEntries), span(SECTION.docEntries));
      found = {
        bytes: allEntries ? allEntries.subarray(start, end) : bytes.read(at(SECTION.docEntries) + start, end - start),
        starts: [],
        next: 0,
        entries: [],
      };
      if (blocks.size >= _BLOCK_CACHE) blocks.delete(blocks.keys().next().value!);
      blocks.set(number, found);
    }
    return found;
  };
  // Steps over the block's entries up to the `k`th (checking what it steps over), so each one's start is known: one reader, one loop.
  const walkTo = (block: _Block, number: number, k: number): void => {
    const reader = new ByteReader(block.bytes);
    reader.position = block.next;
    const last = Math.min(docs, (number + 1) * DOC_BLOCK) - 1;
    while (block.starts.length <= k) {
      const doc = number * DOC_BLOCK + block.starts.length;
      block.starts.push(reader.position);
      const source = reader.varint();
      if (source >= sources) throw new IndexCorruptError(`document ${doc} names source ${source} of ${sources}`);
      skipValue(reader, 2);
      const flag = reader.byte();
      if (flag > 1) throw new IndexCorruptError(`document ${doc} is malformed`);
      if (flag === 1) skipValue(reader);
      if (reader.position > block.bytes.length) throw new IndexCorruptError("an entry runs past its block");
      block.next = reader.position;
      if (doc === last && !reader.done) throw new IndexCorruptError("a block of entries holds more than its documents");
    }
  };
  const entryOf = (index: number): SegmentDocEntry => {
    const number = Math.floor(index / DOC_BLOCK);
    const k = index % DOC_BLOCK;
    const block = blockOf(number);
    const cached = block.entries[k];
    if (cached) return cached;
    if (block.starts.length <= k) walkTo(block, number, k);
    const reader = new ByteReader(block.bytes);
    reader.position = block.starts[k]!;
    const known = stringTable();
    const source = reader.varint();
    const id = decodeString(reader, known);
    const stamp = decodeString(reader, known);
    // Accessors in the literal, not defineProperty: an entry is made per hit, hundreds per search, mostly before the JIT has compiled this.
    // Its length is read when asked for (a merge: a search has its documents' lengths already); its data when first read (a sync compares ids and stamps only).
    // The accessors do their work themselves: a closure more per entry is bytes more per hit (what tips a recall turn into a collection, docs/memory.md).
    let entry: SegmentDocEntry;
    if (reader.byte() !== 1)
      entry = lengths
        ? { source, id, stamp, len: lengths[index]! }
        : {
            source,
            id,
            stamp,
            get len() {
              return lengthOf(index);
            },
          };
    else {
      const from = reader.position;
      let value: unknown;
      let decoded = false;
      let members: ((key: string) => unknown) | undefined;
      entry = {
        source,
        id,
        stamp,
        get len() {
          return lengths ? lengths[index]! : lengthOf(index);
        },
        get data() {
          if (!decoded) {
            const data = new ByteReader(block.bytes);
            data.position = from;
            value = decodeValue(data, known);
            decoded = true;
          }
          return value;
        },
      };
      // A ranking that needs a card's kind, session and date reads those alone, in one pass.
      Object.defineProperty(entry, "field", {
        value: (key: string) => {
          if (decoded) return (value as Record<string, unknown> | null)?.[key];
          if (!members) {
            const data = new ByteReader(block.bytes);
            data.position = from;
            members = memberReader(data, known);
          }
          return members(key);
        },
      });
    }
    block.entries[k] = entry;
    return entry;
  };
  let starts: Uint32Array | undefined;
  const sourceOf = (doc: number): number => {
    starts ??= u32sAt(bytes.read(at(SECTION.sourceStarts), sources * 4), sources);
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
    lengths ??= u32sAt(bytes.read(at(SECTION.lengths), docs * 4), docs);
    return lengths;
  };
  const lengthsIn = (from: number, to: number): Uint32Array => {
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to > docs || to < from)
      throw new IndexCorruptError(`documents ${from}–${to} of ${docs}`);
    if (lengths || to - from === docs) return readLengths().subarray(from, to);
    return u32sAt(bytes.read(at(SECTION.lengths) + from * 4, (to - from) * 4), to - from);
  };
  const lengthOf = (doc: number): number => (lengths ? lengths[doc]! : lengthsIn(doc, doc + 1)[0]!);

  // Source entries are read _SOURCE_CHUNK at a time (after the offsets table): a search that judges
  // hundreds of sources by name costs one read per chunk, not per source (a read is a system call).
  // A scan of every source (findSource past _SOURCE_SCAN_AFTER) reads the section whole.
  const sourceChunks = new Map<number, Uint8Array>();
  let chunkReads = 0;
  let allSources: Uint8Array | undefined;
  const sourceEntry = (ordinal: number): unknown => {
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= sources) throw new IndexCorruptError(`entry ${ordinal} of ${sources}`);
    const [start, end] = spanOf(SECTION.sourceOffsets, sources, ordinal);
    if (end < start || at(SECTION.sourceEntries) + end > at(SECTION.sourceEntries + 1)) throw new IndexCorruptError("an entry runs past its section");
    let raw: Uint8Array;
    if (allSources) raw = allSources.subarray(start, end);
    else {
      const chunk = Math.floor(ordinal / _SOURCE_CHUNK);
      const [first] = spanOf(SECTION.sourceOffsets, sources, chunk * _SOURCE_CHUNK);
      let bytesOfChunk = sourceChunks.get(chunk);
      // A search that judges the sources of hundreds of hits (a recall's passages) reads the rest of a small section at once.
      if (!bytesOfChunk && ++chunkReads > _BLOCK_READS && span(SECTION.sourceEntries) <= _WHOLE_ENTRIES) {
        readAllSources();
        return sourceEntry(ordinal);
      }
      if (!bytesOfChunk) {
        const [last] = spanOf(SECTION.sourceOffsets, sources, Math.min(sources, (chunk + 1) * _SOURCE_CHUNK));
        if (last < first || at(SECTION.sourceEntries) + last > at(SECTION.sourceEntries + 1)) throw new IndexCorruptError("an entry runs past its section");
        bytesOfChunk = bytes.read(at(SECTION.sourceEntries) + first, last - first);
        sourceChunks.set(chunk, bytesOfChunk);
      }
      if (end - first > bytesOfChunk.length) throw new IndexCorruptError("an entry runs past its section");
      raw = bytesOfChunk.subarray(start - first, end - first);
    }
    try {
      return JSON.parse(decodeText(raw));
    } catch (error) {
      throw error instanceof IndexCorruptError ? error : new IndexCorruptError("an entry that does not parse");
    }
  };
  const readAllSources = (): void => {
    allSources = bytes.read(at(SECTION.sourceEntries), span(SECTION.sourceEntries));
  };

  const source = (ordinal: number): SegmentSourceEntry => {
    let found = sourceCache.get(ordinal);
    if (!found) sourceCache.set(ordinal, (found = sourceEntryOf(sourceEntry(ordinal), ordinal, docs)));
    return found;
  };

  const terms = openTermDictionary((section, from, length) => bytes.read(at(section) + from, length), span, docs);

  return {
    docs,
    sources,
    terms: u32At(header, 24),
    totalLen: u32At(header, 28),
    tokenizer: u32At(header, 12),

    postings: terms.postings,
    frequency: terms.frequency,
    holding: terms.holding,

    lengths: readLengths,
    lengthsIn,

    doc(index) {
      if (!Number.isInteger(index) || index < 0 || index >= docs) throw new IndexCorruptError(`document ${index} of ${docs}`);
      return entryOf(index);
    },

    expectEntries(count) {
      if (count >= _BLOCK_READS) manyEntries = true;
    },

    source,
    sourceOf,

    adoptSource(ordinal, raw) {
      if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= sources) throw new IndexCorruptError(`entry ${ordinal} of ${sources}`);
      if (!sourceCache.has(ordinal)) sourceCache.set(ordinal, sourceEntryOf(raw, ordinal, docs));
    },

    findSource(name) {
      if (byName) return byName.get(name) ?? -1;
      if (++sourceLookups > _SOURCE_SCAN_AFTER) {
        readAllSources();
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
      terms.forEach((key, found) => {
        const pairs: number[] = [];
        for (let i = 0; i < found.docs.length; i++) pairs.push(found.docs[i]!, found.tfs[i]!);
        content.postings.set(key, pairs);
      });
      return content;
    },

    close() {
      bytes.close();
    },
  };
}
