/**
 * Global memory: the user's notes shared by every project. What the model reads when it stores,
 * recalls and forgets across both scopes, the bytes each file holds, the prompt block, and that
 * opening and reading the stores writes nothing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { paths, stateDir } from "../../lib/platform/paths.ts";
import { compactMemory } from "../../lib/agent/memory-compaction.ts";
import { openGlobalMemory, openMemory, recallMemories, type MemoryEntry, type MemoryKind } from "../../lib/store/memory.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import { recallMemory } from "../../lib/store/memory-recall.ts";
import { toToolSpec } from "../../lib/tools/schema.ts";
import type { ToolContext, ToolDefinition } from "../../lib/tools/types.ts";
import { useTempHome } from "./temp-home.ts";

const ROOT = "/work/example-project";
useTempHome("shiro-memory-global-");

const ctx: ToolContext = { root: ROOT, signal: new AbortController().signal, emitOutput: () => {}, callId: "call_1" };

function tools(): Record<string, ToolDefinition> {
  return Object.fromEntries(createMemoryTools(openMemory(ROOT), { global: openGlobalMemory() }).map((tool) => [tool.name, tool]));
}

function readDoc(path: string): { version: number; project?: string; entries: MemoryEntry[] } {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** Entries with distinct, ordered timestamps: entry i was created at minute `minute(i)` of 2025-01-01. */
function makeEntries(prefix: string, count: number, minute: (i: number) => number, shape: (i: number) => Partial<MemoryEntry> = () => ({})): MemoryEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`,
    kind: "fact" as MemoryKind,
    text: `${prefix} note ${i}`,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, minute(i))).toISOString(),
    hits: 0,
    ...shape(i),
  }));
}

function writeDoc(path: string, doc: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
}

describe("remember with a scope", () => {
  test("a global note lands in memory/global.json, says (global), and leaves the project file alone", async () => {
    const { remember } = tools();
    expect(await remember!.execute({ kind: "fact", text: "the user's shell is fish", scope: "global" }, ctx)).toBe(
      "Remembered as fact (global, 1 stored): the user's shell is fish",
    );
    expect(await remember!.execute({ kind: "decision", text: "prefers pnpm over npm", scope: "global" }, ctx)).toBe(
      "Remembered as decision (global, 2 stored): prefers pnpm over npm",
    );
    expect(await remember!.execute({ kind: "fact", text: "the user's shell is fish", scope: "global" }, ctx)).toBe(
      "Already recorded (global): the user's shell is fish",
    );
    expect(existsSync(paths.projectMemory(ROOT))).toBe(false);
    const doc = readDoc(paths.globalMemory());
    expect(doc).toEqual({
      version: 1,
      entries: [
        // Remembered again: confirmed, so it records when.
        {
          id: doc.entries[0]!.id,
          kind: "fact",
          text: "the user's shell is fish",
          createdAt: doc.entries[0]!.createdAt,
          hits: 0,
          verifiedAt: doc.entries[0]!.verifiedAt!,
        },
        { id: doc.entries[1]!.id, kind: "decision", text: "prefers pnpm over npm", createdAt: doc.entries[1]!.createdAt, hits: 0 },
      ],
    });
    expect(
      openGlobalMemory()
        .list()
        .map((entry) => entry.text),
    ).toEqual(["prefers pnpm over npm", "the user's shell is fish"]);
  });

  test("without a scope, or with scope project, the note and the answer are the project's, byte for byte", async () => {
    const { remember } = tools();
    expect(await remember!.execute({ kind: "command", text: "tests run with bun test" }, ctx)).toBe(
      "Remembered as command (1 stored): tests run with bun test",
    );
    expect(await remember!.execute({ kind: "gotcha", text: "seed after migrate", scope: "project" }, ctx)).toBe(
      "Remembered as gotcha (2 stored): seed after migrate",
    );
    expect(await remember!.execute({ kind: "gotcha", text: "seed after migrate" }, ctx)).toBe("Already recorded: seed after migrate");
    expect(readDoc(paths.projectMemory(ROOT)).project).toBe(ROOT);
    expect(existsSync(paths.globalMemory())).toBe(false);
  });

  test("global notes are the same for every project", () => {
    openGlobalMemory().remember("fact", "the machine is an arm64 Mac");
    const other = createMemoryTools(openMemory("/work/other-project"), { global: openGlobalMemory() });
    return other[1]!.execute({ query: "arm64" }, ctx).then((text) => expect(text).toBe("note (fact, global, today): the machine is an arm64 Mac"));
  });

  test("the global store keeps the project store's limits: 400 characters, 300 entries", () => {
    writeDoc(paths.globalMemory(), { version: 1, entries: makeEntries("g", 300, (i) => i) });
    const result = openGlobalMemory().remember("fact", `${"z".repeat(399)}yx`);
    expect([result.count, result.entry.text]).toEqual([300, `${"z".repeat(399)}y`]);
    const texts = readDoc(paths.globalMemory()).entries.map((entry) => entry.text);
    expect([texts.length, texts.includes("g note 0"), texts.includes("g note 1")]).toEqual([300, false, true]);
  });

  test("the scope field is offered only when a global store is given", () => {
    const scoped = createMemoryTools(openMemory(ROOT), { global: openGlobalMemory() }).map((tool) => toToolSpec(tool).inputSchema);
    const plain = createMemoryTools(openMemory(ROOT)).map((tool) => toToolSpec(tool).inputSchema);
    const recallKeys = ["query", "scope", "kinds", "file", "limit"];
    expect(scoped.map((schema) => Object.keys(schema.properties as object))).toEqual([["kind", "text", "scope"], recallKeys, ["text", "scope"]]);
    expect(plain.map((schema) => Object.keys(schema.properties as object))).toEqual([["kind", "text"], recallKeys, ["text"]]);
    expect((scoped[0]!.properties as Record<string, unknown>).scope).toEqual({
      enum: ["project", "global"],
      type: "string",
      description:
        'project (default): about this codebase. global: about the user or their machine, true in every project, e.g. "the user\'s shell is fish", "prefers pnpm"',
    });
  });
});

describe("recall across both stores", () => {
  test("the best matches of both stores, global ones marked, each hit persisted in its own store", async () => {
    writeDoc(paths.projectMemory(ROOT), {
      version: 1,
      project: ROOT,
      entries: makeEntries(
        "p",
        12,
        (i) => 2 * i,
        (i) => ({ text: `shared word project ${i}` }),
      ),
    });
    writeDoc(paths.globalMemory(), {
      version: 1,
      entries: makeEntries(
        "g",
        10,
        (i) => 2 * i + 1,
        (i) => ({ text: `shared word global ${i}` }),
      ),
    });
    const recall = (query: string) =>
      recallMemory({ projectRoot: ROOT, cwd: ROOT, project: openMemory(ROOT), global: openGlobalMemory(), now: new Date(Date.UTC(2025, 0, 4)) }, { query });
    // Every note shares "shared word" equally: hits, then recency break the tie (newest first), 8 by default.
    const expected = [22, 20, 19, 18, 17, 16, 15, 14].map((minute) =>
      minute % 2 === 0
        ? `note (fact, 2 days old): shared word project ${minute / 2}`
        : `note (fact, global, 2 days old): shared word global ${(minute - 1) / 2}`,
    );
    expect(recall("SHARED word")).toBe(expected.join("\n"));
    expect(readDoc(paths.projectMemory(ROOT)).entries.map((entry) => entry.hits)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
    expect(readDoc(paths.globalMemory()).entries.map((entry) => entry.hits)).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    expect(recall("global 9").split("\n")[0]).toBe("note (fact, global, 2 days old, 1 hit): shared word global 9");
    expect(readDoc(paths.globalMemory()).entries[9]!.hits).toBe(2);
    expect(recall("nowhere")).toBe('Nothing recorded about "nowhere".');
  });

  test("a store with no match is not written", () => {
    writeDoc(paths.projectMemory(ROOT), { version: 1, project: ROOT, entries: makeEntries("p", 2, (i) => i) });
    const before = readFileSync(paths.projectMemory(ROOT));
    openGlobalMemory().remember("fact", "only the global store mentions zebras");
    const found = recallMemories([openMemory(ROOT), openGlobalMemory()], "zebras");
    expect(found.map((entry) => [entry.scope, entry.text, entry.hits])).toEqual([["global", "only the global store mentions zebras", 1]]);
    expect(readFileSync(paths.projectMemory(ROOT)).equals(before)).toBe(true);
  });
});

describe("forget with a scope", () => {
  function seedBoth(): void {
    writeDoc(paths.projectMemory(ROOT), {
      version: 1,
      project: ROOT,
      entries: makeEntries(
        "p",
        3,
        (i) => i,
        (i) => ({ text: ["uses pnpm workspaces", "port 3000", "pnpm lockfile is committed"][i] }),
      ),
    });
    writeDoc(paths.globalMemory(), {
      version: 1,
      entries: makeEntries(
        "g",
        2,
        (i) => i,
        (i) => ({ text: ["prefers pnpm", "shell is fish"][i] }),
      ),
    });
  }
  const texts = (path: string) => readDoc(path).entries.map((entry) => entry.text);

  test("without a scope it removes from both stores and counts them all", async () => {
    seedBoth();
    expect(await tools().forget!.execute({ text: "PNPM" }, ctx)).toBe("Forgot 3 memories.");
    expect([texts(paths.projectMemory(ROOT)), texts(paths.globalMemory())]).toEqual([["port 3000"], ["shell is fish"]]);
  });

  test("with a scope it touches that store only", async () => {
    seedBoth();
    const globalBefore = readFileSync(paths.globalMemory());
    expect(await tools().forget!.execute({ text: "pnpm", scope: "project" }, ctx)).toBe("Forgot 2 memories.");
    expect(readFileSync(paths.globalMemory()).equals(globalBefore)).toBe(true);
    expect(await tools().forget!.execute({ text: "port", scope: "global" }, ctx)).toBe('No memory matches "port".');
    expect(await tools().forget!.execute({ text: "pnpm", scope: "global" }, ctx)).toBe("Forgot 1 memory.");
    expect([texts(paths.projectMemory(ROOT)), texts(paths.globalMemory())]).toEqual([["port 3000"], ["shell is fish"]]);
  });
});

describe("the global file on disk", () => {
  test("opening, listing, searching and forgetting nothing create no file and no folder", async () => {
    const project = openMemory(ROOT);
    const global = openGlobalMemory();
    expect([project.list(), global.list(), project.top(), global.top(10)]).toEqual([[], [], [], []]);
    const { recall, forget } = tools();
    expect(await recall!.execute({ query: "anything" }, ctx)).toBe('Nothing recorded about "anything".');
    expect(await forget!.execute({ text: "anything" }, ctx)).toBe('No memory matches "anything".');
    expect(existsSync(stateDir())).toBe(false);
  });

  test("a bare array reads as version 0 and the next write upgrades it to {version: 1, entries}", () => {
    const old = makeEntries("g", 1, () => 0);
    mkdirSync(dirname(paths.globalMemory()), { recursive: true });
    writeFileSync(paths.globalMemory(), JSON.stringify(old));
    expect(openGlobalMemory().list()).toEqual(old);
    openGlobalMemory().remember("fact", "newer");
    const doc = readDoc(paths.globalMemory());
    expect({ keys: Object.keys(doc), first: doc.entries[0] }).toEqual({ keys: ["version", "entries"], first: old[0]! });
  });

  test("a corrupt global file is named as global memory and kept aside by the next write", () => {
    mkdirSync(dirname(paths.globalMemory()), { recursive: true });
    writeFileSync(paths.globalMemory(), "[{ broken");
    const notices: string[] = [];
    const store = openGlobalMemory({ onNotice: (text) => notices.push(text) });
    expect(store.list()).toEqual([]);
    store.remember("fact", "after the damage");
    expect(notices.length).toBe(2);
    expect(notices[0]).toStartWith(`global memory ${paths.globalMemory()} is unreadable (`);
    expect(notices[1]).toStartWith(`global memory ${paths.globalMemory()} was unreadable (`);
    expect(readDoc(paths.globalMemory()).entries.map((entry) => entry.text)).toEqual(["after the damage"]);
  });

  test("model compaction works on the global store and tells the model whose notes they are", async () => {
    writeDoc(paths.globalMemory(), { version: 1, entries: makeEntries("g", 62, (i) => i) });
    const systems: string[] = [];
    const result = await compactMemory(openGlobalMemory(), async (system) => {
      systems.push(system);
      return "[fact] the user likes numbered notes";
    });
    expect(result).toEqual({ changed: true, message: "memory compacted: 62 entries into 1" });
    expect(systems[0]!.split("\n")[0]).toBe(
      "You tidy the memory of a coding agent: short notes it wrote for itself about its user and the user's machine, true in every project.",
    );
    expect(readDoc(paths.globalMemory())).toEqual({ version: 1, entries: [expect.objectContaining({ text: "the user likes numbered notes" })] });
  });
});
