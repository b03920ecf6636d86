/**
 * The binary form of a segment's document entries (segment-layout.ts): a JSON value written as
 * tagged varints, every string that repeats in the segment (an object key, a folder, a role, the
 * time shared by an exchange's passages) written once in the segment's string table and referred
 * to by number. A value reads back as `JSON.parse(JSON.stringify(value))` would: undefined
 * members dropped, non-finite numbers null.
 *
 *   tag 0 null · 1 false · 2 true · 3 varint (a non-negative integer) · 4 varint (a negative
 *   integer, negated) · 5 float64 (8 bytes) · 6 string: varint bytes, UTF-8 · 7 string: varint
 *   index into the table · 8 array: varint count, values · 9 object: varint count, key and value
 *   pairs (keys are strings, tag 6 or 7)
 *
 * The string table itself is opened by `openStringTable` (below), read in proportion to the
 * strings the entries name.
 */
import { ByteReader, IndexCorruptError, type ByteWriter, decodeText, textEncoder, u32At, u32sAt } from "./segment-layout.ts";

/**
 * The segment's string table as a decoder sees it: the strings, or a lookup of one by its index
 * (segment-read.ts reads a format-2 table one string at a time; it throws IndexCorruptError past
 * the table's end).
 */
export type StringTable = readonly string[] | ((index: number) => string);

/** Strings met at least twice over `values` (keys included), most frequent first: the segment's string table. */
export function repeatedStrings(values: readonly unknown[]): string[] {
  const counts = new Map<string, number>();
  const visit = (value: unknown): void => {
    if (typeof value === "string") counts.set(value, (counts.get(value) ?? 0) + 1);
    else if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value !== null && typeof value === "object")
      for (const [key, item] of Object.entries(value)) {
        if (item === undefined || typeof item === "function") continue;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        visit(item);
      }
  };
  for (const value of values) visit(value);
  return [...counts]
    .filter(([text, count]) => count > 1 && text.length > 1)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([text]) => text);
}

export function encodeValue(out: ByteWriter, value: unknown, table: ReadonlyMap<string, number>): void {
  if (value === null || value === undefined || typeof value === "function") out.byte(0);
  else if (value === false) out.byte(1);
  else if (value === true) out.byte(2);
  else if (typeof value === "number") {
    if (!Number.isFinite(value)) out.byte(0);
    else if (Number.isSafeInteger(value)) {
      out.byte(value >= 0 ? 3 : 4);
      out.varint(Math.abs(value));
    } else {
      out.byte(5);
      out.f64(value);
    }
  } else if (typeof value === "string") _string(out, value, table);
  else if (Array.isArray(value)) {
    out.byte(8);
    out.varint(value.length);
    for (const item of value) encodeValue(out, item, table);
  } else if (typeof value === "object") {
    const members = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== "function");
    out.byte(9);
    out.varint(members.length);
    for (const [key, item] of members) {
      _string(out, key, table);
      encodeValue(out, item, table);
    }
  } else out.byte(0);
}

export function decodeValue(reader: ByteReader, strings: StringTable): unknown {
  const tag = reader.byte();
  switch (tag) {
    case 0:
      return null;
    case 1:
      return false;
    case 2:
      return true;
    case 3:
      return reader.varint();
    case 4:
      return -reader.varint();
    case 5:
      return reader.f64();
    case 6:
    case 7:
      return _readString(reader, tag, strings);
    case 8: {
      const count = reader.varint();
      const items: unknown[] = [];
      for (let i = 0; i < count; i++) items.push(decodeValue(reader, strings));
      return items;
    }
    case 9: {
      const count = reader.varint();
      const object: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const key = _readString(reader, reader.byte(), strings);
        const value = decodeValue(reader, strings);
        // Only `__proto__` is special to an assignment: it alone is defined as data.
        if (key === "__proto__") Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
        else object[key] = value;
      }
      return object;
    }
    default:
      throw new IndexCorruptError(`an entry with an unknown tag ${tag}`);
  }
}

/**
 * The members of the object value at the reader, each read when first asked for (undefined when
 * absent, or when the value is not an object): one pass over the object whatever the order of
 * the questions. A member stepped over on the way to another is noted where it starts, unbuilt,
 * and built when asked for; the reader is this function's from then on.
 */
export function memberReader(reader: ByteReader, strings: StringTable): (key: string) => unknown {
  let left = -1;
  const passed = new Map<string, number>();
  return (key) => {
    if (left < 0) left = reader.byte() === 9 ? reader.varint() : 0;
    const at = passed.get(key);
    if (at !== undefined) {
      const again = new ByteReader(reader.bytes);
      again.position = at;
      return decodeValue(again, strings);
    }
    while (left > 0) {
      left -= 1;
      const name = _readString(reader, reader.byte(), strings);
      // The first member of a name answers.
      if (!passed.has(name)) passed.set(name, reader.position);
      if (name === key) return decodeValue(reader, strings);
      skipValue(reader);
    }
    return undefined;
  };
}

/**
 * Moves past `count` values without building them. One loop with a count of values left, not a
 * call per value: a search steps over hundreds of entries' cards before the JIT has compiled
 * anything, where each call costs more than the bytes it reads (docs/memory.md).
 */
