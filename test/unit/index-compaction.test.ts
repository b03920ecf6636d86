/**
 * When a save merges an index's segments (lib/search/index-folder.ts `compactIfDue`), read off the
 * manifests the saves leave: an index of at most SMALL_INDEX_BYTES stays one segment, answering
 * every search as the segments it replaced did; past it, an index a build left in chunks (a
 * segment per `flushDocs` documents), then given one segment per save, merges every few saves, as
 * one without chunks does, and its small segments stay within COMPACT_AFTER_SEGMENTS.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Bm25Index } from "../../lib/search/bm25-index.ts";
import { COMPACT_AFTER_SEGMENTS, SMALL_INDEX_BYTES, openIndexFolder } from "../../lib/search/index-folder.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-index-compaction-");
const FLUSH = 100;

const docs = (source: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `${source}#${i}`, stamp: "1", text: `passage ${i} of ${source} about the parser and the login redirect` }));

/** Saves `saves` times (one source of one document each, then `compactIfDue`); the merges made and the most small segments seen. */
function save(folder: ReturnType<typeof openIndexFolder>, saves: number): { merges: number; mostSmall: number } {
  let merges = 0;
  let mostSmall = 0;
  for (let i = 0; i < saves; i++) {
    const after = folder.append((index) => void index.sync(`save:${i}`, "1", () => docs(`save:${i}`, 1)));
    if (folder.compactIfDue(after)) merges += 1;
    mostSmall = Math.max(mostSmall, folder.manifest()!.segments.filter((segment) => segment.docs < FLUSH).length);
  }
  return { merges, mostSmall };
}

describe("merging an index's segments after saves", () => {
  test("a build's chunks leave a save as much room as an index without them", () => {
    // The count rule alone: these indexes are small enough to be kept one segment otherwise.
    const chunked = openIndexFolder(join(home.dir, "chunked.index"), { label: "test index", flushDocs: FLUSH, smallBytes: 0 });
    chunked.open((index) => {
      for (let s = 0; s < 15; s++) index.sync(`build:${s}`, "1", () => docs(`build:${s}`, 20));
    });
    const built = chunked
      .manifest()!
      .segments.filter((segment) => segment.docs >= FLUSH)
      .map((segment) => segment.file);
    expect(built.length).toBe(3);
    const plain = openIndexFolder(join(home.dir, "plain.index"), { label: "test index", flushDocs: FLUSH, smallBytes: 0 });
    plain.open((index) => void index.sync("build:0", "1", () => docs("build:0", 1)));

    const withChunks = save(chunked, 60);
    const without = save(plain, 60);
    expect(withChunks.mostSmall).toBeLessThanOrEqual(COMPACT_AFTER_SEGMENTS);
    // Before, the three chunks counted against the bound: the saves merged more often.
    expect(withChunks.merges).toBeLessThanOrEqual(without.merges + 1);
    expect(withChunks.merges).toBeLessThan(60 / 4);
  });
});

/** A save of one session: its passages, one of them changed when the session is saved again (a tombstone and a new document). */
function saveSession(folder: ReturnType<typeof openIndexFolder>, n: number, again = false): void {
  const passages = [
    { id: `s${n}#0`, stamp: "1", text: `hi, the login redirect of session ${n} loops` },
    { id: `s${n}#1`, stamp: again ? "2" : "1", text: again ? `fixed the redirect in src/auth${n}.ts` : `hi there, about session ${n}` },
  ];
  const after = folder.append((index) => void index.sync(`session:${String(n).padStart(3, "0")}`, again ? "b" : "a", () => passages));
  folder.compactIfDue(after);
}

function answers(index: Bm25Index, query: string) {
  return {
    stats: index.stats(query),
    hits: index.search(query, { limit: 50, segmentPrefix: "session:" }).map((hit) => [hit.segment, hit.id, hit.score.toFixed(9), hit.matched, hit.data]),
  };
}

describe("a small index", () => {
  test("saves keep it one segment, which answers every search as the segments it replaced", () => {
    const one = openIndexFolder(join(home.dir, "one.index"), { label: "test index" });
    const many = openIndexFolder(join(home.dir, "many.index"), { label: "test index", smallBytes: 0 });
    for (const folder of [one, many]) folder.open((index) => void index.sync("session:000", "a", () => [{ id: "s0#0", stamp: "1", text: "hi" }]));
    // Eight segments unmerged: within the count rule.
    for (let n = 1; n <= 6; n++) {
      for (const folder of [one, many]) saveSession(folder, n);
      expect(one.manifest()!.segments.length).toBe(1);
    }
    for (const folder of [one, many]) saveSession(folder, 3, true);
    expect(one.manifest()!.segments.length).toBe(1);
    expect(one.manifest()!.dead).toEqual({});
    expect(many.manifest()!.segments.length).toBe(8);
    expect(one.manifest()!.segments[0]!.bytes).toBeLessThan(SMALL_INDEX_BYTES);
    const [a, b] = [one, many].map((folder) => folder.open(() => {}));
    for (const query of ["hi", "login redirect", "src/auth3.ts", "session 5 loops", "nothing here"]) expect(answers(a!, query)).toEqual(answers(b!, query));
  });

  test("past smallBytes, saves add segments again until the count rule merges them", () => {
    const folder = openIndexFolder(join(home.dir, "growing.index"), { label: "test index", smallBytes: 700 });
    folder.open((index) => void index.sync("session:000", "a", () => [{ id: "s0#0", stamp: "1", text: "hi" }]));
    const counts: number[] = [];
    for (let n = 1; n <= 12; n++) {
      saveSession(folder, n);
      counts.push(folder.manifest()!.segments.length);
    }
    expect(counts.slice(0, 2)).toEqual([1, 1]);
    expect(Math.max(...counts)).toBeGreaterThan(1);
    expect(Math.max(...counts)).toBeLessThanOrEqual(COMPACT_AFTER_SEGMENTS + 1);
  });
});
