/**
 * The orders notes are listed and ranked in: `sortNewestFirst` (newest first: createdAt, then id)
 * and `rankByUse` (hits descending, then newest first) give exactly what one comparator sort of the
 * same entries gives, for lists already in order (oldest first, as a file keeps them, or newest
 * first), shuffled ones, ties on createdAt, equal hits and duplicates; and neither changes its input.
 */
import { describe, expect, test } from "bun:test";
import { rankByUse, sortNewestFirst, type MemoryEntry } from "../../lib/store/memory.ts";

const age = (a: MemoryEntry, b: MemoryEntry) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byAge = (entries: readonly MemoryEntry[]) => [...entries].sort((a, b) => age(b, a));
const byUse = (entries: readonly MemoryEntry[]) => [...entries].sort((a, b) => b.hits - a.hits || age(b, a));

/** A small deterministic generator: the same lists on every run. */
function lists(): [string, MemoryEntry[]][] {
  let seed = 11;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const note = (at: number, hits: number, id = `01a2${String(at).padStart(4, "0")}-0000-7000-8000-${String(next(1000)).padStart(12, "0")}`): MemoryEntry => ({
    id,
    kind: "fact",
    text: `note ${at}`,
    createdAt: `2026-11-${String(1 + (at % 28)).padStart(2, "0")}T10:00:00.000Z`,
    hits,
  });
  const ascending = Array.from({ length: 300 }, (_, at) => note(at, 0)).sort(age);
  const out: [string, MemoryEntry[]][] = [
    ["empty", []],
    ["one", [note(1, 3)]],
    ["oldest first", ascending],
    ["newest first", [...ascending].reverse()],
    ["oldest first, a few recalled", ascending.map((entry, at) => (at % 37 === 0 ? { ...entry, hits: 1 + (at % 3) } : entry))],
    ["a duplicate pair", [...ascending.slice(0, 5), ascending[4]!, ...ascending.slice(5, 9)]],
  ];
  for (let round = 0; round < 20; round++) {
    const shuffled = ascending.slice(0, 40 + next(60)).map((entry) => ({ ...entry, hits: next(3) === 0 ? next(4) : 0 }));
    for (let at = shuffled.length - 1; at > 0; at--) {
      const other = next(at + 1);
      [shuffled[at], shuffled[other]] = [shuffled[other]!, shuffled[at]!];
    }
    out.push([`shuffled ${round}`, shuffled]);
  }
  return out;
}

describe("note order", () => {
  for (const [name, entries] of lists())
    test(`${name}: the comparator's order, input unchanged`, () => {
      const before = [...entries];
      expect(sortNewestFirst(entries)).toEqual(byAge(entries));
      expect(rankByUse(entries)).toEqual(byUse(entries));
      expect(sortNewestFirst(entries).map((entry) => entries.indexOf(entry))).toEqual(byAge(entries).map((entry) => entries.indexOf(entry)));
      expect(entries).toEqual(before);
    });
});