export function skipValue(reader: ByteReader, count = 1): void {
  const bytes = reader.bytes;
  const end = bytes.length;
  let at = reader.position;
  let left = count;
  while (left > 0) {
    left -= 1;
    if (at >= end) throw new IndexCorruptError("an entry runs past its block");
    const tag = bytes[at++]!;
    if (tag <= 2) continue;
    if (tag === 5) {
      if (at + 8 > end) throw new IndexCorruptError("a number runs past its block");
      at += 8;
      continue;
    }
    if (tag > 9) throw new IndexCorruptError(`an entry with an unknown tag ${tag}`);
    // Every other tag is followed by a varint: a number (3, 4), a string's bytes (6) or reference (7), a count (8, 9).
    let value = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (i === 8) throw new IndexCorruptError("a number is too long");
      if (at >= end) throw new IndexCorruptError("a number runs past its section");
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
    }
    if (tag === 6) {
      at += value;
      if (at > end) throw new IndexCorruptError("a string runs past its block");
    } else if (tag === 8) left += value;
    else if (tag === 9) left += value * 2;
  }
  reader.position = at;
}

/** Reads a string written by encodeValue (a literal or a reference). */
export function decodeString(reader: ByteReader, strings: StringTable): string {
  return _readString(reader, reader.byte(), strings);
}

function _string(out: ByteWriter, text: string, table: ReadonlyMap<string, number>): void {
  const at = table.get(text);
  if (at !== undefined) {
    out.byte(7);
    out.varint(at);
    return;
  }
  const bytes = textEncoder.encode(text);
  out.byte(6);
  out.varint(bytes.length);
  out.raw(bytes);
}

function _readString(reader: ByteReader, tag: number, strings: StringTable): string {
  if (tag === 6) return reader.text();
  if (tag !== 7) throw new IndexCorruptError(`a string with tag ${tag}`);
  const at = reader.varint();
  if (typeof strings === "function") return strings(at);
  if (at >= strings.length) throw new IndexCorruptError(`a string reference ${at} past the table of ${strings.length}`);
  return strings[at]!;
}

// Past this many strings read one at a time, the rest of a format-2 string table's bytes are read in one go.
const _STRING_READS = 32;
// A format-2 table this small is read whole when it is opened: one read, not one for its count, one for its offsets and one per string
// (a recall index's table of 20 KiB, of which a prompt's dozen hits name twenty strings).
export const WHOLE_STRING_TABLE_BYTES = 64 * 1024;

/**
 * A segment's string table (layout in segment-layout.ts), read in proportion to the strings its
 * entries name. Format 2: the offsets read once, then each string the first time an entry refers
 * to it, one read each until 32 were read, then the rest of the table's strings in one read
 * (decoded at once when they are ASCII); a table of at most WHOLE_STRING_TABLE_BYTES is read
 * whole when opened (and its strings decoded at once when ASCII). Format 1: one JSON array,
 * read and parsed whole.
 *
 * Contract: throws IndexCorruptError when the bytes are not a string table, or a reference runs
 * past it; `read(from, length)` reads bytes of the strings section; `atOnce()` true: the rest
 * of the strings are read whole at the next one asked for.
 */
export function openStringTable(
  formatOne: boolean,
  read: (from: number, length: number) => Uint8Array,
  size: number,
  atOnce: () => boolean = () => false,
): StringTable {
  if (formatOne) return _jsonStrings(read(0, size));
  const all = size <= WHOLE_STRING_TABLE_BYTES ? read(0, size) : undefined;
  const part = all ? (from: number, length: number) => all.subarray(from, from + length) : read;
  const count = size >= 8 ? u32At(part(0, 4), 0) : -1;
  const first = 4 + (count + 1) * 4;
  if (count < 0 || first > size) throw new IndexCorruptError("a string table that is not one");
  let offsets: Uint32Array | undefined;
  let whole: Uint8Array | undefined;
  // The whole table decoded at once, when it is ASCII (its byte offsets are then its characters').
  let ascii: string | undefined;
  let reads = 0;
  const found: string[] = [];
  return (index) => {
    if (index >= count) throw new IndexCorruptError(`a string reference ${index} past the table of ${count}`);
    let text = found[index];
    if (text === undefined) {
      offsets ??= u32sAt(part(4, (count + 1) * 4), count + 1);
      const from = offsets[index]!;
      const to = offsets[index + 1]!;
      if (to < from || first + to > size) throw new IndexCorruptError("a string runs past its table");
      // A search naming many strings (hundreds of hits) reads the rest at once: a read is a system call.
      if (!whole && (all || ++reads > _STRING_READS || atOnce())) {
        whole = part(first, size - first);
        const decoded = decodeText(whole);
        if (decoded.length === whole.length) ascii = decoded;
      }
      if (ascii !== undefined) text = ascii.slice(from, to);
      else {
        const raw = whole ? whole.subarray(from, to) : part(first + from, to - from);
        text = new ByteReader(raw).key(raw.length);
      }
      found[index] = text;
    }
    return text;
  };
}

/** A format-1 string table: one JSON array of strings. */
function _jsonStrings(raw: Uint8Array): string[] {
  let list: unknown;
  try {
    list = JSON.parse(decodeText(raw));
  } catch (error) {
    throw error instanceof IndexCorruptError ? error : new IndexCorruptError("a string table that does not parse");
  }
  if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) throw new IndexCorruptError("a string table that is not one");
  return list;
}
