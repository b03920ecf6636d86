/**
 * Within one process a memory file is read again only when its stamp (inode, size, modification
 * time) moved since it was last read here: the prompt's memory and a `recall` in the same turn
 * list the notes once. Whatever changes the file — a save through another store (another
 * process), an atomic replacement of the same size, a write through the store itself — is seen
 * by the next read, and by the recall index opened after it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { fileStamp } from "../../lib/state-file/file-stamp.ts";
import { openMemoryIndex } from "../../lib/store/memory-index.ts";
import { openMemory } from "../../lib/store/memory.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-memory-file-reuse-");

const root = "/work/reuse-project";
const note = (text: string) => ({
  id: `01a23177-0000-7000-8000-00000000000${text.length % 10}`,
  kind: "fact",
  text,
  createdAt: "2026-11-28T10:00:00.000Z",
  hits: 0,
});
const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ version: 1, project: root, entries: [note(text)] }));
};

describe("a memory file read again in one process", () => {
  test("is not read while its stamp holds (rewritten in place with the same size and time)", () => {
    const path = paths.projectMemory(root);
    write(path, "the queue retries");
    utimesSync(path, 1_800_000_000, 1_800_000_000);
    const store = openMemory(root);
    expect(store.list().map((entry) => entry.text)).toEqual(["the queue retries"]);
    const stamp = fileStamp(path);
    write(path, "the queue RETRIES");
    utimesSync(path, 1_800_000_000, 1_800_000_000);
    expect(fileStamp(path)).toBe(stamp);
    // The same stamp: the entries read before, from another store of the same file too.
    expect(store.list().map((entry) => entry.text)).toEqual(["the queue retries"]);
    expect(
      openMemory(root)
        .list()
        .map((entry) => entry.text),
    ).toEqual(["the queue retries"]);
  });

  test("sees a save through another store, an atomic replacement of the same size and its own writes", () => {
    const path = paths.projectMemory(root);
    const store = openMemory(root);
    store.remember("fact", "the queue retries");
    expect(store.list().map((entry) => entry.text)).toEqual(["the queue retries"]);
    openMemory(root).remember("fact", "builds run in ci");
    expect(store.list().map((entry) => entry.text)).toEqual(["builds run in ci", "the queue retries"]);
    const same = readFileSync(path, "utf8").replace("builds run in ci", "builds run in CI");
    writeFileSync(`${path}.tmp`, same);
    renameSync(`${path}.tmp`, path);
    expect(store.list().map((entry) => entry.text)).toEqual(["builds run in CI", "the queue retries"]);
    store.forget("queue");
    expect(store.list().map((entry) => entry.text)).toEqual(["builds run in CI"]);
  });

  test("gives a new list each time: a caller's change to one is not the next read's", () => {
    const store = openMemory(root);
    store.remember("fact", "the queue retries");
    const first = store.list();
    first.pop();
    expect(store.list().map((entry) => entry.text)).toEqual(["the queue retries"]);
  });

  test("the recall index opened again in the process finds a note saved in between", () => {
    const store = openMemory(root);
    store.remember("fact", "the queue retries on timeout");
    const before = openMemoryIndex({ projectRoot: root, stores: [store] });
    expect(before.index.search("deploy", { limit: 5 })).toEqual([]);
    openMemory(root).remember("fact", "deploy with the blue-green script");
    const after = openMemoryIndex({ projectRoot: root, stores: [store] });
    expect([...after.notes.values()].map((entry) => entry.text).sort()).toEqual(["deploy with the blue-green script", "the queue retries on timeout"]);
    expect(after.index.search("deploy", { limit: 5 }).map((hit) => after.notes.get(hit.id)?.text)).toEqual(["deploy with the blue-green script"]);
  });
});
