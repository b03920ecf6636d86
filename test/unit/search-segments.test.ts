/**
 * The on-disk index (lib/search): segment files read back exactly what was written (postings of
 * hundreds of documents, dictionaries of many blocks, sources by name), BM25 over several segments
 * with tombstones scores as the formula says, an index folder appends one segment per change and
 * compacts without changing an answer, every kind of damage is rebuilt with one notice, and two
 * processes appending under the lock lose nothing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bm25Index, IndexedDocInput } from "../../lib/search/bm25-index.ts";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { READ_WHOLE_BYTES } from "../../lib/search/segment-files.ts";
import { decodeValue, encodeValue, repeatedStrings, skipValue } from "../../lib/search/entry-codec.ts";
import { ByteReader, ByteWriter, SECTION, bufferSource } from "../../lib/search/segment-layout.ts";
import { openSegment } from "../../lib/search/segment-read.ts";
import { createSegmentBuilder, encodeSegment } from "../../lib/search/segment-write.ts";
import { TOKENIZER_VERSION, tokenize } from "../../lib/search/tokenize.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

// Every folder a test makes is removed after the file's tests, passed or failed.
const _made: string[] = [];
afterAll(() => {
  for (const dir of _made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "shiro-segments-"));
  _made.push(dir);
  return dir;
}

/** Source name → its documents: what an index should hold. */
type Truth = Map<string, { stamp: string; docs: IndexedDocInput[] }>;

function syncAll(truth: Truth) {
  return (index: Bm25Index) => {
    for (const [name, source] of truth) index.sync(name, source.stamp, () => source.docs);
    for (const name of index.segmentNames()) if (!truth.has(name)) index.sync(name, "gone", () => []);
  };
}

const ids = (hits: { segment: string; id: string }[]) => hits.map((hit) => `${hit.segment}/${hit.id}`);

describe("entry codec", () => {
  const values: unknown[] = [
    null,
    true,
    false,
    0,
    7,
    -3,
    2 ** 53 - 1,
    1.5,
    -0.25,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "",
    "x",
    "naïve ✓ 🐢",
    [],
    [1, "two", [3], { four: 4 }],
    {},
    { at: "2026-01-01T00:00:00.000Z", cwd: "/work/app", role: "prompt", skipped: undefined },
    { __proto__: "kept as data", constructor: "too" },
    { nested: { deep: [null, { a: "a" }] } },
  ];
  for (const value of values)
    test(JSON.stringify(value) ?? String(value), () => {
      const strings = repeatedStrings([value, value]);
      const out = new ByteWriter();
      const table = new Map(strings.map((text, i) => [text, i]));
      encodeValue(out, value, table);
      encodeValue(out, value, new Map());
      const reader = new ByteReader(out.finish());
      expect(decodeValue(reader, strings)).toEqual(JSON.parse(JSON.stringify(value) ?? "null"));
      const second = reader.position;
      skipValue(reader);
      expect(reader.done).toBe(true);
      reader.position = second;
      expect(decodeValue(reader, [])).toEqual(JSON.parse(JSON.stringify(value) ?? "null"));
    });
});

