/** Identifiers. UUIDv7 (RFC 9562): 48-bit Unix ms timestamp, version 7, variant 10 — ids sort by creation time. */
import { Buffer } from "node:buffer";

let _lastMs = 0;
let _seq = 0;

export function uuidv7(now = Date.now()): string {
  // Web Crypto, not node:crypto: loading that module costs a compiled binary more than 10 ms of its start.
  const bytes = Buffer.alloc(16);
  globalThis.crypto.getRandomValues(bytes);
  // Within one millisecond, bump a 12-bit counter in rand_a so ids from one process stay ordered.
  if (now === _lastMs) _seq = (_seq + 1) & 0xfff;
  else {
    _lastMs = now;
    _seq = bytes.readUInt16BE(6) & 0x7ff;
  }
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (_seq >> 8);
  bytes[7] = _seq & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function isUuid(text: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text);
}

/**
 * Id abbreviation, the one way every id shown to a model or a user is shortened (as git abbreviates
 * hashes): the shortest prefix of `id`, at least `min` characters, that no other id of `accepted`
 * shares, where `accepted` is every id the command the shown id names resolves against. UUIDv7 ids
 * made within the same ~65 s share their first 8 characters (the time), so a fixed width can be
 * ambiguous. A prefix never ends on a `-`: it takes the next character too. `id` need not be in
 * `accepted`; comparison is exact (ids are lower-case).
 */
export type Abbreviate = (id: string) => string;

/** The shortest an abbreviation is by default: the 8 characters of a UUIDv7's time. */
export const ABBREVIATION_MIN = 8;

/**
 * An id's first `ABBREVIATION_MIN` characters: only the ids that share them can lengthen its
 * abbreviation, so a caller with many ids compares it with those alone.
 */
export function abbreviationHead(id: string): string {
  return id.slice(0, ABBREVIATION_MIN);
}

/** One sort of `accepted`, then each abbreviation by binary search against its two neighbours. */
export function createAbbreviator(accepted: Iterable<string>, min = ABBREVIATION_MIN): Abbreviate {
  const sorted = [...new Set(accepted)].sort();
  return (id) => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle]! < id) low = middle + 1;
      else high = middle;
    }
    const before = sorted[low - 1];
    const after = sorted[low] === id ? sorted[low + 1] : sorted[low];
    let length = Math.max(min, _common(id, before) + 1, _common(id, after) + 1);
    while (length < id.length && id[length - 1] === "-") length += 1;
    return id.slice(0, Math.min(length, id.length));
  };
}

/** `createAbbreviator(accepted, min)(id)`, for one id. */
export function shortestUniquePrefix(id: string, accepted: Iterable<string>, min = ABBREVIATION_MIN): string {
  return createAbbreviator(accepted, min)(id);
}

function _common(a: string, b: string | undefined): number {
  if (b === undefined || b === a) return 0;
  let common = 0;
  while (common < a.length && a[common] === b[common]) common++;
  return common;
}
