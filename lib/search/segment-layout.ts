/**
 * The layout of one index segment file (`<n>.seg`), shared by its writer (segment-write.ts) and
 * its reader (segment-read.ts). A segment is immutable once written. All integers are unsigned,
 * little-endian; `varint` is LEB128 (7 bits a byte, low first).
 *
 *   header, 80 bytes:
 *     0  magic "SHIROSEG"           8  u32 format (SEGMENT_FORMAT)   12 u32 tokenizer version
 *     16 u32 documents              20 u32 sources                   24 u32 terms
 *     28 u32 total length (terms of every document)
 *     32 u32 × 11 section offsets, in file order: source offsets, source entries, source starts,
 *        term index, term blocks, postings, lengths, strings, block offsets, document blocks, end
 *     76 u32 FNV-1a of bytes 0–75
 *   source offsets    u32 × (sources + 1), each relative to the source entries
 *   source entries    one JSON array per source, sorted by name: [name, stamp, firstDoc, count],
 *                     and a fifth member when the source's owner said what holds for all its
 *                     documents (its data: bm25-index.ts `describe`; readers that predate it
 *                     ignore it); a source's documents are `firstDoc … firstDoc + count - 1`, and
 *                     sources lay their documents out in name order, so ordinal = rank by name
 *   source starts     u32 × sources: each source's firstDoc, so a document's source is a binary
 *                     search away without reading its entry
 *   term index        per block of up to TERM_BLOCK terms: varint key bytes, key (UTF-8), varint
 *                     block offset (relative to the term blocks); read whole, searched in memory
 *   term blocks       per term, sorted by JavaScript string order: varint key bytes, key, varint
 *                     document frequency, varint postings offset (relative to the postings),
 *                     varint postings bytes
 *   postings          per term, documents ascending: varint (gap × 2 + (tf > 1)), then varint tf
 *                     when tf > 1; the first gap is counted from -1
 *   lengths           u32 × documents: each document's term count
 *   strings           every string the entries below use more than once, most used first
 *                     (entry-codec.ts): u32 count, u32 × (count + 1) offsets (relative to the
 *                     first string's byte), then the strings' UTF-8 bytes; a reader reads the
 *                     offsets and the strings its entries refer to, not the table. Format 1 (the
 *                     segments written before) holds one JSON array of the strings instead: read
 *                     whole, as it was, and answered from the same way
 *   block offsets     u32 × (blocks + 1), each relative to the document blocks; a block holds
 *                     DOC_BLOCK documents (the last one the rest)
 *   document blocks   per document, in order: varint source ordinal, id and stamp (strings, as
 *                     entry-codec.ts writes them), a byte 1 when `data` follows (entry-codec.ts's
 *                     binary JSON) or 0
 *
 * A file whose magic, format, header hash, section order or size is off, or whose bytes do not
 * decode, is corrupt: readers throw IndexCorruptError and the index is rebuilt from its sources.
 */
import { readSync } from "node:fs";

export const SEGMENT_MAGIC = "SHIROSEG";
/** What the writer writes; a reader also reads FIRST_SEGMENT_FORMAT (whose string table is one JSON array). */
export const SEGMENT_FORMAT = 2;
export const FIRST_SEGMENT_FORMAT = 1;
export const HEADER_BYTES = 80;
export const TERM_BLOCK = 32;
/** Documents per compressed block of entries. */
export const DOC_BLOCK = 8;
/** Section indexes into the header's offset table. */
export const SECTION = {
  sourceOffsets: 0,
  sourceEntries: 1,
  sourceStarts: 2,
  termIndex: 3,
  termBlocks: 4,
  postings: 5,
  lengths: 6,
  strings: 7,
  docOffsets: 8,
  docEntries: 9,
  end: 10,
} as const;
export const SECTIONS = 11;

/** A segment or manifest that cannot be read as written: the index is rebuilt from its sources. */
export class IndexCorruptError extends Error {}

/**
 * A source entry as stored (`[name, stamp, first document, count, data?]`, data absent or null for
 * none) checked against a segment of `docs` documents; IndexCorruptError naming `ordinal` when malformed.
 */
export function sourceEntryOf(raw: unknown, ordinal: number, docs: number): { name: string; stamp: string; firstDoc: number; count: number; data?: unknown } {
  const count = (value: unknown, max: number): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= max;
  if (!Array.isArray(raw) || typeof raw[0] !== "string" || typeof raw[1] !== "string" || !count(raw[2], docs) || !count(raw[3], docs - raw[2]))
    throw new IndexCorruptError(`source ${ordinal} is malformed`);
  const found: ReturnType<typeof sourceEntryOf> = { name: raw[0], stamp: raw[1], firstDoc: raw[2], count: raw[3] };
  if (raw.length > 4 && raw[4] !== null) found.data = raw[4];
  return found;
}

