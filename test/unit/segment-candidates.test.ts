/**
 * A search keeps what it learned of a segment file (lib/search/segment-candidates.ts): the same
 * words asked again, in a later process, read none of the segment's postings or lengths, and the
 * hits are the ones the postings give, score for score, also when the collection grew or shrank
 * since; when the kept candidates cannot prove that (a collection changed too much, a limit larger
 * than what was kept), the postings are read again and the entry rewritten. A segment's
 * tombstones are part of what names its candidates (the same ones again answer from them; others,
 * or one tombstoned in this process, read the postings); one without an identity is never answered so. The file store round-trips, reads a
 * damaged or foreign file as absent and keeps at most KEPT_QUERIES files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IndexedDocInput, IndexHit, SearchOptions } from "../../lib/search/bm25-index.ts";
import { KEEP_FROM_DOCS, KEPT_QUERIES, openCandidateStore, queryKey, type CandidateStore, type KeptQuery } from "../../lib/search/segment-candidates.ts";
import { SECTION, bufferSource, u32At, type ByteSource } from "../../lib/search/segment-layout.ts";
import { openSegment } from "../../lib/search/segment-read.ts";
import { createSegmentBuilder, encodeSegment } from "../../lib/search/segment-write.ts";
import { createSegmentedIndex, type OpenSegment } from "../../lib/search/segmented-index.ts";
import { TOKENIZER_VERSION } from "../../lib/search/tokenize.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const _WORDS = ["login", "redirect", "cache", "worker", "queue", "deploy", "render", "timeout", "config", "retry"];

/** `sessions` sources of 24 documents each, made of a few of _WORDS and filler, seeded. */
function _segmentBytes(sessions: number, seed: number): Uint8Array {
  let state = seed;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const builder = createSegmentBuilder();
  for (let s = 0; s < sessions; s++) {
    const docs: IndexedDocInput[] = Array.from({ length: 24 }, (_, i) => {
      const words = Array.from({ length: 2 + Math.floor(next() * 12) }, () =>
        next() < 0.5 ? _WORDS[Math.floor(next() * _WORDS.length)]! : `filler${Math.floor(next() * 500)}`,
      );
      return { id: `d${i}`, stamp: "", text: words.join(" "), data: { n: s * 24 + i } };
    });
    builder.add(`session:${String(s).padStart(5, "0")}`, "stamp", docs);
  }
  return encodeSegment(builder.build(), TOKENIZER_VERSION);
}

interface _Counted {
  segment: OpenSegment;
  /** Bytes read inside the postings and lengths sections. */
  scoredBytes: () => number;
  /** Bytes read inside the lengths section (what scoring a range of documents reads; a tombstoned segment's live frequencies read postings). */
  lengthBytes: () => number;
  /** Bytes read inside the source entries section (what judging the hits' sources reads). */
  sourceBytes: () => number;
}

/** The segment as a later process opens it: reads recorded, named by `identity`, `dead` tombstoned. */
function _open(bytes: Uint8Array, identity: string | undefined, dead: number[] = []): _Counted {
  const inner = bufferSource(bytes);
  const reads: [number, number][] = [];
  const source: ByteSource = { ...inner, read: (position, length) => (reads.push([position, length]), inner.read(position, length)) };
  const section = (i: number): [number, number] => [u32At(bytes, 32 + i * 4), u32At(bytes, 32 + (i + 1) * 4)];
  const inside = ([from, to]: [number, number]) =>
    reads.reduce((sum, [position, length]) => sum + Math.max(0, Math.min(to, position + length) - Math.max(from, position)), 0);
  return {
    segment: { file: "000001.seg", reader: openSegment(source), dead: new Set(dead), ...(identity ? { identity } : {}) },
    scoredBytes: () => inside(section(SECTION.postings)) + inside(section(SECTION.lengths)),
    lengthBytes: () => inside(section(SECTION.lengths)),
    sourceBytes: () => inside(section(SECTION.sourceEntries)),
  };
}

/** A store in memory that counts its writes. */
function _memoryStore(): CandidateStore & { writes: number; kept: Map<string, KeptQuery> } {
  const kept = new Map<string, KeptQuery>();
  return {
    writes: 0,
    kept,
    read(terms, weights, prefix) {
      const found = kept.get(queryKey(terms, weights, prefix).key);
      return found && structuredClone(found);
    },
    write(query) {
      this.writes += 1;
      kept.set(query.key, structuredClone(query));
    },
  };
}

