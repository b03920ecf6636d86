/**
 * The collection statistics of a segmented index (segmented-index.ts `stats`: live documents and
 * each word's live document frequency) are what counting the live documents gives, whatever the
 * segments hold: tombstones few (each looked up in a word's postings) or many (one walk of both),
 * added by a save, by a sync in the process and across merges, read back from the folder.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bm25Index, IndexedDocInput } from "../../lib/search/bm25-index.ts";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { tokenize, tokenizeQuery } from "../../lib/search/tokenize.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Truth = Map<string, { stamp: string; docs: IndexedDocInput[] }>;

const WORDS = ["login", "redirect", "broken", "cache", "timeout", "deploy", "queue", "schema"];
// Deterministic documents: source s, version v, document d holds a few of WORDS.
const docText = (s: number, v: number, d: number) =>
  WORDS.filter((_, w) => (s * 7 + v * 3 + d * 5 + w * 11) % 4 === 0 || w === (s + d) % WORDS.length).join(" ");
const source = (s: number, v: number, count: number) => ({
  stamp: `v${v}`,
  docs: Array.from({ length: count }, (_, d) => ({ id: `d${d}`, stamp: `v${v}`, text: docText(s, v, d) })),
});

function syncAll(truth: Truth) {
  return (index: Bm25Index) => {
    for (const [name, found] of truth) index.sync(name, found.stamp, () => found.docs);
    for (const name of index.segmentNames()) if (!truth.has(name)) index.sync(name, "gone", () => []);
  };
}

/** What counting the live documents gives. */
function counted(truth: Truth, query: string) {
  const df = new Map<string, number>();
  let docs = 0;
  let totalLen = 0;
  const terms = tokenizeQuery(query);
  for (const found of truth.values())
    for (const doc of found.docs) {
      const tokens = tokenize(doc.text);
      docs++;
      totalLen += tokens.length;
      for (const term of terms) if (tokens.includes(term)) df.set(term, (df.get(term) ?? 0) + 1);
    }
  for (const term of terms) if (!df.has(term)) df.set(term, 0);
  return { docs, totalLen, df };
}

const QUERIES = ["login redirect broken", "cache timeout", "deploy queue schema", "login"];

function expectCounted(index: Bm25Index, truth: Truth) {
  for (const query of QUERIES) expect(index.stats(query)).toEqual(counted(truth, query));
}

describe("collection statistics", () => {
  test("equal the live documents' counts through saves, tombstones few and many, merges and reopening", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-segment-stats-"));
    dirs.push(dir);
    const folder = () => openIndexFolder(join(dir, "index"), { label: "test index", flushDocs: 120 });
    const truth: Truth = new Map();
    for (let s = 0; s < 12; s++) truth.set(`s${String(s).padStart(2, "0")}`, source(s, 0, 20));
    expectCounted(folder().open(syncAll(truth)), truth);

    // One document of a source changed: one tombstone in a segment (looked up in each word's postings).
    const one = source(3, 0, 20);
    one.stamp = "v0+";
    one.docs[4] = { id: "d4", stamp: "v1", text: docText(3, 1, 4) };
    truth.set("s03", one);
    folder().append(syncAll(truth));
    expectCounted(folder().open(syncAll(truth)), truth);
    // A whole source restamped: twenty.
    truth.set("s04", source(4, 1, 20));
    folder().append(syncAll(truth));
    expectCounted(folder().open(syncAll(truth)), truth);

    // Most sources restamped or gone: tombstones in every segment, most of some (one walk).
    for (let s = 0; s < 12; s += 1) if (s % 3 !== 0) truth.set(`s${String(s).padStart(2, "0")}`, source(s, 2, 15));
    truth.delete("s06");
    folder().append(syncAll(truth));
    expectCounted(folder().open(syncAll(truth)), truth);

    // A sync in the process tombstones more before anything is saved.
    const open = folder().open(syncAll(truth));
    truth.set("s09", source(9, 3, 25));
    open.sync("s09", "v3", () => truth.get("s09")!.docs);
    expectCounted(open, truth);

    folder().compact(false);
    expectCounted(folder().open(syncAll(truth)), truth);
    truth.set("s00", source(0, 4, 5));
    folder().append(syncAll(truth));
    expectCounted(folder().open(syncAll(truth)), truth);
    folder().compact(true);
    expectCounted(folder().open(syncAll(truth)), truth);
  });
});
