/**
 * A segment is read in proportion to what a search asks of it (lib/search/segment-read.ts,
 * segmented-index.ts): every positioned read of the segment's bytes is recorded and checked
 * against the sections the segment header names.
 * - A term's document frequency reads its dictionary block, never its postings.
 * - A document's entry reads its block (after the table of block offsets), and its length only
 *   when asked for.
 * - A search with a prefix reads no postings of a segment that holds no source of the prefix
 *   (of its source entries, its first and last names only), and of the one that does, the
 *   lengths of the prefix's documents only.
 * - A string table (format 2) is read as its offsets and the strings the entries read name; one of
 *   at most 64 KiB in one read, whole, when first needed.
 * - A search that reads 16 or more hits' entries reads a small section of entries and its
 *   string table whole, once; one reading a few reads their blocks.
 * - A hit's data is decoded when first read; one member of it (what a ranking groups by) is read
 *   alone.
 * The answers are the ones the whole-file reader gives (the same bytes in memory). A format-1
 * segment (a JSON string table; test/fixtures/segment-format-1.seg, written by that writer) reads
 * back the same content and answers the same searches, in a folder beside new segments too.
 */
import { describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bm25Index, IndexedDocInput } from "../../lib/search/bm25-index.ts";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { DOC_BLOCK, SECTION, SEGMENT_FORMAT, bufferSource, u32At, type ByteSource } from "../../lib/search/segment-layout.ts";
import { WHOLE_STRING_TABLE_BYTES } from "../../lib/search/entry-codec.ts";
import { openSegment } from "../../lib/search/segment-read.ts";
import { createSegmentBuilder, encodeSegment } from "../../lib/search/segment-write.ts";
import { createSegmentedIndex } from "../../lib/search/segmented-index.ts";
import { TOKENIZER_VERSION } from "../../lib/search/tokenize.ts";
import { FORMAT_ONE_SEGMENT, formatOneSources } from "../fixtures/segment-format-1.ts";

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

