/**
 * A segment's string table (layout in segment-layout.ts), read in proportion to the strings its
 * entries name. Format 2: the offsets read once, then each string the first time an entry refers
 * to it, one read each until 32 were read, then the rest of the table's strings in one read
 * (decoded at once when they are ASCII). Format 1: one JSON array, read and parsed whole.
 *
 * Contract: throws IndexCorruptError when the bytes are not a string table, or a reference runs
 * past it; `read(from, length)` reads bytes of the strings section.
 */
import { ByteReader, IndexCorruptError, decodeText, u32At, u32sAt } from "./segment-layout.ts";
import type { StringTable } from "./entry-codec.ts";

// Past this many strings read one at a time, the rest of a format-2 string table's bytes are read in one go.
const _STRING_READS = 32;

export function openStringTable(formatOne: boolean, read: (from: number, length: number) => Uint8Array, size: number): StringTable {
  if (formatOne) return _jsonStrings(read(0, size));
  const count = size >= 8 ? u32At(read(0, 4), 0) : -1;
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
      offsets ??= u32sAt(read(4, (count + 1) * 4), count + 1);
      const from = offsets[index]!;
      const to = offsets[index + 1]!;
      if (to < from || first + to > size) throw new IndexCorruptError("a string runs past its table");
      // A search naming many strings (hundreds of hits) reads the rest at once: a read is a system call.
      if (!whole && ++reads > _STRING_READS) {
        whole = read(first, size - first);
        const decoded = decodeText(whole);
        if (decoded.length === whole.length) ascii = decoded;
      }
      if (ascii !== undefined) text = ascii.slice(from, to);
      else {
        const raw = whole ? whole.subarray(from, to) : read(first + from, to - from);
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
