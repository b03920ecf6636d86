/**
 * lib/search: the code-aware tokeniser (a table of spellings), BM25 ranking (any word, not all;
 * rarer and denser words first) and the incremental source sync, on an index in memory (the
 * segment files and index folders: search-segments.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IndexedDocInput } from "../../lib/search/bm25-index.ts";
import { createSegmentedIndex } from "../../lib/search/segmented-index.ts";
import { tokenize, tokenizeQuery } from "../../lib/search/tokenize.ts";
import { cosine, fuseByRank, loadVectors, saveVectors, vectorKey } from "../../lib/search/vector-file.ts";

describe("tokenize", () => {
  const table: [string, string[]][] = [
    ["parseHttpURL", ["parsehttpurl", "pars", "http", "url"]],
    ["HTTPServer", ["httpserver", "http", "server"]],
    ["snake_case_name", ["snake_case_name", "snake", "case", "name"]],
    ["kebab-case", ["kebab-case", "kebab", "case"]],
    ["lib/auth/login.ts", ["lib/auth/login.ts", "lib", "auth", "login", "ts"]],
    ["src/userProfile.tsx", ["src/userprofile.tsx", "src", "userprofil", "user", "profil", "tsx"]],
    ["Fix the flaky tests.", ["fix", "flaki", "test"]],
    ["queries passes classes", ["queri", "pass", "class"]],
    ["running runs ran", ["run", "run", "run"]],
    ["deploy deployed deployment deploys", ["deploi", "deploi", "deploi", "deploi"]],
    ["it cost 10,000 on 2026-03-14", ["cost", "10000", "2026-03-14", "2026", "03", "14"]],
    ["they would have been there before", ["befor"]],
    ["status bus is", ["statu", "bu"]],
    ["v1.2 x 7", ["v1.2", "v1", "2", "7"]],
    ["file1 utf8Decoder parseV2Config", ["file1", "utf8decoder", "utf8", "decod", "parsev2config", "pars", "v2", "config"]],
    ["__proto__ constructor", ["proto", "constructor"]],
    ["Ünïcode naïve", ["ünïcode", "naïve"]],
    ["", []],
  ];
  for (const [text, terms] of table) test(JSON.stringify(text), () => expect(tokenize(text)).toEqual(terms));

  test("one spelling of an identifier finds the others", () => {
    const spellings = ["loginRedirect", "login_redirect", "login-redirect", "LoginRedirect", "login redirect", "src/login/redirect.ts"];
    for (const spelling of spellings) expect(tokenize(spelling)).toEqual(expect.arrayContaining(["login", "redirect"]));
  });

  test("a query's terms are distinct", () => expect(tokenizeQuery("test tests TEST")).toEqual(["test"]));
});

const docs = (texts: Record<string, string>): IndexedDocInput[] => Object.entries(texts).map(([id, text]) => ({ id, stamp: "", text }));

describe("BM25 index", () => {
  test("one shared word is enough; more shared words, rarer words and shorter documents rank higher", () => {
    const index = createSegmentedIndex();
    index.sync("s", "1", () =>
      docs({
        both: "login redirect loops",
        one: "login form styling",
        other: "database migrations",
        long: "login redirect and then a very long tail of unrelated words here",
      }),
    );
    expect(index.search("login redirect", { limit: 10 }).map((hit) => [hit.id, hit.matched])).toEqual([
      ["both", 2],
      ["long", 2],
      ["one", 1],
    ]);
    expect(index.search("nothing matches", { limit: 10 })).toEqual([]);
    expect(index.search("the of", { limit: 10 })).toEqual([]);
  });

  test("filter and tie-break are the caller's; limit cuts after ranking", () => {
    const index = createSegmentedIndex();
    index.sync("s", "1", () => docs({ a: "same words", b: "same words", c: "same words" }));
    const order = ["c", "a", "b"];
    const hits = index.search("same", { limit: 2, filter: (_segment, id) => id !== "b", tieBreak: (x, y) => order.indexOf(x.id) - order.indexOf(y.id) });
    expect(hits.map((hit) => hit.id)).toEqual(["c", "a"]);
  });

  test("sync is incremental: same stamp, no load; changed segment, only new or restamped documents are tokenised", () => {
    const index = createSegmentedIndex();
    let loads = 0;
    const load = (list: IndexedDocInput[]) => () => {
      loads += 1;
      return list;
    };
    expect(index.sync("notes", "v1", load(docs({ a: "alpha", b: "bravo" })))).toBe(true);
    expect(index.sync("notes", "v1", load([]))).toBe(false);
    expect(loads).toBe(1);
    index.sync("episodes", "e1", load(docs({ a: "alpha in another segment" })));
    index.sync(
      "notes",
      "v2",
      load([
        { id: "b", stamp: "2", text: "charlie" },
        { id: "c", stamp: "", text: "delta" },
      ]),
    );
    expect(index.size).toBe(3);
    expect(index.search("alpha", { limit: 5 }).map((hit) => [hit.segment, hit.id])).toEqual([["episodes", "a"]]);
    expect(index.search("bravo", { limit: 5 })).toEqual([]);
    expect(
      index
        .search("charlie delta", { limit: 5 })
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(["b", "c"]);
    expect(index.entries().map((doc) => `${doc.segment}/${doc.id}`)).toEqual(["episodes/a", "notes/b", "notes/c"]);
  });
});

describe("vector file and fusion", () => {
  test("vectors round-trip as float32, merge with what another process saved, drop dead keys, and reset on another model", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-vectors-"));
    const path = join(dir, "v.json");
    const a = vectorKey("s", "a", "");
    const b = vectorKey("s", "b", "1");
    saveVectors(path, "m1", new Map([[a, Float32Array.from([1, 0.5])]]), () => true);
    saveVectors(path, "m1", new Map([[b, Float32Array.from([0, 2])]]), () => true);
    expect([...loadVectors(path, "m1")].map(([key, vector]) => [key, [...vector]])).toEqual([
      [a, [1, 0.5]],
      [b, [0, 2]],
    ]);
    saveVectors(path, "m1", new Map(), (key) => key === b);
    expect([...loadVectors(path, "m1").keys()]).toEqual([b]);
    expect(loadVectors(path, "m2").size).toBe(0);
    writeFileSync(path, "{");
    expect(loadVectors(path, "m1").size).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  test("cosine and reciprocal-rank fusion", () => {
    expect([cosine([1, 0], [1, 0]), cosine([1, 0], [0, 1]), cosine([1, 1], []), cosine([0, 0], [1, 0])]).toEqual([1, 0, 0, 0]);
    const fused = fuseByRank([
      ["a", "b", "c"],
      ["c", "a"],
    ]);
    expect([...fused].sort((x, y) => y[1] - x[1]).map(([key]) => key)).toEqual(["a", "c", "b"]);
    expect(fused.get("a")).toBeCloseTo(1 / 61 + 1 / 62, 12);
  });
});