const _shape = (hits: IndexHit[]) => hits.map((hit) => [hit.segment, hit.id, hit.score, hit.matched, hit.data]);
const _totals = (bytes: Uint8Array) => {
  const reader = openSegment(bufferSource(bytes), true);
  return { docs: reader.docs, totalLen: reader.totalLen };
};

describe("kept candidates of a segment", () => {
  const bytes = _segmentBytes(Math.ceil((KEEP_FROM_DOCS * 1.5) / 24), 11);
  const totals = _totals(bytes);
  const options: SearchOptions = { limit: 40, segmentPrefix: "session:" };
  /** The hits the postings give: no store. */
  const truth = (query: string, extra: Partial<SearchOptions> = {}) =>
    _shape(createSegmentedIndex([_open(bytes, "000001.seg:1").segment], totals).search(query, { ...options, ...extra }));

  test("the same words again, in a later process, read no postings or lengths and give the same hits, score for score", () => {
    const store = _memoryStore();
    const first = _open(bytes, "000001.seg:1");
    expect(_shape(createSegmentedIndex([first.segment], totals, store).search("login redirect", options))).toEqual(truth("login redirect"));
    expect(first.scoredBytes()).toBeGreaterThan(0);
    expect(store.writes).toBe(1);

    const later = _open(bytes, "000001.seg:1");
    const hits = createSegmentedIndex([later.segment], totals, store).search("redirect login", options);
    expect(_shape(hits)).toEqual(truth("login redirect"));
    expect(later.scoredBytes()).toBe(0);
    expect(store.writes).toBe(1);
    // Other words, or other weights, are another query.
    const other = _open(bytes, "000001.seg:1");
    const weighted = new Map([["login", 1.5]]);
    expect(_shape(createSegmentedIndex([other.segment], totals, store).search("login redirect", { ...options, weights: weighted }))).toEqual(
      truth("login redirect", { weights: weighted }),
    );
    expect(other.scoredBytes()).toBeGreaterThan(0);
    expect(store.writes).toBe(2);
  });

  test("the sources the search judged and the prefix's documents are kept with them: asked again, no source entry is read; a part kept without them is written again once; a malformed one is not taken", () => {
    const store = _memoryStore();
    const filters: Partial<SearchOptions> = { segmentFilter: (name) => !name.endsWith("3"), sourceFilter: () => true };
    const search = (opened: _Counted) => _shape(createSegmentedIndex([opened.segment], totals, store).search("queue timeout", { ...options, ...filters }));
    const first = _open(bytes, "000001.seg:1");
    expect(search(first)).toEqual(truth("queue timeout", filters));
    const rows = [...store.kept.values()][0]!.parts[0]!.sources!;
    const reader = openSegment(bufferSource(bytes), true);
    expect(rows.length).toBeGreaterThan(10);
    for (const [ordinal, ...stored] of rows) {
      const entry = reader.source(ordinal as number);
      expect(stored).toEqual([entry.name, entry.stamp, entry.firstDoc, entry.count]);
    }
    expect([...store.kept.values()][0]!.parts[0]!.range).toEqual([0, reader.docs]);
    // Asked again: no source entry is read, neither a hit's nor the prefix's first and last.
    const later = _open(bytes, "000001.seg:1");
    expect(search(later)).toEqual(truth("queue timeout", filters));
    expect(later.sourceBytes()).toBe(0);
    expect(later.scoredBytes()).toBe(0);
    expect(store.writes).toBe(1);
    // An older file's part, without sources or range: answered from its candidates, its sources read, and written again once, with them.
    for (const query of store.kept.values())
      for (const part of query.parts) {
        delete part.sources;
        delete part.range;
      }
    const older = _open(bytes, "000001.seg:1");
    expect(search(older)).toEqual(truth("queue timeout", filters));
    expect(older.sourceBytes()).toBeGreaterThan(0);
    expect(older.scoredBytes()).toBe(0);
    expect(store.writes).toBe(2);
    expect([...store.kept.values()][0]!.parts[0]!.sources).toEqual(rows);
    expect([...store.kept.values()][0]!.parts[0]!.range).toEqual([0, reader.docs]);
    search(_open(bytes, "000001.seg:1"));
    expect(store.writes).toBe(2);
    // A range past the segment is not taken: the prefix is looked up by name, and the entry written again.
    for (const query of store.kept.values()) query.parts[0]!.range = [0, reader.docs + 1];
    const wide = _open(bytes, "000001.seg:1");
    expect(search(wide)).toEqual(truth("queue timeout", filters));
    expect(wide.sourceBytes()).toBeGreaterThan(0);
    expect(store.writes).toBe(3);
    expect([...store.kept.values()][0]!.parts[0]!.range).toEqual([0, reader.docs]);
    // A malformed row: the part is scored from its postings and kept again.
    for (const query of store.kept.values()) query.parts[0]!.sources![0] = [rows[0]![0], 42];
    const damaged = _open(bytes, "000001.seg:1");
    expect(search(damaged)).toEqual(truth("queue timeout", filters));
    expect(damaged.scoredBytes()).toBeGreaterThan(0);
    expect(store.writes).toBe(4);
    expect([...store.kept.values()][0]!.parts[0]!.sources).toEqual(rows);
  });

  test("a collection grown or shrunk a little is answered from them; one changed past what they prove reads the postings and keeps anew", () => {
    const store = _memoryStore();
    createSegmentedIndex([_open(bytes, "000001.seg:1").segment], totals, store).search("cache worker queue", options);
    for (const grown of [1.001, 0.999, 1.02]) {
      const collection = {
        docs: Math.round(totals.docs * grown),
        totalLen: Math.round(totals.totalLen * grown * grown),
        df: new Map([
          ["cach", 900],
          ["worker", 700],
          ["queue", 800],
        ]),
      };
      const later = _open(bytes, "000001.seg:1");
      const hits = createSegmentedIndex([later.segment], totals, store).search("cache worker queue", { ...options, collection });
      expect(_shape(hits)).toEqual(truth("cache worker queue", { collection }));
      expect(later.scoredBytes()).toBe(0);
    }
    expect(store.writes).toBe(1);
    // One word all but vanished from the collection: its idf grows past what the kept documents prove.
    const changed = {
      docs: totals.docs * 40,
      totalLen: totals.totalLen * 40,
      df: new Map([
        ["cach", 2],
        ["worker", 3000],
        ["queue", 3000],
      ]),
    };
    const again = _open(bytes, "000001.seg:1");
    expect(_shape(createSegmentedIndex([again.segment], totals, store).search("cache worker queue", { ...options, collection: changed }))).toEqual(
      truth("cache worker queue", { collection: changed }),
    );
    expect(again.scoredBytes()).toBeGreaterThan(0);
    expect(store.writes).toBe(2);
    // A larger limit than was kept for: the postings again.
    const wider = _open(bytes, "000001.seg:1");
    expect(_shape(createSegmentedIndex([wider.segment], totals, store).search("cache worker queue", { ...options, limit: 2_000 }))).toEqual(
      truth("cache worker queue", { limit: 2_000 }),
    );
    expect(wider.scoredBytes()).toBeGreaterThan(0);
  });

  test("filters judge the kept documents as they judge the postings' ones", () => {
    const store = _memoryStore();
    const filters: Partial<SearchOptions> = {
      segmentFilter: (name) => !name.endsWith("7"),
      filter: (_segment, _id, data) => (data as { n: number }).n % 3 !== 0,
    };
    createSegmentedIndex([_open(bytes, "000001.seg:1").segment], totals, store).search("deploy render", { ...options, ...filters });
    const later = _open(bytes, "000001.seg:1");
    expect(_shape(createSegmentedIndex([later.segment], totals, store).search("deploy render", { ...options, ...filters }))).toEqual(
      truth("deploy render", filters),
    );
    expect(later.scoredBytes()).toBe(0);
  });

  test("a segment's tombstones name its candidates with it: the same ones again answer from them, others or more in this process read the postings", () => {
    const store = _memoryStore();
    const searched = (dead: number[], kept: CandidateStore | undefined = store) => {
      const opened = _open(bytes, "000001.seg:1", dead);
      const hits = createSegmentedIndex([opened.segment], { docs: totals.docs - dead.length, totalLen: totals.totalLen }, kept).search(
        "timeout config",
        options,
      );
      return { hits: _shape(hits), lengthBytes: opened.lengthBytes() };
    };
    // The best three documents are the ones tombstoned.
    const dead = truth("timeout config")
      .slice(0, 3)
      .map((hit) => (hit[4] as { n: number }).n);
    const first = searched(dead);
    expect(first.hits).toEqual(searched(dead, undefined).hits);
    expect(first.hits.map((hit) => (hit[4] as { n: number }).n)).not.toContain(dead[0]);
    expect(first.lengthBytes).toBeGreaterThan(0);
    expect(store.writes).toBe(1);
    const again = searched(dead);
    expect(again.hits).toEqual(first.hits);
    expect(again.lengthBytes).toBe(0);
    expect(store.writes).toBe(1);
    // One more tombstone (a later save): another identity, scored from the postings and kept anew.
    const more = searched([...dead, 7]);
    expect(more.hits).toEqual(searched([...dead, 7], undefined).hits);
    expect(more.lengthBytes).toBeGreaterThan(0);
    expect(store.writes).toBe(2);
    // A source tombstoned by this process since it opened the segment: nothing kept answers, nothing is kept.
    const opened = _open(bytes, "000001.seg:1", dead);
    const index = createSegmentedIndex([opened.segment], { docs: totals.docs - dead.length, totalLen: totals.totalLen }, store);
    index.sync("session:00001", "restamped", () => []);
    const before = opened.lengthBytes();
    index.search("timeout config", options);
    expect(opened.lengthBytes()).toBeGreaterThan(before);
    expect(store.writes).toBe(2);
  });

  test("a segment without an identity, under another identity or too small is scored from its postings and kept nowhere", () => {
    const store = _memoryStore();
    createSegmentedIndex([_open(bytes, "000001.seg:1").segment], totals, store).search("timeout config", options);
    expect(store.writes).toBe(1);
    for (const opened of [_open(bytes, undefined), _open(bytes, "000001.seg:2")]) {
      const index = createSegmentedIndex([opened.segment], totals, store);
      index.search("timeout config", options);
      expect(opened.scoredBytes()).toBeGreaterThan(0);
    }
    // The other identity was kept in place of the first.
    expect(store.writes).toBe(2);
    const small = _segmentBytes(10, 3);
    const tiny = _open(small, "000002.seg:1");
    createSegmentedIndex([tiny.segment], _totals(small), store).search("timeout config", options);
    expect(store.writes).toBe(2);
  });
});

