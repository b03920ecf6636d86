/**
 * What holds for a whole source (bm25-index.ts `describe`, `sourceFilter`): a segment records it
 * as the fifth member of the source's entry, a merge keeps it only where every segment agreed, and
 * a search judges a described source once, without asking `filter` about its documents, while a
 * source with nothing recorded (a segment written before, or documents that do not agree) is
 * judged document by document. The hits are the same either way.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bm25Index, IndexedDocInput, SearchOptions } from "../../lib/search/bm25-index.ts";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { SECTION, u32At } from "../../lib/search/segment-layout.ts";
import { describeTranscriptSource } from "../../lib/find/transcript-docs.ts";

/** `count` documents of one session in `cwd`, every one saying `login`, some `redirect` too. */
function _docs(session: number, cwd: string, count = 6): IndexedDocInput[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    stamp: "",
    text: `login ${i % 2 ? "redirect" : "page"} ${"word ".repeat((session + i) % 4)}s${session}`,
    data: { at: `2026-01-${String((session % 28) + 1).padStart(2, "0")}T00:00:00.000Z`, cwd, role: "prompt" },
  }));
}

const _CWDS = ["/work/app", "/work/other", "/work/app/sub", "/work/application"];

/** Source name → its documents: ten sessions over four folders. */
function _truth(): Map<string, IndexedDocInput[]> {
  return new Map(Array.from({ length: 10 }, (_, s) => [`session:${String(s).padStart(3, "0")}`, _docs(s, _CWDS[s % 4]!)]));
}

const _inApp = (cwd: string) => cwd === "/work/app" || cwd.startsWith("/work/app/");

/** The source entries of every segment file in `dir`, parsed. */
function _sourceEntries(dir: string): unknown[][] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".seg"))
    .sort()
    .flatMap((name) => {
      const bytes = readFileSync(join(dir, name));
      const at = (section: number) => u32At(bytes, 32 + section * 4);
      const count = u32At(bytes, 20);
      const offsets = Array.from({ length: count + 1 }, (_, i) => u32At(bytes, at(SECTION.sourceOffsets) + i * 4));
      return offsets
        .slice(0, -1)
        .map((from, i) => JSON.parse(bytes.subarray(at(SECTION.sourceEntries) + from, at(SECTION.sourceEntries) + offsets[i + 1]!).toString("utf8")));
    });
}

/** The search recall makes: documents in /work/app, by `filter` alone or by the source's data where it has some. */
function _search(index: Bm25Index, bySource: boolean): { hits: string[]; asked: string[] } {
  const asked: string[] = [];
  const options: SearchOptions = {
    limit: 40,
    filter: (segment, id, data) => {
      asked.push(`${segment}/${id}`);
      return _inApp((data as { cwd: string }).cwd);
    },
    ...(bySource ? { sourceFilter: (_segment: string, data: unknown) => _inApp((data as { cwd: string }).cwd) } : {}),
  };
  return { hits: index.search("login redirect", options).map((hit) => `${hit.segment}/${hit.id} ${hit.score.toFixed(12)}`), asked };
}

describe("a source's data", () => {
  test("described sources are written with it, judged once each, and give the hits the documents' filter gives", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-source-data-"));
    const folder = openIndexFolder(join(dir, "index"), { label: "test index" });
    const truth = _truth();
    const index = folder.open((index) => {
      for (const [name, docs] of truth) index.sync(name, "v1", () => docs, describeTranscriptSource);
    });
    const entries = _sourceEntries(join(dir, "index"));
    expect(entries).toHaveLength(10);
    expect(entries[1]).toEqual(["session:001", "v1", 6, 6, { cwd: "/work/other" }]);
    const plain = _search(index, false);
    const judged = _search(index, true);
    expect(judged.hits).toEqual(plain.hits);
    expect(plain.hits.length).toBeGreaterThan(10);
    expect(plain.hits.every((hit) => /session:00[0-9]/.test(hit))).toBe(true);
    // Sessions 0, 2, 4, 6 and 8 are in /work/app or below it; /work/application is not.
    expect(new Set(plain.hits.map((hit) => hit.slice(8, 11)))).toEqual(new Set(["000", "002", "004", "006", "008"]));
    expect(plain.asked.length).toBeGreaterThan(0);
    expect(judged.asked).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a source written without it, or whose documents disagree, is judged document by document; a merge keeps only what every segment agreed on", () => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-source-data-"));
    const folder = openIndexFolder(join(dir, "index"), { label: "test index" });
    const truth = _truth();
    // The first five as a segment written before sources were described; the rest described.
    folder.open((index) => {
      for (const [name, docs] of [...truth].slice(0, 5)) index.sync(name, "v1", () => docs);
    });
    const mixed = [..._docs(20, "/work/app", 3), ..._docs(21, "/work/other", 3).map((doc) => ({ ...doc, id: `${doc.id}b` }))];
    folder.append((index) => {
      for (const [name, docs] of [...truth].slice(5)) index.sync(name, "v1", () => docs, describeTranscriptSource);
      index.sync("session:020", "v1", () => mixed, describeTranscriptSource);
      // Session 1 again, one document changed: its new segment describes it, its old one did not.
      index.sync("session:001", "v2", () => truth.get("session:001")!.map((doc, i) => (i === 0 ? { ...doc, stamp: "2" } : doc)), describeTranscriptSource);
    });
    const entries = _sourceEntries(join(dir, "index"));
    expect(entries.filter((entry) => entry.length === 5).map((entry) => entry[0])).toEqual([
      "session:001",
      "session:005",
      "session:006",
      "session:007",
      "session:008",
      "session:009",
    ]);
    expect(entries.find((entry) => entry[0] === "session:020")).toHaveLength(4);
    const reopened = folder.open(() => {});
    const plain = _search(reopened, false);
    const judged = _search(reopened, true);
    expect(judged.hits).toEqual(plain.hits);
    const askedSessions = new Set(judged.asked.map((hit) => hit.slice(0, 11)));
    expect([...askedSessions].sort()).toEqual(["session:000", "session:001", "session:002", "session:003", "session:004", "session:020"]);

    const before = plain.hits;
    folder.compact(true);
    const merged = _sourceEntries(join(dir, "index"));
    expect(merged).toHaveLength(11);
    // Session 1's two segments did not agree (one recorded nothing): the merge records nothing for it.
    expect(merged.find((entry) => entry[0] === "session:001")).toHaveLength(4);
    expect(merged.find((entry) => entry[0] === "session:006")).toEqual(["session:006", "v1", expect.any(Number), 6, { cwd: "/work/app/sub" }]);
    const compacted = folder.open(() => {});
    expect(_search(compacted, true).hits).toEqual(before);
    expect(_search(compacted, false).hits).toEqual(before);
    rmSync(dir, { recursive: true, force: true });
  });

  test("a transcript source is described by the folder all its documents share, and by nothing when they differ", () => {
    expect(describeTranscriptSource(_docs(1, "/work/app"))).toEqual({ cwd: "/work/app" });
    expect(describeTranscriptSource([..._docs(1, "/work/app"), ..._docs(2, "/work/app/sub")])).toBeUndefined();
    expect(describeTranscriptSource([])).toBeUndefined();
  });
});
