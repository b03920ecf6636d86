/**
 * Proof of the json-file store's guarantees, across real processes: atomic writes survive
 * SIGKILL, the lock serialises read-modify-write and recovers from dead owners, bad files are
 * reported and kept, migrations chain, appends never interleave, and files stay private.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { LockTimeoutError, withLock, withLockSync } from "../../lib/state-file/file-lock.ts";
import { appendJsonLine, readJson, readJsonLines, updateJsonSync, writeJsonAtomic } from "../../lib/state-file/json-file.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");
const CHILD_TIMEOUT_MS = 30_000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-json-file-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function spawnFixture(script: string, args: string[]) {
  return Bun.spawn({
    cmd: [process.execPath, join(FIXTURES, script), ...args],
    stdout: "pipe",
    stderr: "pipe",
    timeout: CHILD_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
}

async function expectCleanExit(child: ReturnType<typeof spawnFixture>): Promise<void> {
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
}

describe("writeJsonAtomic under SIGKILL", () => {
  const GrowingDoc = v.object({
    version: v.literal(1),
    items: v.array(v.object({ n: v.number(), text: v.string() })),
  });

  /** Reads the writer's progress lines until `killAt` writes are done, then kills it. */
  async function killWriterAfter(path: string, killAt: number): Promise<{ reported: number; signal: unknown }> {
    const child = spawnFixture("json-file-writer.ts", [path]);
    const decoder = new TextDecoder();
    let buffered = "";
    let reported = 0;
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true });
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) reported = Math.max(reported, Number(line));
      if (reported >= killAt) {
        child.kill("SIGKILL");
        break;
      }
    }
    await child.exited;
    return { reported, signal: child.signalCode };
  }

  for (const killAt of [50, 300, 650]) {
    test(`killed after ${killAt} writes: the file is one whole, valid document`, async () => {
      const path = join(dir, "doc.json");
      const { reported, signal } = await killWriterAfter(path, killAt);
      expect(signal).toBe("SIGKILL");

      const read = readJson(path, { schema: GrowingDoc, version: 1 });
      if (read.status !== "ok") throw new Error(`expected a whole document, got ${JSON.stringify(read)}`);
      const count = read.value.items.length;
      // Every reported write was renamed into place; later ones may or may not have landed.
      expect(count).toBeGreaterThanOrEqual(reported);
      expect(count).toBeLessThan(1000);
      expect(read.value.items.map((item) => item.n)).toEqual([...Array(count).keys()]);

      // A temp file left by the kill never carries the document's name or its `.json` ending.
      const names = readdirSync(dir);
      expect(names.filter((name) => name.endsWith(".json"))).toEqual(["doc.json"]);
      for (const name of names.filter((name) => name !== "doc.json")) expect(name).toMatch(/^doc\.json\.\d+\.\d+\.tmp$/);
    });
  }
});

