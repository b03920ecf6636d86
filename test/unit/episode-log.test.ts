/**
 * The episode log (lib/store/episodes.ts, docs/memory.md "The file"), measured on disk: a save in
 * a store of 1,000 episodes appends its record's bytes and reads only the last line; a torn last
 * record is ignored, then cut off; writers in several processes under the lock lose nothing; the
 * format before the log is read and moved into it; a compaction leaves what reads show.
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { keepIndexesCurrent } from "../../lib/agent/index-upkeep.ts";
import { paths } from "../../lib/platform/paths.ts";
import { COMPACT_AFTER_SEGMENTS } from "../../lib/search/index-folder.ts";
import { openMemory } from "../../lib/store/memory.ts";
import { openEpisodes, type Episode } from "../../lib/store/episodes.ts";
import { useTempHome } from "./temp-home.ts";

const ROOT = "/work/project";
const home = useTempHome("shiro-episode-log-");

function episode(i: number, extra: Partial<Episode> = {}): Episode {
  const day = String(1 + (i % 28)).padStart(2, "0");
  return {
    id: `ep-${i}`,
    sessionId: `0190${String(i).padStart(4, "0")}-aaaa-7000-8000-000000000000`,
    runIds: [`run-${i}`],
    startedAt: `2026-10-${day}T10:00:00.000Z`,
    endedAt: `2026-10-${day}T11:00:00.000Z`,
    prompts: [`task number ${i} with a prompt long enough to look like one people type`],
    filesRead: [`src/read${i}.ts`, `src/other${i}.ts`],
    filesChanged: [`src/file${i}.ts`],
    commands: [{ command: `bun test src/file${i}.test.ts`, exit: 0 }],
    outcome: { status: "completed", steps: 3, runs: 1, costUsd: 0.01 },
    answer: `done ${i}: ${"the change is in place and the tests pass ".repeat(8)}`,
    spans: [],
    ...extra,
  };
}

/** Episodes `0..count-1` in the file format before the log, as a long-lived home holds them. */
function writeLegacy(count: number, digests: unknown[] = []): void {
  const legacy = paths.legacyProjectEpisodes(ROOT);
  mkdirSync(dirname(legacy), { recursive: true });
  const episodes = Array.from({ length: count }, (_, i) => episode(i));
  writeFileSync(legacy, `${JSON.stringify({ version: 1, project: ROOT, episodes, digests }, null, 2)}\n`);
}

const logLines = () =>
  readFileSync(paths.projectEpisodes(ROOT), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, any>);

