/**
 * A segment is read in proportion to what a search asks of it (lib/search/segment-read.ts,
 * segmented-index.ts): every positioned read of the segment's bytes is recorded and checked
 * against the sections the segment header names.
 * - A term's document frequency reads its dictionary block, never its postings.
 * - A document's entry reads its block's two offsets and the block, and one length.
 * - A search with a prefix reads no postings of a segment that holds no source of the prefix,
 *   and of the one that does, the lengths of the prefix's documents only.
 * The answers are the ones the whole-file reader gives (the same bytes in memory).
 */
import { describe, expect, test } from "bun:test";
import type { IndexedDocInput } from "../../lib/search/bm25-index.ts";
import { DOC_BLOCK, SECTION, bufferSource, u32At, type ByteSource } from "../../lib/search/segment-layout.ts";
import { openSegment } from "../../lib/search/segment-read.ts";
import { createSegmentBuilder, encodeSegment } from "../../lib/search/segment-write.ts";
import { createSegmentedIndex } from "../../lib/search/segmented-index.ts";
import { TOKENIZER_VERSION } from "../../lib/search/tokenize.ts";

interface Recorded {
  source: ByteSource;
  reads: [number, number][];
  bytes: Uint8Array;
}

function _recorded(bytes: Uint8Array): Recorded {
  const inner = bufferSource(bytes);
  const reads: [number, number][] = [];
  return { bytes, reads, source: { ...inner, read: (position, length) => (reads.push([position, length]), inner.read(position, length)) } };
}

const _section = (bytes: Uint8Array, section: number): [number, number] => [u32At(bytes, 32 + section * 4), u32At(bytes, 32 + (section + 1) * 4)];
/** Bytes of `reads` that fall inside `section`. */
const _readIn = (recorded: Recorded, section: number): number => {
  const [from, to] = _section(recorded.bytes, section);
  return recorded.reads.reduce((sum, [position, length]) => sum + Math.max(0, Math.min(to, position + length) - Math.max(from, position)), 0);
};

/** `count` sources named `<prefix><n>`, each of 20 documents saying `login` (every third also `redirect`), with a card. */
function _segment(prefix: string, count: number): Uint8Array {
  const builder = createSegmentBuilder();
  for (let s = 0; s < count; s++) {
    const docs: IndexedDocInput[] = Array.from({ length: 20 }, (_, i) => ({
      id: `m${i}`,
      stamp: "",
      text: `login ${i % 3 === 0 ? "redirect " : ""}${"filler ".repeat(i % 5)}word${s}x${i}`,
      data: { at: `2026-01-${String((s % 28) + 1).padStart(2, "0")}T00:00:00.000Z`, cwd: "/work/app", role: i % 2 ? "answer" : "prompt" },
    }));
    builder.add(`${prefix}${String(s).padStart(4, "0")}`, "stamp", docs);
  }
  return encodeSegment(builder.build(), TOKENIZER_VERSION);
}

describe("a segment read in proportion", () => {
  test("a term's frequency reads its dictionary block and no postings; a document's entry reads its block and one length", () => {
    const recorded = _recorded(_segment("session:", 200));
    const reader = openSegment(recorded.source);
    const whole = openSegment(bufferSource(recorded.bytes), true);
    expect([reader.frequency("login"), reader.frequency("redirect"), reader.frequency("absent")]).toEqual([4000, 1400, 0]);
    expect(_readIn(recorded, SECTION.postings)).toBe(0);
    expect(_readIn(recorded, SECTION.lengths)).toBe(0);

    const before = recorded.reads.length;
    expect(reader.doc(2345)).toEqual(whole.doc(2345));
    expect(reader.doc(2345).data).toEqual({ at: "2026-01-06T00:00:00.000Z", cwd: "/work/app", role: "answer" });
    const [blocksFrom, blocksTo] = _section(recorded.bytes, SECTION.docEntries);
    const blocks = recorded.reads.slice(before).filter(([position]) => position >= blocksFrom && position < blocksTo);
    // One block of DOC_BLOCK entries, its two offsets, and the entry's length: not the tables of 4,000 documents.
    expect(blocks).toHaveLength(1);
    expect(_readIn(recorded, SECTION.docOffsets)).toBe(8);
    expect(_readIn(recorded, SECTION.lengths)).toBe(4);
    // Its neighbours in the block cost no read.
    const after = recorded.reads.length;
    const block = Math.floor(2345 / DOC_BLOCK) * DOC_BLOCK;
    for (let doc = block; doc < block + DOC_BLOCK; doc++) expect(reader.doc(doc)).toEqual(whole.doc(doc));
    expect(recorded.reads.length - after).toBe(DOC_BLOCK - 1);
    expect(_readIn(recorded, SECTION.docEntries)).toBe(blocks[0]![1]);
  });

  test("a search under a prefix reads no postings of a segment without the prefix, and the prefix's lengths only", () => {
    const runs = _recorded(_segment("run:", 150));
    const sessions = _recorded(Uint8Array.from(_segment("session:", 100)));
    const mixed = createSegmentBuilder();
    for (let s = 0; s < 60; s++)
      mixed.add(`${s % 2 ? "run:" : "session:"}${String(500 + s)}`, "stamp", [{ id: "m0", stamp: "", text: `login redirect n${s}` }]);
    const both = _recorded(encodeSegment(mixed.build(), TOKENIZER_VERSION));
    const open = (recorded: Recorded, file: string) => ({ file, reader: openSegment(recorded.source), dead: new Set<number>() });
    const openWhole = (recorded: Recorded, file: string) => ({ file, reader: openSegment(bufferSource(recorded.bytes), true), dead: new Set<number>() });
    const totals = (segments: { reader: { docs: number; totalLen: number } }[]) => ({
      docs: segments.reduce((sum, segment) => sum + segment.reader.docs, 0),
      totalLen: segments.reduce((sum, segment) => sum + segment.reader.totalLen, 0),
    });
    const parts = [open(runs, "1.seg"), open(sessions, "2.seg"), open(both, "3.seg")];
    const index = createSegmentedIndex(parts, totals(parts));
    const wholes = [openWhole(runs, "1.seg"), openWhole(sessions, "2.seg"), openWhole(both, "3.seg")];
    const reference = createSegmentedIndex(wholes, totals(wholes));
    const options = { limit: 30, segmentPrefix: "session:" };
    const hits = index.search("login redirect", options);
    expect(hits).toEqual(reference.search("login redirect", options));
    expect(hits.length).toBe(30);
    expect(hits.every((hit) => hit.segment.startsWith("session:"))).toBe(true);
    // The run segment: its dictionary (for the collection's frequencies), never its postings, lengths or entries.
    expect([_readIn(runs, SECTION.postings), _readIn(runs, SECTION.lengths), _readIn(runs, SECTION.docEntries)]).toEqual([0, 0, 0]);
    expect(_readIn(sessions, SECTION.postings)).toBeGreaterThan(0);
    // The mixed segment: the lengths of its 30 session documents (sources lay out in name order: `run:` first), and each hit's own.
    const fromMixed = hits.filter((hit) => Number(hit.segment.slice("session:".length)) >= 500).length;
    expect(fromMixed).toBeGreaterThan(0);
    expect(_readIn(both, SECTION.lengths)).toBe(30 * 4 + fromMixed * 4);
  });
});