describe("advisory lock", () => {
  const Counter = v.object({ version: v.literal(1), n: v.number() });

  test("two processes × 200 locked increments end at exactly 400", async () => {
    const path = join(dir, "counter.json");
    const children = [spawnFixture("json-file-counter.ts", [path, "200"]), spawnFixture("json-file-counter.ts", [path, "200"])];
    writeFileSync(`${path}.go`, "");
    for (const child of children) await expectCleanExit(child);
    expect(readJson(path, { schema: Counter, version: 1 })).toEqual({ status: "ok", value: { version: 1, n: 400 } });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  test("a lock left by a dead process is taken over", () => {
    const path = join(dir, "counter.json");
    const dead = spawnSync("true");
    expect(dead.status).toBe(0);
    writeFileSync(`${path}.lock`, `${dead.pid}\n`);
    writeJsonAtomic(path, { version: 1, n: 41 });

    const next = updateJsonSync(path, { schema: Counter, version: 1, timeoutMs: 3000 }, (current) => ({ version: 1 as const, n: current!.n + 1 }));
    expect(next).toEqual({ version: 1, n: 42 });
    expect(readdirSync(dir).sort()).toEqual(["counter.json"]);
  });

  test("an empty lock file is taken over once it is older than the grace period", async () => {
    const path = join(dir, "doc.json");
    writeFileSync(`${path}.lock`, "");
    const old = new Date(Date.now() - 60_000);
    utimesSync(`${path}.lock`, old, old);
    expect(await withLock(path, () => "ran", { timeoutMs: 3000 })).toBe("ran");
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  test("a lock held by a live process times out, naming the holder, and is left in place", () => {
    const path = join(dir, "doc.json");
    writeFileSync(`${path}.lock`, `${process.pid}\n`);
    let thrown: unknown;
    try {
      withLockSync(path, () => "never", { timeoutMs: 100 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(LockTimeoutError);
    expect((thrown as Error).message).toBe(`timed out waiting for the lock on ${path} (held by process ${process.pid})`);
    expect(readFileSync(`${path}.lock`, "utf8")).toBe(`${process.pid}\n`);
  });

  test("the lock is released when the locked function throws", () => {
    const path = join(dir, "doc.json");
    expect(() =>
      withLockSync(path, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe("bad files are reported, skipped and kept", () => {
  const Doc = v.object({ version: v.literal(2), title: v.string() });
  const cases: [string, string | Uint8Array, string][] = [
    ["truncated", '{"version": 2, "title": "half', "not valid JSON"],
    ["garbage bytes", new Uint8Array([0xff, 0xfe, 0x00, 0x9c, 0x0a, 0x7b, 0x0a]), "not valid JSON"],
    ["wrong shape", '{"version": 2, "title": 7}\n', '"title" Expected string but received 7'],
    ["newer version", '{"version": 3, "title": "from the future"}\n', "written by a newer shiro (format version 3, this one reads up to 2)"],
  ];

  for (const [label, bytes, reasonStart] of cases) {
    test(`${label}: readJson says corrupt with a one-line reason`, () => {
      const path = join(dir, "doc.json");
      writeFileSync(path, bytes);
      const read = readJson(path, { schema: Doc, version: 2, migrations: { 1: (raw) => raw } });
      if (read.status !== "corrupt") throw new Error(`expected corrupt, got ${JSON.stringify(read)}`);
      expect(read.reason.startsWith(reasonStart)).toBe(true);
      expect(read.reason).not.toContain("\n");
    });

    test(`${label}: updateJsonSync moves it aside before writing`, () => {
      const path = join(dir, "doc.json");
      writeFileSync(path, bytes);
      const heard: string[] = [];
      const next = updateJsonSync(
        path,
        {
          schema: Doc,
          version: 2,
          migrations: { 1: (raw) => raw },
          onCorrupt: (reason, backup) => heard.push(reason, backup),
        },
        (current) => ({ version: 2 as const, title: current ? "kept" : "fresh" }),
      );

      expect(next).toEqual({ version: 2, title: "fresh" });
      expect(readFileSync(path, "utf8")).toBe(`${JSON.stringify({ version: 2, title: "fresh" }, null, 2)}\n`);
      const backups = readdirSync(dir).filter((name) => /^doc\.json\.corrupt-\d+$/.test(name));
      expect(backups.length).toBe(1);
      expect(readFileSync(join(dir, backups[0]!)).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
      expect(heard[1]).toBe(join(dir, backups[0]!));
      expect(heard[0]!.startsWith(reasonStart)).toBe(true);
    });
  }

  test("a missing file is missing, and updateJsonSync returning undefined writes nothing", () => {
    const path = join(dir, "doc.json");
    expect(readJson(path, { schema: Doc })).toEqual({ status: "missing" });
    expect(updateJsonSync(path, { schema: Doc }, () => undefined)).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("migration by version", () => {
  const V2 = v.object({ version: v.literal(2), notes: v.array(v.object({ text: v.string(), kind: v.string() })) });
  const migrations = {
    // v0: a bare document with no version field and notes as plain strings.
    0: (raw: Record<string, unknown>) => ({ notes: (raw.notes as string[]).map((text) => ({ text })) }),
    // v1 → v2: every note gains a kind.
    1: (raw: Record<string, unknown>) => ({ notes: (raw.notes as { text: string }[]).map((note) => ({ ...note, kind: "fact" })) }),
  };

  test("a bare v0 document goes through v1 to v2", () => {
    const path = join(dir, "memory.json");
    writeFileSync(path, JSON.stringify({ notes: ["uses bun", "tests in test/"] }));
    expect(readJson(path, { schema: V2, version: 2, migrations })).toEqual({
      status: "ok",
      value: {
        version: 2,
        notes: [
          { text: "uses bun", kind: "fact" },
          { text: "tests in test/", kind: "fact" },
        ],
      },
    });
  });

  test("a v1 document takes only the v1 → v2 step, and updateJsonSync writes the result as v2", () => {
    const path = join(dir, "memory.json");
    writeFileSync(path, JSON.stringify({ version: 1, notes: [{ text: "uses bun" }] }));
    updateJsonSync(path, { schema: V2, version: 2, migrations }, (current) => current);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ version: 2, notes: [{ text: "uses bun", kind: "fact" }] });
  });

  test("a version with no migration step is corrupt", () => {
    const path = join(dir, "memory.json");
    writeFileSync(path, JSON.stringify({ version: 1, notes: [] }));
    expect(readJson(path, { schema: V2, version: 2, migrations: { 0: migrations[0] } })).toEqual({
      status: "corrupt",
      reason: "format version 1 has no migration to 2",
    });
  });
});

describe("JSON lines", () => {
  test("4 processes × 250 appends give 1,000 whole lines", async () => {
    const path = join(dir, "events.jsonl");
    const writers = ["a", "b", "c", "d"];
    const children = writers.map((writer) => spawnFixture("json-file-appender.ts", [path, writer, "250"]));
    writeFileSync(`${path}.go`, "");
    for (const child of children) await expectCleanExit(child);

    const Line = v.object({ writer: v.string(), i: v.number(), pad: v.string() });
    const { values, skipped } = readJsonLines(path, Line);
    expect(skipped).toEqual([]);
    expect(values.length).toBe(1000);
    for (const writer of writers) {
      expect(values.filter((line) => line.writer === writer).map((line) => line.i)).toEqual([...Array(250).keys()]);
    }
    for (const line of values) expect(line.pad.startsWith(`${line.writer}:${line.i}:`)).toBe(true);
  });

  test("a torn last line is skipped and reported; a bad middle line too", () => {
    const path = join(dir, "events.jsonl");
    appendJsonLine(path, { n: 1 });
    writeFileSync(path, "{not json}\n", { flag: "a" });
    appendJsonLine(path, { n: 2 });
    appendJsonLine(path, { n: "three" });
    writeFileSync(path, '{"n": 4, "te', { flag: "a" });

    expect(readJsonLines(path, v.object({ n: v.number() }))).toEqual({
      values: [{ n: 1 }, { n: 2 }],
      skipped: [
        { line: 2, reason: "not valid JSON" },
        { line: 4, reason: '"n" Expected number but received "three"' },
        { line: 5, reason: "incomplete last line" },
      ],
    });
  });

  test("a missing log reads as empty", () => {
    expect(readJsonLines(join(dir, "none.jsonl"))).toEqual({ values: [], skipped: [] });
  });
});

describe("permissions", () => {
  const mode = (path: string) => statSync(path).mode & 0o777;

  test("documents, logs and locks are 0600; folders created for them are 0700", () => {
    const state = join(dir, "home", ".shiro-neko");
    writeJsonAtomic(join(state, "sessions", "s.json"), { a: 1 });
    appendJsonLine(join(state, "events", "r.jsonl"), { a: 1 });
    let lockMode = 0;
    withLockSync(join(state, "approvals.json"), () => {
      lockMode = mode(join(state, "approvals.json.lock"));
    });

    expect({
      home: mode(join(dir, "home")),
      state: mode(state),
      sessions: mode(join(state, "sessions")),
      events: mode(join(state, "events")),
      session: mode(join(state, "sessions", "s.json")),
      log: mode(join(state, "events", "r.jsonl")),
      lock: lockMode,
    }).toEqual({ home: 0o700, state: 0o700, sessions: 0o700, events: 0o700, session: 0o600, log: 0o600, lock: 0o600 });
  });

  test("an atomic write keeps 0600 even over a file that was world-readable", () => {
    const path = join(dir, "config.json");
    writeFileSync(path, "{}", { mode: 0o644 });
    writeJsonAtomic(path, { model: "m" });
    expect(mode(path)).toBe(0o600);
  });
});

describe("describeIssue", () => {
  test("a missing key reads as required, other issues keep valibot's message without its prefix", async () => {
    const v = await import("valibot");
    const { describeIssue } = await import("../../lib/state-file/json-file.ts");
    const result = v.safeParse(v.object({ path: v.string(), n: v.number() }), { n: "x" });
    expect(result.success).toBe(false);
    expect(result.issues!.map((issue) => describeIssue(issue))).toEqual(['"path" is required', '"n" Expected number but received "x"']);
  });
});