/** Bytes this process has read through read(2) and friends so far (Linux). */
function bytesRead(): number | undefined {
  try {
    return Number(/^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"))?.[1]);
  } catch {
    return undefined;
  }
}

function requireProcIo(): boolean {
  if (bytesRead() !== undefined) return true;
  if (process.env.CI === "true") throw new Error("/proc/self/io is needed to count bytes read");
  console.log("[skip] /proc/self/io is missing: bytes read are not counted here");
  return false;
}

describe("a save in a long history", () => {
  test("with 1,000 episodes stored, a record appends its line and reads no more than the last one", () => {
    writeLegacy(999);
    openEpisodes(ROOT).record(episode(999));
    const path = paths.projectEpisodes(ROOT);
    const before = statSync(path);
    const old = readFileSync(path);
    expect(before.size).toBeGreaterThan(800_000);
    const counting = requireProcIo();

    const read0 = bytesRead() ?? 0;
    const result = openEpisodes(ROOT).record(episode(1_000));
    const read = (bytesRead() ?? 0) - read0;

    const after = statSync(path);
    const bytes = readFileSync(path);
    const line = `${JSON.stringify({ n: 1_001, fold: 1, episode: episode(1_000) })}\n`;
    expect([after.ino, after.size - before.size, bytes.subarray(0, old.length).equals(old)]).toEqual([before.ino, Buffer.byteLength(line), true]);
    expect(bytes.subarray(old.length).toString()).toBe(line);
    expect(result).toEqual({ count: 1_000, folded: 1 });
    // The last line (read in chunks from 8 KiB) and the lock file; the file is over 800 KB.
    if (counting) expect(read).toBeLessThan(20_000);
  });

  test("newest and find read from the end; a read after this process's own record reads nothing", () => {
    writeLegacy(999);
    const writer = openEpisodes(ROOT);
    writer.record(episode(999));
    const counting = requireProcIo();

    const reader = openEpisodes(ROOT);
    const read0 = bytesRead() ?? 0;
    expect(reader.newest(3).map((entry) => entry.id)).toEqual(["ep-999", "ep-998", "ep-997"]);
    expect(reader.find("ep-990")?.prompts).toEqual(episode(990).prompts);
    const tail = (bytesRead() ?? 0) - read0;
    if (counting) expect(tail).toBeLessThan(40_000);

    expect(writer.read().episodes).toHaveLength(1_000);
    writer.record(episode(1_000));
    const read1 = bytesRead() ?? 0;
    const { episodes } = writer.read();
    // Only /proc/self/io itself (about 150 bytes) is read in between.
    if (counting) expect((bytesRead() ?? 0) - read1).toBeLessThan(1_000);
    expect([episodes.length, episodes[0]!.id, episodes.at(-1)!.id]).toEqual([1_000, "ep-1", "ep-1000"]);
  });
});

describe("the log on disk", () => {
  test("a torn last record is ignored by reads and cut off, with a notice, by the next record", () => {
    const store = openEpisodes(ROOT);
    store.record(episode(1));
    store.record(episode(2));
    appendFileSync(store.path, '{"n":3,"episode":{"id":"ep-3","sess');
    const notices: string[] = [];
    const next = openEpisodes(ROOT, { onNotice: (text) => notices.push(text) });
    expect(next.read().episodes.map((entry) => entry.id)).toEqual(["ep-1", "ep-2"]);
    expect(next.newest(5).map((entry) => entry.id)).toEqual(["ep-2", "ep-1"]);
    expect(next.unreadable()).toBeUndefined();
    expect(notices).toEqual([]);
    expect(next.record(episode(4))).toEqual({ count: 3, folded: 0 });
    expect(logLines().map((line) => line.n ?? "header")).toEqual(["header", 1, 2, 3]);
    expect(next.read().episodes.map((entry) => entry.id)).toEqual(["ep-1", "ep-2", "ep-4"]);
    expect(notices).toEqual([`episodes ${store.path} ended in an incomplete record (35 bytes, a write cut short); dropped it`]);
  });

  test("a log that is only its header without a line break reads as empty, and the next record still lands", () => {
    const store = openEpisodes(ROOT);
    store.record(episode(1));
    const header = readFileSync(store.path, "utf8").split("\n")[0]!;
    writeFileSync(store.path, header);
    const next = openEpisodes(ROOT);
    expect(next.read().episodes).toEqual([]);
    expect(next.newest(3)).toEqual([]);
    next.record(episode(2));
    expect(
      openEpisodes(ROOT)
        .read()
        .episodes.map((entry) => entry.id),
    ).toEqual(["ep-2"]);
  });

  test("a summary is one more line; reads and a compaction merge it into its episode", () => {
    const store = openEpisodes(ROOT);
    store.record(episode(1));
    store.record(episode(2));
    const size = statSync(store.path).size;
    expect(store.addSummary("ep-1", "fixed the parser")).toBe(true);
    expect(store.addSummary("ep-9", "nothing")).toBe(false);
    expect(logLines().slice(3)).toEqual([{ n: 2, summary: { id: "ep-1", text: "fixed the parser" } }]);
    expect(statSync(store.path).size - size).toBe(Buffer.byteLength(`${JSON.stringify({ n: 2, summary: { id: "ep-1", text: "fixed the parser" } })}\n`));
    for (const reader of [store, openEpisodes(ROOT)]) {
      expect(reader.read().episodes[0]!.summary).toBe("fixed the parser");
      expect(reader.find("ep-1")?.summary).toBe("fixed the parser");
    }
    store.compact();
    expect(logLines().map((line) => line.episode?.summary ?? line.summary ?? null)).toEqual([null, "fixed the parser", null]);
  });

  test("an unreadable line in the middle is skipped with one notice; a compaction keeps it in a .corrupt file", () => {
    const store = openEpisodes(ROOT);
    store.record(episode(1));
    appendFileSync(store.path, "not json at all\n");
    store.record(episode(2));
    const notices: string[] = [];
    const reader = openEpisodes(ROOT, { onNotice: (text) => notices.push(text) });
    expect(reader.read().episodes.map((entry) => entry.id)).toEqual(["ep-1", "ep-2"]);
    reader.read();
    expect(notices).toHaveLength(1);
    reader.compact();
    const corrupt = readdirSync(dirname(store.path)).filter((name) => name.includes(".corrupt-"));
    expect(corrupt.map((name) => readFileSync(join(dirname(store.path), name), "utf8"))).toEqual(["not json at all\n"]);
    expect(
      openEpisodes(ROOT)
        .read()
        .episodes.map((entry) => entry.id),
    ).toEqual(["ep-1", "ep-2"]);
  });

  test("writers in four processes at once, under the lock: every episode kept, numbered once", async () => {
    const script = join(home.dir, "writer.ts");
    writeFileSync(
      script,
      `const { openEpisodes } = await import(${JSON.stringify(join(import.meta.dir, "../../lib/store/episodes.ts"))});
       const [who] = process.argv.slice(2);
       const store = openEpisodes(${JSON.stringify(ROOT)});
       for (let i = 0; i < 25; i++) store.record({ id: \`w\${who}-\${i}\`, sessionId: "s", runIds: [], startedAt: "2026-10-01T00:00:00.000Z", endedAt: "2026-10-01T00:00:00.000Z", prompts: ["p"], filesRead: [], filesChanged: [], commands: [], outcome: { status: "completed", steps: 1, runs: 1 }, answer: "a", spans: [] });`,
    );
    const codes = await Promise.all(
      [0, 1, 2, 3].map(
        (who) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, [script, String(who)], { env: { ...process.env, SHIRO_HOME: home.dir }, stdio: "ignore" });
            const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
            child.on("close", (code) => resolve(clearTimeout(timer) ?? code));
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0, 0]);
    const lines = logLines().slice(1);
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    const ids = openEpisodes(ROOT)
      .read()
      .episodes.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(100);
    for (const who of [0, 1, 2, 3]) expect(ids.filter((id) => id.startsWith(`w${who}-`))).toEqual(Array.from({ length: 25 }, (_, i) => `w${who}-${i}`));
  }, 40_000);
});