describe("the candidate store on disk", () => {
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-candidates-"));
    dirs.push(dir);
    return dir;
  };
  const query = (terms: string[]): KeptQuery => {
    const { key, terms: sorted } = queryKey(terms, undefined, "session:");
    return {
      key,
      terms: sorted,
      parts: [{ segment: "000001.seg:1", idf: sorted.map(() => 1.5), average: 12.5, cut: 0.25, docs: [3, 9], lengths: [4, 7], tfs: sorted.map(() => [1, 2]) }],
    };
  };

  test("round-trips; a damaged file, another key's or another version's reads as absent", () => {
    const dir = tempDir();
    const store = openCandidateStore(dir);
    const kept = query(["login", "redirect"]);
    store.write(kept);
    expect(store.read(["redirect", "login"], undefined, "session:")).toEqual(kept);
    expect(store.read(["redirect", "login"], undefined, "run:")).toBeUndefined();
    const [file] = readdirSync(join(dir, "candidates"));
    writeFileSync(join(dir, "candidates", file!), '{"version": 1, "key":');
    expect(store.read(["login", "redirect"], undefined, "session:")).toBeUndefined();
    writeFileSync(join(dir, "candidates", file!), JSON.stringify({ version: 2, key: kept.key, parts: kept.parts }));
    expect(store.read(["login", "redirect"], undefined, "session:")).toBeUndefined();
    // A part of the wrong shape is left out, the others kept.
    writeFileSync(join(dir, "candidates", file!), JSON.stringify({ version: 1, key: kept.key, parts: [...kept.parts, { segment: "x", idf: [1] }] }));
    expect(store.read(["login", "redirect"], undefined, "session:")).toEqual(kept);
  });

  test(`keeps at most ${KEPT_QUERIES} queries`, () => {
    const dir = tempDir();
    const store = openCandidateStore(dir);
    for (let i = 0; i < KEPT_QUERIES + 5; i++) store.write(query([`word${i}`]));
    expect(readdirSync(join(dir, "candidates"))).toHaveLength(KEPT_QUERIES);
    expect(store.read([`word${KEPT_QUERIES + 4}`], undefined, "session:")).toBeDefined();
  });
});
