/**
 * Eight processes remember notes on one store (a project's, the global one, a repository's) at the same
 * moment: every note must survive, and every write must have seen all the writes before it (the
 * counts they report are 1..N).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import type { MemoryEntry } from "../../lib/store/memory.ts";
import { useTempHome } from "./temp-home.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "memory-remember.ts");
const WORKERS = 8;
const NOTES_EACH = 50;
const ROOT = "/work/busy-project";

const home = useTempHome("shiro-memory-race-");

interface Reported {
  id: string;
  createdAt: string;
  text: string;
  status: string;
  count: number;
}

type Scope = "project" | "global" | "repo";
const repoRoot = () => join(home.dir, "repo");

async function rememberFromEightProcesses(scope: Scope, maxEntries: string): Promise<Reported[]> {
  const go = join(home.dir, "start");
  const children = Array.from({ length: WORKERS }, (_, worker) =>
    Bun.spawn({
      cmd: [
        process.execPath,
        FIXTURE,
        scope === "repo" ? repoRoot() : ROOT,
        String(worker),
        String(NOTES_EACH),
        maxEntries,
        go,
        ...(scope === "project" ? [] : [`--${scope}`]),
      ],
      env: process.env,
      stdout: "pipe",
      stderr: "pipe",
      timeout: 60_000,
      killSignal: "SIGKILL",
    }),
  );
  writeFileSync(`${go}.go`, "");
  const outputs = await Promise.all(
    children.map(async (child) => {
      const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      return stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Reported);
    }),
  );
  return outputs.flat();
}

function readEntries(scope: Scope): MemoryEntry[] {
  const path = scope === "global" ? paths.globalMemory() : scope === "repo" ? join(repoRoot(), ".shiro", "notes.json") : paths.projectMemory(ROOT);
  return JSON.parse(readFileSync(path, "utf8")).entries;
}

const everyText = Array.from({ length: WORKERS }, (_, w) => Array.from({ length: NOTES_EACH }, (_, i) => `worker ${w} note ${i}`)).flat();

for (const scope of ["project", "global"] as const) {
  const otherFile = () => (scope === "global" ? paths.projectMemory(ROOT) : paths.globalMemory());

  describe(`${scope} memory`, () => {
    test("8 processes × 50 remember calls: all 400 notes are on disk, none lost, none in the other store", async () => {
      const reported = await rememberFromEightProcesses(scope, "1000");
      const entries = readEntries(scope);
      expect(entries.map((entry) => entry.text).sort()).toEqual([...everyText].sort());
      expect(new Set(entries.map((entry) => entry.id)).size).toBe(400);
      expect(reported.every((line) => line.status === "stored")).toBe(true);
      expect(reported.map((line) => line.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
      expect(existsSync(otherFile())).toBe(false);
    }, 90_000);

    test("with the default cap, the 300 newest of the 400 notes remain", async () => {
      const reported = await rememberFromEightProcesses(scope, "default");
      const entries = readEntries(scope);
      const byAge = [...reported].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
      expect(entries.length).toBe(300);
      expect(entries.map((entry) => entry.id).sort()).toEqual(
        byAge
          .slice(100)
          .map((line) => line.id)
          .sort(),
      );
    }, 90_000);
  });
}

describe("repo notes", () => {
  test("8 processes × 50 remember calls into .shiro/notes.json: all 400 notes are in the repository file, none in shiro's state", async () => {
    mkdirSync(repoRoot());
    const reported = await rememberFromEightProcesses("repo", "1000");
    expect(
      readEntries("repo")
        .map((entry) => entry.text)
        .sort(),
    ).toEqual([...everyText].sort());
    expect(reported.map((line) => line.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect([existsSync(paths.projectMemory(ROOT)), existsSync(paths.globalMemory())]).toEqual([false, false]);
  }, 90_000);
});
