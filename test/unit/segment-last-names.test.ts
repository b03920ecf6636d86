/**
 * A segment's last names (lib/search/index-manifest.ts `last`, segment-layout.ts `lastNamesOf` and
 * `mayHoldSource`): the greatest source name of each kind, written with the segment, so a save of
 * a new session and its runs looks them up in no segment; read as "may hold" whenever it cannot
 * tell (no `last`, a kind it lists with a greater name), so every existing source is still found.
 * A segment an older build wrote gets its last names at a save, one segment per save.
 */
import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bm25Index, IndexedDocInput } from "../../lib/search/bm25-index.ts";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { READ_WHOLE_BYTES } from "../../lib/search/segment-files.ts";
import { lastNamesOf, mayHoldSource, sourceKind } from "../../lib/search/segment-layout.ts";

describe("last names", () => {
  test("one per kind, the greatest", () => {
    const names = ["run:b", "session:a", "run:a", "session:c", "episodes", "notes:project", "notes:global", ":odd", "a:b:c", "a:b"];
    expect(lastNamesOf(names.map((name) => ({ name }))).sort()).toEqual([":odd", "a:b:c", "episodes", "notes:project", "run:b", "session:c"]);
    expect(["run:x", "episodes", "a:b:c", ":odd", "plain", ""].map(sourceKind)).toEqual(["run:", "episodes", "a:", ":", "plain", ""]);
  });

  const last = ["run:0005", "session:0009", "episodes"];
  const cases: [string, readonly string[] | undefined, string, boolean][] = [
    ["a newer name of a listed kind", last, "run:0006", false],
    ["the greatest name itself", last, "run:0005", true],
    ["an older name of a listed kind", last, "run:0001", true],
    ["a name of a kind the segment does not hold", last, "digest:2026-01", false],
    ["a name without a colon, listed", last, "episodes", true],
    ["a name without a colon, not listed", last, "episode", false],
    ["a prefix of a listed name, another kind", last, "run", false],
    ["the empty name", last, "", false],
    ["a name that sorts before every kind", last, "!", false],
    ["no last names (an older manifest)", undefined, "run:0006", true],
    ["no sources at all", [], "run:0001", false],
  ];
  test.each(cases)("%s", (_what, names, name, may) => {
    expect(mayHoldSource(names, name)).toBe(may);
  });
});

describe("a save's lookups", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "shiro-last-names-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const _docs = (name: string, word: string, stamp = "1"): IndexedDocInput[] => [
    { id: "d", stamp, text: `${word} ${name.replace(/\W/g, " ")} ${"filler text ".repeat(20)}` },
  ];
  /** An index of `count` sessions and runs, one segment opened for positioned reads. */
  function _folder(name: string, count: number) {
    const folder = openIndexFolder(join(dir, name), { label: "test index" });
    folder.open((index: Bm25Index) => {
      for (let i = 0; i < count; i++) {
        const id = String(i).padStart(6, "0");
        index.sync(`run:${id}`, "1", () => _docs(`run ${id}`, "alpha"));
        index.sync(`session:${id}`, "1", () => _docs(`session ${id}`, "alpha"));
      }
    });
    expect(folder.manifest()!.segments[0]!.bytes).toBeGreaterThan(READ_WHOLE_BYTES);
    return folder;
  }
  const _withoutLast = (name: string) => {
    const path = join(dir, name, "manifest.json");
    const manifest = JSON.parse(readFileSync(path, "utf8"));
    for (const segment of manifest.segments) delete segment.last;
    writeFileSync(path, JSON.stringify(manifest));
  };
  /** The positioned reads a save of a new session and run makes while it updates the index. */
  function _readsOfSave(folder: ReturnType<typeof _folder>): number {
    let reads = 0;
    folder.append((index) => {
      const spy = spyOn(fs, "readSync");
      try {
        index.sync("run:999999", "1", () => _docs("run new", "omega"));
        index.sync("session:999999", "1", () => _docs("session new", "omega"));
      } finally {
        reads = spy.mock.calls.length;
        spy.mockRestore();
      }
    });
    return reads;
  }

  test("read nothing of a segment when its last names say the new names are not there, whatever its size", () => {
    const small = _readsOfSave(_folder("small.index", 1_000));
    const large = _readsOfSave(_folder("large.index", 4_000));
    const older = _folder("older.index", 4_000);
    _withoutLast("older.index");
    expect([small, large]).toEqual([0, 0]);
    expect(_readsOfSave(older)).toBeGreaterThan(5);
  });

  test("a segment an older build wrote gets its last names at the next save, one segment per save; the save after reads nothing of it", () => {
    const folder = _folder("older.index", 1_000);
    const expected = folder.manifest()!.segments[0]!.last;
    folder.append((index) => void index.sync("session:500000", "1", () => _docs("session middle", "beta")));
    _withoutLast("older.index");
    expect(folder.manifest()!.segments.map((segment) => segment.last)).toEqual([undefined, undefined]);
    expect(_readsOfSave(folder)).toBeGreaterThan(5);
    expect(folder.manifest()!.segments.map((segment) => segment.last)).toEqual([expected, undefined, ["run:999999", "session:999999"]]);
    folder.append((index) => void index.sync("session:600000", "1", () => _docs("session later", "beta")));
    expect(folder.manifest()!.segments.map((segment) => segment.last)).toEqual([
      expected,
      ["session:500000"],
      ["run:999999", "session:999999"],
      ["session:600000"],
    ]);
    expect(_readsOfSave(folder)).toBe(0);
  });

  const sources: [string, boolean][] = [
    ["with last names", true],
    ["without (a manifest an older build wrote)", false],
  ];
  test.each(sources)("%s: a source already there, saved again, replaces its documents; a new one joins", (_what, keep) => {
    const folder = _folder("x.index", 1_000);
    if (!keep) _withoutLast("x.index");
    folder.append((index) => {
      index.sync("session:000007", "2", () => _docs("session again", "gamma", "2"));
      index.sync("run:000299", "2", () => _docs("run again", "delta", "2"));
      index.sync("digest:2026-01", "1", () => _docs("digest", "epsilon"));
    });
    const index = folder.open(() => {});
    const ids = (word: string) => index.search(word, { limit: 5_000 }).map((hit) => hit.segment);
    expect([ids("gamma"), ids("delta"), ids("epsilon")]).toEqual([["session:000007"], ["run:000299"], ["digest:2026-01"]]);
    expect(ids("alpha")).toHaveLength(1_998);
    expect(folder.manifest()!.segments.at(-1)!.last!.sort()).toEqual(["digest:2026-01", "run:000299", "session:000007"]);
  });
});