/** `count` sources named `<prefix><n>`, each of 20 documents saying `login` (every third also `redirect`), with a card (its thread named with `pad` x's). */
function _segment(prefix: string, count: number, pad = 20): Uint8Array {
  const builder = createSegmentBuilder();
  for (let s = 0; s < count; s++) {
    const docs: IndexedDocInput[] = Array.from({ length: 20 }, (_, i) => ({
      id: `m${i}`,
      stamp: "",
      text: `login ${i % 3 === 0 ? "redirect " : ""}${"filler ".repeat(i % 5)}word${s}x${i}`,
      data: {
        at: `2026-01-${String((s % 28) + 1).padStart(2, "0")}T00:00:00.000Z`,
        cwd: "/work/app",
        role: i % 2 ? "answer" : "prompt",
        thread: `thread-${s}-${"x".repeat(pad)}`,
      },
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
    const entry = reader.doc(2345);
    expect([entry.source, entry.id, entry.stamp, entry.data]).toEqual([
      117,
      "m5",
      "",
      { at: "2026-01-06T00:00:00.000Z", cwd: "/work/app", role: "answer", thread: `thread-117-${"x".repeat(20)}` },
    ]);
    const [blocksFrom, blocksTo] = _section(recorded.bytes, SECTION.docEntries);
    const blocks = recorded.reads.slice(before).filter(([position]) => position >= blocksFrom && position < blocksTo);
    // One block of DOC_BLOCK entries (and the table of block offsets): not the lengths of 4,000 documents, nor the other blocks.
    expect(blocks).toHaveLength(1);
    expect(_readIn(recorded, SECTION.docOffsets)).toBe(_section(recorded.bytes, SECTION.docOffsets)[1] - _section(recorded.bytes, SECTION.docOffsets)[0]);
    expect(_readIn(recorded, SECTION.lengths)).toBe(0);
    expect(entry).toEqual(whole.doc(2345));
    expect(_readIn(recorded, SECTION.lengths)).toBe(4);
    // Its neighbours in the block cost no read of entries: only their lengths and the strings they name.
    const after = recorded.reads.length;
    const block = Math.floor(2345 / DOC_BLOCK) * DOC_BLOCK;
    for (let doc = block; doc < block + DOC_BLOCK; doc++) expect(reader.doc(doc)).toEqual(whole.doc(doc));
    const inside =
      (section: number) =>
      ([position]: [number, number]) =>
        position >= _section(recorded.bytes, section)[0] && position < _section(recorded.bytes, section)[1];
    expect(recorded.reads.slice(after).filter((read) => !inside(SECTION.lengths)(read) && !inside(SECTION.strings)(read))).toEqual([]);
    expect(_readIn(recorded, SECTION.docEntries)).toBe(blocks[0]![1]);
  });

  test("a search that reads its hits' entries, told it will read 16 or more, reads a small section of entries and its strings whole at once", () => {
    const search = (query: string, limit: number) => {
      const recorded = _recorded(_segment("session:", 40));
      const segment = { file: "s.seg", reader: openSegment(recorded.source), dead: new Set<number>() };
      const index = createSegmentedIndex([segment], { docs: segment.reader.docs, totalLen: segment.reader.totalLen });
      const hits = index.search(query, { limit, idFilter: () => true }).map((hit) => [hit.segment, hit.id, hit.score, hit.data]);
      const [from, to] = _section(recorded.bytes, SECTION.docEntries);
      const [stringsFrom, stringsTo] = _section(recorded.bytes, SECTION.strings);
      const within = (low: number, high: number) => recorded.reads.filter(([position]) => position >= low && position < high);
      return { hits, entries: within(from, to), strings: within(stringsFrom, stringsTo), section: [from, to - from] as [number, number] };
    };
    const reference = (query: string, limit: number) => {
      const bytes = _segment("session:", 40);
      const reader = openSegment(bufferSource(bytes), true);
      return createSegmentedIndex([{ file: "s.seg", reader, dead: new Set<number>() }], { docs: reader.docs, totalLen: reader.totalLen })
        .search(query, { limit, idFilter: () => true })
        .map((hit) => [hit.segment, hit.id, hit.score, hit.data]);
    };
    const many = search("login", 300);
    expect(many.hits).toEqual(reference("login", 300));
    expect(many.entries).toEqual([many.section]);
    // The string table's count and offsets, then every string in one read.
    expect(many.strings.length).toBeLessThanOrEqual(3);
    // One document holds all three of the query's terms: one hit, one block.
    const few = search("word12x4", 1);
    expect(few.hits).toEqual(reference("word12x4", 1));
    expect(few.entries).toHaveLength(1);
    expect(few.entries[0]![1]).toBeLessThan(many.section[1]! / 16);
  });

  test("past 16 blocks of entries read one by one, a small section of entries is read whole once; a large one stays block by block", () => {
    const small = _recorded(_segment("session:", 40));
    const reader = openSegment(small.source);
    const whole = openSegment(bufferSource(small.bytes), true);
    const [from, to] = _section(small.bytes, SECTION.docEntries);
    const entryReads = () => small.reads.filter(([position]) => position >= from && position < to);
    const blocks = Math.ceil(800 / DOC_BLOCK);
    for (let block = 0; block < 16; block++) expect(reader.doc(block * DOC_BLOCK + 3)).toEqual(whole.doc(block * DOC_BLOCK + 3));
    expect(entryReads()).toHaveLength(16);
    for (let block = 16; block < blocks; block++) expect(reader.doc(block * DOC_BLOCK + 5)).toEqual(whole.doc(block * DOC_BLOCK + 5));
    // The 17th block read the whole section; no block after it was read on its own.
    expect(entryReads()).toHaveLength(17);
    expect(entryReads()[16]).toEqual([from, to - from]);

    const builder = createSegmentBuilder();
    const docs: IndexedDocInput[] = Array.from({ length: 3000 }, (_, i) => ({
      id: `m${i}`,
      stamp: "",
      text: `login word${i}`,
      data: { text: `${i} ${"y".repeat(200)}` },
    }));
    builder.add("session:big", "stamp", docs);
    const large = _recorded(encodeSegment(builder.build(), TOKENIZER_VERSION));
    const [largeFrom, largeTo] = _section(large.bytes, SECTION.docEntries);
    expect(largeTo - largeFrom).toBeGreaterThan(512 * 1024);
    const largeReader = openSegment(large.source);
    for (let block = 0; block < 40; block++) expect(largeReader.doc(block * DOC_BLOCK).data).toEqual(docs[block * DOC_BLOCK]!.data);
    const largeReads = large.reads.filter(([position]) => position >= largeFrom && position < largeTo);
    expect(largeReads).toHaveLength(40);
    expect(Math.max(...largeReads.map(([, length]) => length))).toBeLessThan(8 * 1024);
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
    // Of its 150 sources' entries, its first and last names (all before the prefix): two chunks, not a search's.
    const [runsFrom, runsTo] = _section(runs.bytes, SECTION.sourceEntries);
    expect(runs.reads.filter(([position]) => position >= runsFrom && position < runsTo)).toHaveLength(2);
    expect(_readIn(sessions, SECTION.postings)).toBeGreaterThan(0);
    // The mixed segment: the lengths of its 30 session documents (sources lay out in name order: `run:` first).
    expect(hits.some((hit) => Number(hit.segment.slice("session:".length)) >= 500)).toBe(true);
    expect(_readIn(both, SECTION.lengths)).toBe(30 * 4);
  });
});

describe("a hit's data", () => {
  test("one member of it is read without the rest; the whole is decoded when first read, and equal hits stay equal", () => {
    const segment = { file: "1.seg", reader: openSegment(bufferSource(_segment("session:", 30))), dead: new Set<number>() };
    const index = createSegmentedIndex([segment], { docs: segment.reader.docs, totalLen: segment.reader.totalLen });
    const hits = index.search("redirect", { limit: 5, idFilter: (name) => name !== "session:0000" });
    expect(hits.map((hit) => [hit.field!("role"), hit.field!("thread"), hit.field!("absent")])).toEqual(
      hits.map((hit) => [(hit.data as { role: string }).role, (hit.data as { thread: string }).thread, undefined]),
    );
    expect(hits.every((hit) => !hit.segment.endsWith("0000") && !Object.keys(hit).includes("field"))).toBe(true);
    expect(index.search("redirect", { limit: 5, idFilter: (name) => name !== "session:0000" })).toEqual(hits);
  });
});

describe("the string table", () => {
  test("format 2: in a table of more than 64 KiB, an entry reads the table's offsets and the strings it names, not the table", () => {
    const recorded = _recorded(_segment("session:", 200, 400));
    const [from, to] = _section(recorded.bytes, SECTION.strings);
    const count = u32At(recorded.bytes, from);
    expect(u32At(recorded.bytes, 8)).toBe(SEGMENT_FORMAT);
    expect(to - from).toBeGreaterThan(WHOLE_STRING_TABLE_BYTES);
    const entry = openSegment(recorded.source).doc(2345);
    expect([entry.id, entry.data]).toEqual([
      "m5",
      { at: "2026-01-06T00:00:00.000Z", cwd: "/work/app", role: "answer", thread: `thread-117-${"x".repeat(400)}` },
    ]);
    // Its id, the card's four keys, its folder, role, time and thread: nine strings of the table (an empty stamp is written in place).
    const named = ["m5", "at", "cwd", "role", "thread", "/work/app", "answer", "2026-01-06T00:00:00.000Z", `thread-117-${"x".repeat(400)}`].join("").length;
    expect(_readIn(recorded, SECTION.strings)).toBe(4 + (count + 1) * 4 + named);
    expect(to - from).toBeGreaterThan(4 * (4 + (count + 1) * 4 + named));
  });

  test("format 2: a table of at most 64 KiB is read whole, in one read, at an entry's first string; the entries read the same", () => {
    const bytes = _segment("session:", 200);
    const recorded = _recorded(bytes);
    const [from, to] = _section(recorded.bytes, SECTION.strings);
    expect(to - from).toBeLessThanOrEqual(WHOLE_STRING_TABLE_BYTES);
    const reader = openSegment(recorded.source);
    const whole = openSegment(bufferSource(bytes), true);
    for (const doc of [2345, 0, 3999]) expect(reader.doc(doc)).toEqual(whole.doc(doc));
    const inStrings = recorded.reads.filter(([position, length]) => position < to && position + length > from);
    expect(inStrings).toEqual([[from, to - from]]);
  });

  test("format 2: past the first strings read one by one, the rest are read at once and decode the same, ASCII or not", () => {
    for (const mark of ["", " ✓ naïve"]) {
      const builder = createSegmentBuilder();
      for (let s = 0; s < 40; s++)
        builder.add(`session:${s}`, "stamp", [
          { id: "m0", stamp: "", text: "word", data: { thread: `thread ${s}${mark}`, role: "prompt" } },
          { id: "m1", stamp: "", text: "word", data: { thread: `thread ${s}${mark}`, role: "answer" } },
        ]);
      const content = builder.build();
      const reader = openSegment(bufferSource(encodeSegment(content, TOKENIZER_VERSION)));
      for (let doc = 0; doc < reader.docs; doc++) expect(reader.doc(doc)).toEqual(content.docs[doc]!);
    }
  });

  const sources = formatOneSources();
  const current = () => {
    const builder = createSegmentBuilder();
    for (const [name, stamp, docs] of sources) builder.add(name, stamp, docs);
    return builder.build();
  };
  const old = () => new Uint8Array(readFileSync(FORMAT_ONE_SEGMENT));

  test("format 1: its content and every search read back as the documents written", () => {
    expect(u32At(old(), 8)).toBe(1);
    const reader = openSegment(bufferSource(old()));
    const content = current();
    expect(reader.content()).toEqual(content);
    for (let doc = 0; doc < reader.docs; doc += 37) expect(reader.doc(doc)).toEqual(content.docs[doc]!);
    const index = (bytes: Uint8Array) => {
      const segment = { file: "1.seg", reader: openSegment(bufferSource(bytes)), dead: new Set<number>() };
      return createSegmentedIndex([segment], { docs: segment.reader.docs, totalLen: segment.reader.totalLen });
    };
    const fromOld = index(old());
    const fromNew = index(encodeSegment(content, TOKENIZER_VERSION));
    for (const query of ["login redirect", "naïve ✓", "w3x7 timeout", "filler cache", "absent"])
      for (const options of [{ limit: 50 }, { limit: 5, segmentPrefix: "session:" }])
        expect(fromOld.search(query, options)).toEqual(fromNew.search(query, options));
    // A merge of it writes the current format, with the same content.
    const merged = encodeSegment(reader.content(), TOKENIZER_VERSION);
    expect([u32At(merged, 8), openSegment(bufferSource(merged)).content()]).toEqual([SEGMENT_FORMAT, content]);
  });

  test("format 1 in an index folder: read as it is, no notice, and a change adds a format-2 segment beside it", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-segment-format-"));
    const fresh = join(dir, "fresh");
    const kept = join(dir, "kept");
    mkdirSync(kept);
    copyFileSync(FORMAT_ONE_SEGMENT, join(kept, "000001.seg"));
    const content = current();
    const totalLen = content.docs.reduce((sum, doc) => sum + doc.len, 0);
    const manifest = { version: 2, tokenizer: TOKENIZER_VERSION, generation: 1, next: 2, dead: {}, docs: content.docs.length, totalLen, meta: {} };
    writeFileSync(
      join(kept, "manifest.json"),
      JSON.stringify({ ...manifest, segments: [{ file: "000001.seg", docs: content.docs.length, bytes: old().length }] }),
    );
    const added: IndexedDocInput[] = [{ id: "m0", stamp: "", text: "login redirect after the upgrade" }];
    const sync = (index: Bm25Index) => {
      for (const [name, stamp, docs] of sources) index.sync(name, stamp, () => docs);
      index.sync("session:09990000", "new", () => added);
    };
    const notices: string[] = [];
    const answers = (folder: string) => {
      const index = openIndexFolder(folder, { label: "test index", onNotice: (text) => notices.push(text) }).open(sync);
      return ["login redirect", "upgrade", "naïve"].map((query) => index.search(query, { limit: 20 }));
    };
    expect(answers(kept)).toEqual(answers(fresh));
    expect(notices).toEqual([]);
    expect(readdirSync(kept).sort()).toEqual(["000001.seg", "000002.seg", "manifest.json"]);
    expect(readFileSync(join(kept, "000001.seg"))).toEqual(readFileSync(FORMAT_ONE_SEGMENT));
    expect(u32At(new Uint8Array(readFileSync(join(kept, "000002.seg"))), 8)).toBe(SEGMENT_FORMAT);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("a re-synced source", () => {
  test("tombstoning its changed documents reads their lengths, not the segment's table of lengths", () => {
    const recorded = _recorded(_segment("session:", 200));
    const segment = { file: "1.seg", reader: openSegment(recorded.source), dead: new Set<number>() };
    const index = createSegmentedIndex([segment], { docs: segment.reader.docs, totalLen: segment.reader.totalLen });
    const whole = openSegment(bufferSource(recorded.bytes), true);
    const first = whole.source(whole.findSource("session:0117")).firstDoc;
    const docs = Array.from({ length: 20 }, (_, i) => whole.doc(first + i));
    // Two of its 20 documents changed: those two are tombstoned, the other 18 kept.
    const changed = docs.map((doc, i) => ({ id: doc.id, stamp: i < 2 ? "new" : doc.stamp, text: i < 2 ? "login changed" : "unused", data: doc.data }));
    expect(index.sync("session:0117", "stamp2", () => changed)).toBe(true);
    expect(_readIn(recorded, SECTION.lengths)).toBe(2 * 4);
    expect(index.size).toBe(4000);
    const lengths = whole.lengths();
    const killed = lengths[first]! + lengths[first + 1]!;
    expect(index.stats("login").totalLen).toBe(whole.totalLen - killed + 2 * 2);
  });
});
