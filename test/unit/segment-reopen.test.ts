/**
 * A segment file opened for positioned reads is opened once per process while its stamp holds
 * (lib/search/segment-files.ts): opening the folder's segments again (a save after a `recall`)
 * takes the reader already checked, and a file put in its place (another inode) or grown is opened
 * and checked again.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bm25Index } from "../../lib/search/bm25-index.ts";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { readManifest } from "../../lib/search/index-manifest.ts";
import { READ_WHOLE_BYTES, openSegmentFiles } from "../../lib/search/segment-files.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An index folder of one segment larger than READ_WHOLE_BYTES, and its manifest. */
function _largeFolder() {
  const dir = mkdtempSync(join(tmpdir(), "shiro-reopen-"));
  dirs.push(dir);
  const words = Array.from({ length: 9_000 }, (_, i) => `word${i}`);
  const folder = openIndexFolder(dir, { label: "test index" });
  folder.open((index: Bm25Index) => {
    index.sync("notes", "1", () => [
      { id: "a", stamp: "", text: "alpha lives here" },
      ...Array.from({ length: 30 }, (_, d) => ({ id: `w${d}`, stamp: "", text: words.slice(d * 300, d * 300 + 300).join(" ") })),
    ]);
  });
  const manifest = readManifest(join(dir, "manifest.json")).manifest!;
  expect(manifest.segments[0]!.bytes).toBeGreaterThan(READ_WHOLE_BYTES);
  return { dir, manifest, file: join(dir, manifest.segments[0]!.file) };
}

/** An index folder of one segment of at most READ_WHOLE_BYTES (read whole), and its manifest. */
function _smallFolder() {
  const dir = mkdtempSync(join(tmpdir(), "shiro-reopen-"));
  dirs.push(dir);
  openIndexFolder(dir, { label: "test index" }).open((index: Bm25Index) => {
    index.sync("notes", "1", () => [{ id: "a", stamp: "", text: "alpha lives here" }]);
  });
  const manifest = readManifest(join(dir, "manifest.json")).manifest!;
  expect(manifest.segments[0]!.bytes).toBeLessThanOrEqual(READ_WHOLE_BYTES);
  return { dir, manifest, file: join(dir, manifest.segments[0]!.file) };
}

describe("segment files opened again", () => {
  test("a file read whole, unchanged, is the reader already read; one put in its place is read again; neither is named for kept candidates", () => {
    const { dir, manifest, file } = _smallFolder();
    const [first] = openSegmentFiles(dir, manifest);
    const [again] = openSegmentFiles(dir, manifest);
    expect(again!.reader).toBe(first!.reader);
    copyFileSync(file, `${file}.copy`);
    renameSync(`${file}.copy`, file);
    const [replaced] = openSegmentFiles(dir, manifest);
    expect(replaced!.reader).not.toBe(first!.reader);
    expect([first!.identity, again!.identity, replaced!.identity]).toEqual([undefined, undefined, undefined]);
    expect(replaced!.reader.postings("alpha")?.docs).toEqual(first!.reader.postings("alpha")!.docs);
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from([0])]));
    expect(() => openSegmentFiles(dir, manifest)).toThrow(/bytes, the manifest says/);
  });

  test("the same file, unchanged, is the reader already opened", () => {
    const { dir, manifest } = _largeFolder();
    const [first] = openSegmentFiles(dir, manifest);
    const [again] = openSegmentFiles(dir, manifest);
    expect(again!.reader).toBe(first!.reader);
    expect(again!.identity).toBe(first!.identity!);
    expect(again!.reader.postings("alpha")?.docs).toEqual(first!.reader.postings("alpha")!.docs);
  });

  test("a file put in its place (same bytes, another inode) is opened and checked again", () => {
    const { dir, manifest, file } = _largeFolder();
    const [first] = openSegmentFiles(dir, manifest);
    copyFileSync(file, `${file}.copy`);
    renameSync(`${file}.copy`, file);
    const [again] = openSegmentFiles(dir, manifest);
    expect(again!.reader).not.toBe(first!.reader);
    expect(again!.identity).not.toBe(first!.identity!);
    expect(again!.reader.postings("alpha")?.docs).toEqual(first!.reader.postings("alpha")!.docs);
  });

  test("a file that no longer matches its manifest is not taken from before: it is checked and refused", () => {
    const { dir, manifest, file } = _largeFolder();
    openSegmentFiles(dir, manifest);
    const bytes = readFileSync(file);
    const grown = Buffer.concat([bytes, Buffer.from([0])]);
    writeFileSync(file, grown);
    expect(() => openSegmentFiles(dir, manifest)).toThrow(/bytes, the manifest says/);
  });
});