describe("the format before the log", () => {
  test("is read as it is, and the first record moves its episodes and digests into the log and removes it", () => {
    const digest = {
      month: "2026-09",
      episodes: 4,
      firstAt: "2026-09-01T10:00:00.000Z",
      lastAt: "2026-09-30T10:00:00.000Z",
      steps: 8,
      sessionIds: ["s"],
      prompts: ["old work"],
      filesChanged: [],
      commands: [],
    };
    writeLegacy(3, [digest]);
    const legacy = paths.legacyProjectEpisodes(ROOT);
    const before = openEpisodes(ROOT).read();
    expect([before.episodes.map((entry) => entry.id), before.digests]).toEqual([["ep-0", "ep-1", "ep-2"], [digest]]);
    expect(openEpisodes(ROOT).unreadable()).toBeUndefined();
    expect(existsSync(paths.projectEpisodes(ROOT))).toBe(false);

    expect(openEpisodes(ROOT).record(episode(3))).toEqual({ count: 4, folded: 0 });
    expect(existsSync(legacy)).toBe(false);
    expect(logLines().map((line) => Object.keys(line).join(","))).toEqual([
      "shiro,version,project",
      "n,digest",
      "n,episode",
      "n,episode",
      "n,episode",
      "n,episode",
    ]);
    const after = openEpisodes(ROOT).read();
    expect(after).toEqual({ episodes: [...before.episodes, episode(3)], digests: [digest] });
  });

  test("a broken one is moved aside by the first record, never overwritten", () => {
    const legacy = paths.legacyProjectEpisodes(ROOT);
    mkdirSync(dirname(legacy), { recursive: true });
    writeFileSync(legacy, "{ broken");
    const notices: string[] = [];
    const store = openEpisodes(ROOT, { onNotice: (text) => notices.push(text) });
    expect(store.read()).toEqual({ episodes: [], digests: [] });
    store.record(episode(1));
    expect(store.read().episodes.map((entry) => entry.id)).toEqual(["ep-1"]);
    expect(readdirSync(dirname(legacy)).filter((name) => name.includes(".episodes.json.corrupt-"))).toHaveLength(1);
    expect(notices.map((text) => text.replace(/\/\S+/g, "<path>"))).toEqual([
      expect.stringMatching(/^episodes <path> are unreadable \(not valid JSON/),
      expect.stringMatching(/^episodes <path> were unreadable \(not valid JSON .*moved them to <path> and started anew$/),
    ]);
  });
});

describe("compaction", () => {
  test("rewrites the file as reads show it: the caps applied, digests first, episodes renumbered", () => {
    const store = openEpisodes(ROOT, { maxEpisodes: 3 });
    for (let i = 0; i < 6; i++) store.record(episode(i));
    expect(logLines().filter((line) => line.episode)).toHaveLength(6);
    const shown = openEpisodes(ROOT).read();
    expect(shown.episodes.map((entry) => entry.id)).toEqual(["ep-3", "ep-4", "ep-5"]);

    expect(store.compact()).toMatchObject({ episodesBefore: 6, episodesAfter: 3, damaged: 0 });
    expect(logLines().map((line) => (line.digest ? "digest" : (line.n ?? "header")))).toEqual(["header", "digest", 1, 2, 3]);
    expect(openEpisodes(ROOT).read()).toEqual(shown);
    expect(store.record(episode(6))).toEqual({ count: 3, folded: 1 });
    expect(
      openEpisodes(ROOT)
        .read()
        .episodes.map((entry) => entry.id),
    ).toEqual(["ep-4", "ep-5", "ep-6"]);
  });

  test("compactIfDue waits for a quarter more than the caps", () => {
    const store = openEpisodes(ROOT, { maxEpisodes: 8 });
    for (let i = 0; i < 9; i++) store.record(episode(i));
    expect(store.compactIfDue()).toBeUndefined();
    store.record(episode(9));
    expect(store.compactIfDue()).toMatchObject({ episodesBefore: 10, episodesAfter: 8 });
    expect(store.compactIfDue()).toBeUndefined();
  });

  test("the upkeep after a run's answer compacts a log a quarter over its caps, and leaves a smaller one alone", () => {
    const store = openEpisodes(ROOT, { maxEpisodes: 4 });
    for (let i = 0; i < 4; i++) store.record(episode(i));
    const size = statSync(store.path).size;
    keepIndexesCurrent({ runIds: [], projectRoot: ROOT, episodes: store });
    expect(statSync(store.path).size).toBe(size);
    store.record(episode(4));
    keepIndexesCurrent({ runIds: [], projectRoot: ROOT, episodes: store });
    expect(logLines().map((line) => (line.digest ? "digest" : (line.episode?.id ?? "header")))).toEqual(["header", "digest", "ep-1", "ep-2", "ep-3", "ep-4"]);
  });

  test("saves that each record an episode keep the recall index's segments at the transcript index's bound", () => {
    const store = openEpisodes(ROOT);
    const notes = openMemory(ROOT);
    notes.remember("fact", "the parser lives in src/parse.ts");
    const manifest = () => JSON.parse(readFileSync(join(paths.memoryIndex(ROOT), "manifest.json"), "utf8")) as { segments: unknown[]; docs: number };
    const counts: number[] = [];
    for (let i = 0; i < 20; i++) {
      store.record(episode(i));
      keepIndexesCurrent({ runIds: [], projectRoot: ROOT, stores: [notes], episodes: store });
      counts.push(manifest().segments.length);
    }
    expect(Math.max(...counts)).toBeLessThanOrEqual(COMPACT_AFTER_SEGMENTS);
    expect(counts.slice(0, 3)).toEqual([1, 2, 3]);
    expect(manifest().docs).toBe(21);
  });
});
