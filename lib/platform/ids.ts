/** Identifiers. UUIDv7 (RFC 9562): 48-bit Unix ms timestamp, version 7, variant 10 — ids sort by creation time. */
import { randomBytes } from "node:crypto";

let _lastMs = 0;
let _seq = 0;

export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
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
 * The shortest prefix of `id` (at least `min` characters) that no other id shares. UUIDv7 ids
 * made within the same ~65 s share their first 8 characters, so a fixed id8 can be ambiguous.
 */
export function shortestUniquePrefix(id: string, others: Iterable<string>, min = 8): string {
  let length = min;
  for (const other of others) {
    if (other === id) continue;
    let common = 0;
    while (common < id.length && id[common] === other[common]) common++;
    length = Math.max(length, common + 1);
  }
  return id.slice(0, Math.min(length, id.length));
}
