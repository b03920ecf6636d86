/**
 * Project memory: the strings the model reads, the limits, what lands on disk (hit counts,
 * migration, corrupt files kept aside), the prompt block and model compaction with a fake model.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { compactMemory, parseMergedNotes } from "../../lib/agent/memory-compaction.ts";
import { openMemory, type MemoryEntry, type MemoryKind } from "../../lib/store/memory.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import type { ToolContext, ToolDefinition } from "../../lib/tools/types.ts";
import { useTempHome } from "./temp-home.ts";

const ROOT = "/work/example-project";
useTempHome("shiro-memory-");

const ctx: ToolContext = { root: ROOT, signal: new AbortController().signal, emitOutput: () => {}, callId: "call_1" };

function tools(): Record<string, ToolDefinition> {
  return Object.fromEntries(createMemoryTools(openMemory(ROOT)).map((tool) => [tool.name, tool]));
}

function readFile(): { version: number; project: string; entries: MemoryEntry[] } {
  return JSON.parse(readFileSync(paths.projectMemory(ROOT), "utf8"));
}

/** Entries with distinct, ordered timestamps: entry i was created i minutes after 2025-01-01. */
function makeEntries(count: number, shape: (i: number) => Partial<MemoryEntry> = () => ({})): MemoryEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `0000000${String(i).padStart(3, "0")}-0000-7000-8000-000000000000`,
    kind: "fact" as MemoryKind,
    text: `note number ${i}`,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
    hits: 0,
    ...shape(i),
  }));
}

