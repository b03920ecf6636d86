/**
 * When a save merges an index's segments (lib/search/index-folder.ts `compactIfDue`), read off the
 * manifests the saves leave: an index a build left in chunks (a segment per `flushDocs` documents),
 * then given one segment per save, merges every few saves, as one without chunks does, and its
 * small segments stay within COMPACT_AFTER_SEGMENTS.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { COMPACT_AFTER_SEGMENTS, openIndexFolder } from "../../lib/search/index-folder.ts";
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
    const chunked = openIndexFolder(join(home.dir, "chunked.index"), { label: "test index", flushDocs: FLUSH });
    chunked.open((index) => {
      for (let s = 0; s < 15; s++) index.sync(`build:${s}`, "1", () => docs(`build:${s}`, 20));
    });
    const built = chunked
      .manifest()!
      .segments.filter((segment) => segment.docs >= FLUSH)
      .map((segment) => segment.file);
    expect(built.length).toBe(3);
    const plain = openIndexFolder(join(home.dir, "plain.index"), { label: "test index", flushDocs: FLUSH });
    plain.open((index) => void index.sync("build:0", "1", () => docs("build:0", 1)));

    const withChunks = save(chunked, 60);
    const without = save(plain, 60);
    expect(withChunks.mostSmall).toBeLessThanOrEqual(COMPACT_AFTER_SEGMENTS);
    // Before, the three chunks counted against the bound: the saves merged more often.
    expect(withChunks.merges).toBeLessThanOrEqual(without.merges + 1);
    expect(withChunks.merges).toBeLessThan(60 / 4);
  });
});