describe("segment file", () => {
  test("a save's lookup of a source newer than every one in a segment reads one entry, and every lookup still finds what a search would", () => {
    const builder = createSegmentBuilder();
    const names = Array.from({ length: 1500 }, (_, i) => [`run:${String(i).padStart(5, "0")}`, `session:${String(i).padStart(5, "0")}`]).flat();
    for (const name of names) builder.add(name, "s", [{ id: "d", stamp: "", text: "a word" }]);
    const source = bufferSource(encodeSegment(builder.build(), TOKENIZER_VERSION));
    const reads: number[] = [];
    const reader = openSegment({ ...source, read: (position, length) => (reads.push(length), source.read(position, length)) });
    const sorted = [...names].sort();
    const opened = reads.length;
    // What a closing session asks of every segment: its own new id, past everything stored.
    expect(reader.findSource("session:99999")).toBe(-1);
    // The table of entry offsets (read whole once) and the last entry: not a search of 3,000.
    expect(reads.length - opened).toBeLessThanOrEqual(2);
    const table: [string, number][] = [
      ...sorted.map((name, i): [string, number] => [name, i]),
      ["", -1],
      ["run:", -1],
      ["run:00000x", -1],
      ["run:99999", -1],
      ["session:", -1],
      ["session:01499x", -1],
      ["zzz", -1],
    ];
    const fresh = openSegment(source);
    for (const [name, ordinal] of table.slice(0, 40).concat(table.slice(-40))) expect([name, fresh.findSource(name)]).toEqual([name, ordinal]);
    expect(sorted.every((name, i) => reader.findSource(name) === i)).toBe(true);
  });

  test("round-trip: sources, documents, data and postings of hundreds of documents read back exactly", () => {
    const builder = createSegmentBuilder();
    const big: IndexedDocInput[] = Array.from({ length: 600 }, (_, i) => ({
      id: `d${i}`,
      stamp: `s${i}`,
      text: `common ${"again ".repeat(i % 7)}${i % 3 === 0 ? "third" : "other"} n${i}`,
      ...(i % 2 === 0 ? { data: { at: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`, n: i } } : {}),
    }));
    builder.add("zeta", "z1", [{ id: "only", stamp: "", text: "last source by name" }]);
    builder.add("big", "b1", big);
    builder.add("alpha", "a1", []);
    const content = builder.build();
    const reader = openSegment(bufferSource(encodeSegment(content, TOKENIZER_VERSION)));
    expect(reader.content()).toEqual(content);
    expect([reader.docs, reader.sources, reader.tokenizer]).toEqual([601, 3, TOKENIZER_VERSION]);
    expect(["alpha", "big", "zeta", "aaa", "mid", "zz"].map((name) => reader.findSource(name))).toEqual([0, 1, 2, -1, -1, -1]);
    expect(reader.source(1)).toEqual({ name: "big", stamp: "b1", firstDoc: 0, count: 600 });
    expect(reader.doc(4)).toEqual({ source: 1, id: "d4", stamp: "s4", len: tokenize(big[4]!.text).length, data: { at: "2026-01-05", n: 4 } });
    expect(reader.doc(600)).toEqual({ source: 2, id: "only", stamp: "", len: 3 });
    // An empty source shares its start with the next: a document belongs to the last source starting at or before it.
    expect([0, 5, 599, 600].map((doc) => reader.sourceOf(doc))).toEqual([1, 1, 1, 2]);
    const common = reader.postings("common")!;
    expect(common.docs.length).toBe(600);
    const again = reader.postings("again")!;
    expect([...again.docs]).toEqual(big.flatMap((_, i) => (i % 7 > 0 ? [i] : [])));
    expect([...again.tfs]).toEqual(big.flatMap((_, i) => (i % 7 > 0 ? [i % 7] : [])));
    expect([...reader.postings("third")!.docs]).toEqual(big.flatMap((_, i) => (i % 3 === 0 ? [i] : [])));
    // Every one of the 600 `n<i>` terms (dozens of dictionary blocks), and none that is absent.
    for (let i = 0; i < 600; i++) expect([...reader.postings(`n${i}`)!.docs]).toEqual([i]);
    for (const absent of ["", "0", "aaaa", "n600", "n5x", "zzzz"]) expect(reader.postings(absent)).toBeUndefined();
  });

  test("BM25 over three segments with tombstones scores each hit as the formula does", () => {
    const dir = tempDir();
    const folder = openIndexFolder(dir, { label: "test index" });
    const words = ["login", "redirect", "cache", "deploy", "flaky"];
    const text = (i: number) => `${words[i % 5]} ${words[(i * 3) % 5]} ${"filler ".repeat(i % 4)}${i % 11 === 0 ? "login" : ""}`;
    const truth: Truth = new Map();
    for (let part = 0; part < 3; part++) {
      for (let s = 0; s < 4; s++)
        truth.set(`p${part}s${s}`, {
          stamp: `${part}`,
          docs: Array.from({ length: 25 }, (_, i) => ({ id: `d${i}`, stamp: "", text: text(part * 100 + s * 25 + i) })),
        });
      folder.open(syncAll(truth));
    }
    // Change one source: its documents are tombstoned in the first segment and written again.
    truth.set("p0s1", { stamp: "x", docs: [{ id: "d0", stamp: "x", text: "login login redirect" }] });
    truth.delete("p1s2");
    const index = folder.open(syncAll(truth));
    expect(folder.manifest()!.segments).toHaveLength(4);
    const all = [...truth].flatMap(([name, source]) => source.docs.map((doc) => ({ name, id: doc.id, terms: tokenize(doc.text) })));
    const average = all.reduce((sum, doc) => sum + doc.terms.length, 0) / all.length;
    const expected = all
      .map((doc) => {
        let score = 0;
        for (const term of ["login", "redirect"]) {
          const df = all.filter((other) => other.terms.includes(term)).length;
          const tf = doc.terms.filter((t) => t === term).length;
          if (tf === 0) continue;
          const idf = Math.log(1 + (all.length - df + 0.5) / (df + 0.5));
          score += (idf * tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * doc.terms.length) / average));
        }
        return { key: `${doc.name}/${doc.id}`, score };
      })
      .filter((doc) => doc.score > 0);
    const hits = index.search("login redirect", { limit: 1000 });
    expect(index.size).toBe(all.length);
    expect(hits.map((hit) => `${hit.segment}/${hit.id}`).sort()).toEqual(expected.map((doc) => doc.key).sort());
    const byKey = new Map(expected.map((doc) => [doc.key, doc.score]));
    for (const hit of hits) expect(hit.score).toBeCloseTo(byKey.get(`${hit.segment}/${hit.id}`)!, 12);
    // Best first, ties in the order found (oldest segment first, then document order): what the stable sort by score gives, skipped or not.
    expect(hits.filter((hit, i) => i > 0 && hit.score === hits[i - 1]!.score).length).toBeGreaterThan(100);
    expect(ids(index.search("login redirect", { limit: 1000, tieBreak: () => 0 }))).toEqual(ids(hits));
    const notFirst = (segment: string) => !segment.startsWith("p0");
    expect(index.search("login redirect", { limit: 9, segmentFilter: notFirst })).toEqual(
      index.search("login redirect", { limit: 9, filter: (segment) => notFirst(segment) }),
    );
    // A prefix scores only its sources' documents: the same hits, scores and order as filtering them after, in every part.
    const prefixes = ["p0", "p1s", "p2s3", "p0s1", "p1s2", "p", "q", "", "p3", "a", "p0s", "p2s", "p2s2", "p0s0"];
    for (const prefix of prefixes)
      for (const limit of [1, 9, 1000])
        expect(index.search("login redirect", { limit, segmentPrefix: prefix })).toEqual(
          index.search("login redirect", { limit, segmentFilter: (segment) => segment.startsWith(prefix) }),
        );
    expect(index.search("login redirect", { limit: 1000, segmentPrefix: "p2" }).every((hit) => hit.segment.startsWith("p2"))).toBe(true);
    expect(index.search("login redirect", { limit: 1000, segmentPrefix: "p2" }).length).toBeGreaterThan(0);
    const before = index.search("login redirect", { limit: 7, tieBreak: (a, b) => (a.segment + a.id < b.segment + b.id ? -1 : 1) });
    expect(folder.compact(true)).toMatchObject({ segmentsBefore: 4, segmentsAfter: 1, tombstones: 25 + 25 });
    const compacted = folder.open(syncAll(truth));
    expect(compacted.search("login redirect", { limit: 7, tieBreak: (a, b) => (a.segment + a.id < b.segment + b.id ? -1 : 1) })).toEqual(before);
    // One segment of every source: each prefix's range lies inside it, at its start or its end.
    for (const prefix of prefixes)
      expect(compacted.search("login redirect", { limit: 1000, segmentPrefix: prefix })).toEqual(
        compacted.search("login redirect", { limit: 1000, segmentFilter: (segment) => segment.startsWith(prefix) }),
      );
    expect(folder.manifest()!.dead).toEqual({});
    expect(readdirSync(dir).sort()).toEqual(["000005.seg", "manifest.json"]);
  });
});

describe("index folder", () => {
  const truth = (): Truth =>
    new Map([
      ["notes", { stamp: "1", docs: [{ id: "a", stamp: "", text: "alpha lives here" }] }],
      ["more", { stamp: "1", docs: [{ id: "b", stamp: "", text: "bravo and alpha" }] }],
    ]);

  test("one segment per change, nothing written when nothing changed, and no folder for an empty index", () => {
    const dir = tempDir();
    const folder = openIndexFolder(join(dir, "x.index"), { label: "test index" });
    folder.open(syncAll(new Map()));
    expect(existsSync(join(dir, "x.index"))).toBe(false);
    const state = truth();
    folder.open(syncAll(state));
    const manifest = readFileSync(join(dir, "x.index", "manifest.json"), "utf8");
    expect(ids(folder.open(syncAll(state)).search("alpha", { limit: 5 })).sort()).toEqual(["more/b", "notes/a"]);
    expect(readFileSync(join(dir, "x.index", "manifest.json"), "utf8")).toBe(manifest);
    state.set("notes", {
      stamp: "2",
      docs: [
        { id: "a", stamp: "", text: "alpha lives here" },
        { id: "c", stamp: "", text: "charlie" },
      ],
    });
    folder.open(syncAll(state));
    expect(folder.manifest()).toMatchObject({
      segments: [
        { file: "000001.seg", docs: 2 },
        { file: "000002.seg", docs: 1 },
      ],
      dead: {},
      docs: 3,
    });
    let synced = 0;
    const fresh = { current: (meta: Readonly<Record<string, string>>) => meta.v === "1", meta: () => ({ v: "1" }) };
    folder.open(() => (synced += 1), fresh);
    folder.open(() => (synced += 1), fresh);
    expect([synced, folder.manifest()!.meta]).toEqual([1, { v: "1" }]);
  });

  const segmentFile = (dir: string) => join(dir, "000001.seg");
  const sectionAt = (dir: string, section: number) => readFileSync(segmentFile(dir)).readUInt32LE(32 + section * 4);
  const overwrite = (dir: string, from: number, to: number, byte: number) => {
    const bytes = readFileSync(segmentFile(dir));
    bytes.fill(byte, from, to);
    writeFileSync(segmentFile(dir), bytes);
  };
  const damage: [string, (dir: string) => void, RegExp][] = [
    ["a torn manifest", (dir) => writeFileSync(join(dir, "manifest.json"), "{ torn"), /not valid JSON/],
    ["a manifest of the wrong shape", (dir) => writeFileSync(join(dir, "manifest.json"), JSON.stringify({ version: 2, segments: "x" })), /tokenizer|segments/],
    ["a missing segment", (dir) => rmSync(segmentFile(dir)), /a segment is missing/],
    ["a truncated segment", (dir) => truncateSync(segmentFile(dir), 50), /000001\.seg is 50 bytes, the manifest says \d+/],
    ["a segment that is not one", (dir) => overwrite(dir, 0, 8, 0x41), /not a segment file/],
    ["a header that fails its checksum", (dir) => overwrite(dir, 16, 17, 9), /does not match its checksum/],
    [
      "a manifest that miscounts a segment",
      (dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
        manifest.segments[0].docs += 1;
        writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
      },
      /holds 2 documents, the manifest says 3/,
    ],
    [
      "a dictionary that does not decode",
      (dir) => overwrite(dir, sectionAt(dir, SECTION.termBlocks), sectionAt(dir, SECTION.postings), 0xff),
      /a number is too long/,
    ],
    [
      "document entries that do not decode",
      (dir) => overwrite(dir, sectionAt(dir, SECTION.docEntries), sectionAt(dir, SECTION.end), 0x78),
      /document 0 names source 120 of 2/,
    ],
  ];
  for (const [what, spoil, reason] of damage)
    test(`${what}: rebuilt from the sources, with one notice`, () => {
      const dir = tempDir();
      const notices: string[] = [];
      const folder = openIndexFolder(dir, { label: "test index", onNotice: (text) => notices.push(text) });
      folder.open(syncAll(truth()));
      spoil(dir);
      expect(ids(folder.open(syncAll(truth())).search("alpha", { limit: 5 })).sort()).toEqual(["more/b", "notes/a"]);
      expect(notices).toHaveLength(1);
      expect(notices[0]).toStartWith(`test index ${dir} was unreadable (`);
      expect(notices[0]).toMatch(reason);
      expect(notices[0]).toEndWith("); rebuilt it");
      expect(ids(folder.open(syncAll(truth())).search("alpha", { limit: 5 })).sort()).toEqual(["more/b", "notes/a"]);
      expect(notices).toHaveLength(1);
    });

  // Opened, then its dictionary spoilt in place (same file, same size): only a read after opening sees it.
  const spoiltAfterOpening = (docs: IndexedDocInput[]) => {
    const dir = tempDir();
    const notices: string[] = [];
    const folder = openIndexFolder(dir, { label: "test index", onNotice: (text) => notices.push(text) });
    const state: Truth = new Map([["notes", { stamp: "1", docs }]]);
    folder.open(syncAll(state));
    const index = folder.open(syncAll(state));
    const bytes = folder.manifest()!.segments[0]!.bytes;
    overwrite(dir, sectionAt(dir, SECTION.termBlocks), sectionAt(dir, SECTION.postings), 0xff);
    const found = ids(index.search("alpha", { limit: 5 }));
    return { bytes, found, notices };
  };

  test("a segment of at most READ_WHOLE_BYTES is read whole when opened: a search after reads no file", () => {
    const { bytes, found, notices } = spoiltAfterOpening([{ id: "a", stamp: "", text: "alpha lives here" }]);
    expect(bytes).toBeLessThanOrEqual(READ_WHOLE_BYTES);
    expect([found, notices]).toEqual([["notes/a"], []]);
  });

  test("a larger segment is read where it lies, in proportion to the search: the same change is read and rebuilt", () => {
    const words = Array.from({ length: 9_000 }, (_, i) => `word${i}`);
    const docs = [
      { id: "a", stamp: "", text: "alpha lives here" },
      ...Array.from({ length: 30 }, (_, d) => ({ id: `w${d}`, stamp: "", text: words.slice(d * 300, d * 300 + 300).join(" ") })),
    ];
    const { bytes, found, notices } = spoiltAfterOpening(docs);
    expect(bytes).toBeGreaterThan(READ_WHOLE_BYTES);
    expect(found).toEqual(["notes/a"]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/a number is too long/);
  });

  test("a build cut short keeps the segments it saved; the next open goes on from there and records its stamps last", () => {
    const dir = tempDir();
    const notices: string[] = [];
    const folder = openIndexFolder(dir, { label: "test index", flushDocs: 10, onNotice: (text) => notices.push(text) });
    const state: Truth = new Map(
      Array.from({ length: 25 }, (_, i) => [`s${String(i).padStart(2, "0")}`, { stamp: "1", docs: [{ id: "d", stamp: "", text: `word${i}` }] }]),
    );
    const loaded: string[] = [];
    const sync = (stopAt?: number) => (index: Bm25Index) => {
      for (const [name, source] of state)
        index.sync(name, source.stamp, () => {
          if (loaded.length === stopAt) throw new Error("killed");
          loaded.push(name);
          return source.docs;
        });
    };
    const fresh = { current: (meta: Readonly<Record<string, string>>) => meta.done === "yes", meta: () => ({ done: "yes" }) };
    folder.open(sync(23), fresh);
    expect(notices).toEqual([`test index ${dir} could not be saved (killed); searched without saving it`]);
    expect(folder.manifest()).toMatchObject({ docs: 20, meta: {} });
    expect(folder.manifest()!.segments.map((segment) => segment.docs)).toEqual([10, 10]);
    loaded.length = 0;
    const index = folder.open(sync(), fresh);
    expect(loaded).toEqual(["s20", "s21", "s22", "s23", "s24"]);
    expect([index.size, folder.manifest()!.docs, folder.manifest()!.meta]).toEqual([25, 25, { done: "yes" }]);
    expect(ids(index.search("word3 word24", { limit: 5 })).sort()).toEqual(["s03/d", "s24/d"]);
  });

  test("another tokenizer or manifest version: rebuilt quietly", () => {
    const dir = tempDir();
    const notices: string[] = [];
    const folder = openIndexFolder(dir, { label: "test index", onNotice: (text) => notices.push(text) });
    folder.open(syncAll(truth()));
    for (const change of [{ tokenizer: TOKENIZER_VERSION + 1 }, { version: 99 }]) {
      const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
      writeFileSync(join(dir, "manifest.json"), JSON.stringify({ ...manifest, ...change }));
      expect(folder.open(syncAll(truth())).size).toBe(2);
      expect(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"))).toMatchObject({ version: 2, tokenizer: TOKENIZER_VERSION });
    }
    expect(notices).toEqual([]);
  });

  test("two processes appending under the lock, compacting as they go, lose nothing", async () => {
    const dir = tempDir();
    const index = join(dir, "shared.index");
    openIndexFolder(index, { label: "test index" }).open(syncAll(new Map([["seed", { stamp: "1", docs: [{ id: "s", stamp: "", text: "seed" }] }]])));
    const children = ["alpha", "bravo"].map((name) =>
      Bun.spawn({
        cmd: [process.execPath, join(FIXTURES, "index-appender.ts"), index, name, "30"],
        stdout: "pipe",
        stderr: "pipe",
        timeout: 60_000,
        killSignal: "SIGKILL",
      }),
    );
    writeFileSync(`${index}.go`, "");
    for (const child of children) {
      const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    }
    const folder = openIndexFolder(index, { label: "test index" });
    const opened = folder.open(() => {});
    const expected = ["seed", ...["alpha", "bravo"].flatMap((name) => Array.from({ length: 30 }, (_, i) => `${name}-${i}`))];
    expect(opened.segmentNames().sort()).toEqual(expected.sort());
    expect([opened.size, folder.manifest()!.docs]).toEqual([61, 61]);
    expect(opened.search("bravo", { limit: 100 })).toHaveLength(30);
    expect(ids(opened.search("word29", { limit: 5 })).sort()).toEqual(["alpha-29/d", "bravo-29/d"]);
    expect(readdirSync(index).filter((name) => !/^\d{6}\.seg$/.test(name))).toEqual(["manifest.json"]);
    expect(folder.manifest()!.segments.length).toBeLessThanOrEqual(12);
  });
});