function writeEntries(entries: MemoryEntry[]): void {
  const path = paths.projectMemory(ROOT);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ version: 1, project: ROOT, entries }, null, 2)}\n`);
}

describe("remember, recall, forget as the model sees them", () => {
  test("remember stores, reports the count, and refuses exact duplicates and empty text", async () => {
    const { remember } = tools();
    expect(await remember!.execute({ kind: "command", text: "  tests run with\n bun test  " }, ctx)).toBe(
      "Remembered as command (1 stored): tests run with bun test",
    );
    expect(await remember!.execute({ kind: "gotcha", text: "the migration must run before the seed" }, ctx)).toBe(
      "Remembered as gotcha (2 stored): the migration must run before the seed",
    );
    expect(await remember!.execute({ kind: "fact", text: "tests run with bun test" }, ctx)).toBe("Already recorded: tests run with bun test");
    await expect(remember!.execute({ kind: "fact", text: " \n " }, ctx)).rejects.toThrow(new Error("memory text is empty"));
    expect(readFile().entries.map((entry) => [entry.kind, entry.text, entry.hits])).toEqual([
      ["command", "tests run with bun test", 0],
      ["gotcha", "the migration must run before the seed", 0],
    ]);
  });

  test("text is cut at 400 characters, and an unknown kind is refused", () => {
    const store = openMemory(ROOT);
    const result = store.remember("fact", `${"a".repeat(399)}bcdef`);
    expect(result.entry.text).toBe(`${"a".repeat(399)}b`);
    expect(readFile().entries[0]!.text.length).toBe(400);
    expect(() => store.remember("opinion" as MemoryKind, "x")).toThrow('unknown memory kind "opinion": use one of fact, decision, gotcha, command');
  });

  test("the store keeps 300 entries, dropping the oldest by creation time", () => {
    const seeded = makeEntries(300, (i) => (i === 0 ? { hits: 5 } : {}));
    writeEntries([...seeded.slice(150), ...seeded.slice(0, 150)]);
    const result = openMemory(ROOT).remember("decision", "the newest note");
    expect(result.count).toBe(300);
    const texts = readFile().entries.map((entry) => entry.text);
    expect(texts.length).toBe(300);
    expect(texts).not.toContain("note number 0");
    expect(texts).toContain("note number 1");
    expect(texts[299]).toBe("the newest note");
  });

  test("recall ranks by relevance: the note sharing more words first, one shared word is enough, hits persist", async () => {
    const { remember, recall } = tools();
    for (const text of ["Deploy runs on Fridays", "deploy needs the VPN", "the VPN config lives in ops/"]) await remember!.execute({ kind: "fact", text }, ctx);
    expect(await recall!.execute({ query: "DEPLOY vpn" }, ctx)).toBe(
      ["note (fact, today): deploy needs the VPN", "note (fact, today): Deploy runs on Fridays", "note (fact, today): the VPN config lives in ops/"].join("\n"),
    );
    expect(await recall!.execute({ query: "vpn" }, ctx)).toBe(
      "note (fact, today, 1 hit): deploy needs the VPN\nnote (fact, today, 1 hit): the VPN config lives in ops/",
    );
    expect(await recall!.execute({ query: "kubernetes" }, ctx)).toBe('Nothing recorded about "kubernetes".');
    await expect(recall!.execute({ query: "   " }, ctx)).rejects.toThrow("recall needs a query");
    const onDisk = readFile().entries;
    expect(onDisk.map((entry) => entry.hits)).toEqual([1, 2, 2]);
    expect(typeof onDisk[0]!.lastHitAt).toBe("string");
  });

  test("recall returns the 15 most recent matches and counts a hit only on those", () => {
    writeEntries(makeEntries(20));
    const found = openMemory(ROOT).recall("note number");
    expect(found.map((entry) => entry.text)).toEqual(Array.from({ length: 15 }, (_, i) => `note number ${19 - i}`));
    expect(readFile().entries.map((entry) => entry.hits)).toEqual([...Array(5).fill(0), ...Array(15).fill(1)]);
  });

  test("forget removes every note containing the text, case-insensitively", async () => {
    writeEntries(makeEntries(4, (i) => ({ text: ["Port 8080 is taken", "use port 3000", "PORT comes from .env", "unrelated"][i] })));
    const { forget } = tools();
    expect(await forget!.execute({ text: "nothing like this" }, ctx)).toBe('No memory matches "nothing like this".');
    expect(await forget!.execute({ text: "port 8080" }, ctx)).toBe("Forgot 1 memory.");
    expect(await forget!.execute({ text: "PORT" }, ctx)).toBe("Forgot 2 memories.");
    await expect(forget!.execute({ text: "  " }, ctx)).rejects.toThrow("forget needs the text");
    expect(readFile().entries.map((entry) => entry.text)).toEqual(["unrelated"]);
  });

  test("the tools are read-only, so approval defaults leave them free", () => {
    expect(createMemoryTools(openMemory(ROOT)).map((tool) => [tool.name, tool.effect, tool.decision])).toEqual([
      ["remember", "read", "allow"],
      ["recall", "read", "allow"],
      ["forget", "read", "allow"],
    ]);
  });

  test("a note records the session and run it came from", () => {
    const [remember] = createMemoryTools(openMemory(ROOT), { source: () => ({ sessionId: "s1", runId: "r1" }) });
    return remember!.execute({ kind: "fact", text: "sourced" }, ctx).then(() => {
      expect(readFile().entries[0]!.source).toEqual({ sessionId: "s1", runId: "r1" });
    });
  });
});

describe("file formats", () => {
  test("a bare array (version 0) reads, and the next write upgrades it keeping every entry", () => {
    const path = paths.projectMemory(ROOT);
    mkdirSync(dirname(path), { recursive: true });
    const old = [
      { id: "0191aaaa-0000-7000-8000-000000000001", kind: "fact", text: "old note", createdAt: "2024-05-01T10:00:00.000Z", hits: 3 },
      { id: "0191aaaa-0000-7000-8000-000000000002", kind: "gotcha", text: "older format had no lastHitAt", createdAt: "2024-05-02T10:00:00.000Z", hits: 0 },
    ];
    writeFileSync(path, JSON.stringify(old));
    const store = openMemory(ROOT);
    expect(store.list()).toEqual([old[1], old[0]] as MemoryEntry[]);
    store.remember("decision", "new note");
    const file = readFile();
    expect({ version: file.version, project: file.project, first: file.entries.slice(0, 2) }).toEqual({
      version: 1,
      project: ROOT,
      first: old as MemoryEntry[],
    });
    expect(file.entries[2]!.text).toBe("new note");
  });

  test("a corrupt file is reported once, ignored on read, and moved aside (not lost) by the next write", () => {
    const path = paths.projectMemory(ROOT);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, "{ this is not json");
    const notices: string[] = [];
    const store = openMemory(ROOT, { onNotice: (text) => notices.push(text) });
    expect(store.list()).toEqual([]);
    expect(store.top()).toEqual([]);
    expect(notices.length).toBe(1);
    expect(notices[0]).toStartWith(`project memory ${path} is unreadable (not valid JSON`);
    store.remember("fact", "first note after the damage");
    const backups = readdirSync(dirname(path)).filter((name) => name.includes(".corrupt-"));
    expect(backups.length).toBe(1);
    expect(readFileSync(join(dirname(path), backups[0]!), "utf8")).toBe("{ this is not json");
    expect(notices[1]).toBe(
      `project memory ${path} was unreadable (${notices[0]!.match(/\((not valid JSON.*)\);/)![1]}); moved it to ${join(dirname(path), backups[0]!)} and started a new one`,
    );
    expect(readFile().entries.map((entry) => entry.text)).toEqual(["first note after the damage"]);
  });

  test("projects are kept apart by root", () => {
    openMemory(ROOT).remember("fact", "belongs to the first project");
    expect(openMemory("/work/other-project").list()).toEqual([]);
    expect(existsSync(paths.projectMemory("/work/other-project"))).toBe(false);
  });
});

describe("model compaction", () => {
  function fakeModel(reply: string) {
    const calls: { system: string; prompt: string }[] = [];
    const complete = async (system: string, prompt: string) => {
      calls.push({ system, prompt });
      return reply;
    };
    return { calls, complete };
  }

  test("does nothing at 60 entries or fewer, and says why, without calling the model", async () => {
    writeEntries(makeEntries(60));
    const model = fakeModel("[fact] merged");
    expect(await compactMemory(openMemory(ROOT), model.complete)).toEqual({
      changed: false,
      message: "memory left as is: 60 entries, compaction starts past 60",
    });
    expect(model.calls).toEqual([]);
  });

  test("does nothing with fewer than two never-recalled entries", async () => {
    writeEntries(makeEntries(61, (i) => ({ hits: i === 0 ? 0 : 1 })));
    const model = fakeModel("[fact] merged");
    expect(await compactMemory(openMemory(ROOT), model.complete)).toEqual({
      changed: false,
      message: "memory left as is: 61 entries, too few unused ones to merge",
    });
    expect(model.calls).toEqual([]);
  });

  test("a reply with no parseable line leaves the file byte-identical", async () => {
    writeEntries(makeEntries(70));
    const before = readFileSync(paths.projectMemory(ROOT));
    const model = fakeModel("Sure! Here are the merged notes:\n- note number 1 and 2\n[opinion] not a kind");
    expect(await compactMemory(openMemory(ROOT), model.complete)).toEqual({ changed: false, message: "memory left as is: the model's reply did not parse" });
    expect(model.calls.length).toBe(1);
    expect(readFileSync(paths.projectMemory(ROOT)).equals(before)).toBe(true);
  });

  test("merges only never-recalled entries, keeps recalled ones verbatim, and keeps notes added meanwhile", async () => {
    const seeded = makeEntries(70, (i) => (i % 7 === 0 ? { hits: 1 + i, lastHitAt: "2025-02-01T00:00:00.000Z" } : {}));
    writeEntries(seeded);
    const recalled = seeded.filter((entry) => entry.hits > 0);
    const unused = seeded.filter((entry) => entry.hits === 0);
    const store = openMemory(ROOT);
    const calls: string[] = [];
    const result = await compactMemory(store, async (_system, prompt) => {
      calls.push(prompt);
      openMemory(ROOT).remember("gotcha", "added while the model was thinking");
      return "Merged:\n- [fact] notes one to thirty are about numbers\n2. [command] run the numbers script\n[gotcha] numbers wrap at 70\n\n";
    });
    expect(result).toEqual({ changed: true, message: "memory compacted: 71 entries into 14" });
    expect(calls).toEqual([[`Notes to merge (${unused.length}):`, "<notes>", ...unused.map((entry) => `[fact] ${entry.text}`), "</notes>"].join("\n")]);
    const entries = readFile().entries;
    expect(entries.slice(0, recalled.length)).toEqual(recalled);
    expect(entries.slice(recalled.length).map((entry) => [entry.kind, entry.text, entry.hits])).toEqual([
      ["gotcha", "added while the model was thinking", 0],
      ["fact", "notes one to thirty are about numbers", 0],
      ["command", "run the numbers script", 0],
      ["gotcha", "numbers wrap at 70", 0],
    ]);
  });

  test("an entry recalled while the model was answering is kept", async () => {
    writeEntries(makeEntries(62));
    const result = await compactMemory(openMemory(ROOT), async () => {
      openMemory(ROOT).recall("note number 61");
      return "[fact] everything else";
    });
    expect(result).toEqual({ changed: true, message: "memory compacted: 62 entries into 2" });
    expect(readFile().entries.map((entry) => [entry.text, entry.hits])).toEqual([
      ["note number 61", 1],
      ["everything else", 0],
    ]);
  });

  test("parses `[kind] text` lines, tolerating bullets and numbering", () => {
    expect(parseMergedNotes("intro\n* [Decision] use pnpm\n  3) [gotcha]  flaky test on CI \n[kind] nope\n[fact]")).toEqual([
      { kind: "decision", text: "use pnpm" },
      { kind: "gotcha", text: "flaky test on CI" },
    ]);
  });
});