/** Positioned reads of one segment's bytes: a file, or bytes built in memory. */
export interface ByteSource {
  readonly size: number;
  read(position: number, length: number): Uint8Array;
  close(): void;
}

export function bufferSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read(position, length) {
      if (position < 0 || position + length > bytes.length) throw new IndexCorruptError(`a read past the end (${position}+${length} of ${bytes.length})`);
      return bytes.subarray(position, position + length);
    },
    close() {},
  };
}

export function fileSource(fd: number, size: number, close: () => void): ByteSource {
  return {
    size,
    read(position, length) {
      if (position < 0 || position + length > size) throw new IndexCorruptError(`a read past the end (${position}+${length} of ${size})`);
      // Not zero-filled first; a small read takes a slice of Buffer's pool, cheaper than an array of its own.
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const n = readSync(fd, buffer, done, length - done, position + done);
        if (n === 0) throw new IndexCorruptError("the file ended early");
        done += n;
      }
      return buffer;
    },
    close,
  };
}

/** FNV-1a over `bytes`; an indexed loop: a segment's header is checked at every open, mostly before the JIT has compiled this, where an iterator costs several times more. */
export function fnv1a(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i]!, 0x01000193) >>> 0;
  return hash;
}

/** Appends varints and bytes to a growing buffer. */
export class ByteWriter {
  private bytes = new Uint8Array(1024);
  length = 0;

  private ensure(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.bytes.subarray(0, this.length));
    this.bytes = next;
  }

  varint(value: number): void {
    this.ensure(10);
    let rest = value;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.bytes[this.length++] = rest;
  }

  byte(value: number): void {
    this.ensure(1);
    this.bytes[this.length++] = value;
  }

  f64(value: number): void {
    this.ensure(8);
    new DataView(this.bytes.buffer).setFloat64(this.length, value, true);
    this.length += 8;
  }

  u32(value: number): void {
    this.ensure(4);
    new DataView(this.bytes.buffer).setUint32(this.length, value >>> 0, true);
    this.length += 4;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  finish(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** Reads varints from bytes, throwing IndexCorruptError past the end. */
export class ByteReader {
  position = 0;
  constructor(readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.position >= this.bytes.length;
  }

  byte(): number {
    if (this.position >= this.bytes.length) throw new IndexCorruptError("an entry runs past its block");
    return this.bytes[this.position++]!;
  }

  f64(): number {
    if (this.position + 8 > this.bytes.length) throw new IndexCorruptError("a number runs past its block");
    const value = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).getFloat64(this.position, true);
    this.position += 8;
    return value;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      if (this.position >= this.bytes.length) throw new IndexCorruptError("a number runs past its section");
      const byte = this.bytes[this.position++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
    throw new IndexCorruptError("a number is too long");
  }

  text(): string {
    return this.key(this.varint());
  }

  /** The `length` bytes at the position, as text. */
  key(length: number): string {
    if (this.position + length > this.bytes.length) throw new IndexCorruptError("a key runs past its section");
    const start = this.position;
    this.position += length;
    // The decoder even for short ASCII: measured cold (as a search runs), a character loop costs
    // several times one decoder call from 6 bytes up.
    return decodeText(this.bytes.subarray(start, start + length));
  }
}

const _decoder = new TextDecoder("utf-8", { fatal: true });
export const textEncoder = new TextEncoder();

export function decodeText(bytes: Uint8Array): string {
  try {
    return _decoder.decode(bytes);
  } catch {
    throw new IndexCorruptError("bytes that are not UTF-8");
  }
}

export function u32At(bytes: Uint8Array, position: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(position, true);
}

const _LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** `count` little-endian u32s from `raw` (on a little-endian machine, a view of them when aligned, else one copy). */
export function u32sAt(raw: Uint8Array, count: number): Uint32Array {
  // Bytes read for this alone (a file's read, a fresh buffer) are viewed, not copied.
  if (_LITTLE_ENDIAN && raw.byteOffset % 4 === 0) return new Uint32Array(raw.buffer, raw.byteOffset, count);
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

/** What a source name is a kind of: its text up to and including its first `:`, the whole name when it has none. */
export const sourceKind = (name: string): string => name.slice(0, name.indexOf(":") + 1) || name;

/** The greatest name of each kind among `sources` (index-manifest.ts `last`, written with the segment by segment-files.ts). */
export function lastNamesOf(sources: readonly { name: string }[]): string[] {
  const last = new Map<string, string>();
  for (const { name } of sources) {
    const kind = sourceKind(name);
    const known = last.get(kind);
    if (known === undefined || name > known) last.set(kind, name);
  }
  return [...last.values()];
}

/** False when `last` (a segment's, index-manifest.ts) says the segment holds no source named `name`; true when it may, or when there is no `last`. */
export function mayHoldSource(last: readonly string[] | undefined, name: string): boolean {
  if (!last) return true;
  const kind = sourceKind(name);
  for (const greatest of last) if (sourceKind(greatest) === kind) return name <= greatest;
  return false;
}
