/**
 * Memory and state across processes, through the built binary and the fake provider: project
 * notes reach the next process's system prompt, recall and forget change the file on disk,
 * --no-memory touches nothing, -c / -r carry the earlier exchange and the task list, and two
 * processes in one directory never share a session file.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathHash16 } from "../../lib/platform/paths.ts";
import { fileStamp } from "../../lib/state-file/file-stamp.ts";
import { systemOf, userTextsOf, useE2E, waitUntil, type WireProtocol } from "./_harness.ts";

const e2e = useE2E();

const shiro = (args: string[], protocol: WireProtocol = "responses") => e2e.shiro(args, { protocol });
const memoryFile = () => join(e2e.dirs.home, ".shiro-neko", "memory", `${pathHash16(e2e.dirs.cwd)}.json`);
const readMemory = () => JSON.parse(readFileSync(memoryFile(), "utf8")) as { entries: { text: string; hits: number }[] };

describe("project memory across processes", () => {
  test("remember in one process, see it in the next one's first request; recall bumps hits; forget removes", async () => {
    e2e.fake.script({ toolCalls: [{ name: "remember", input: { kind: "command", text: "tests run with bun test, not npm test" } }] }, { text: "Noted." });
    expect((await shiro(["-p", "remember how tests run"])).code).toBe(0);
    expect(readMemory().entries.map((entry) => [entry.text, entry.hits])).toEqual([["tests run with bun test, not npm test", 0]]);

    e2e.fake.script({ toolCalls: [{ name: "recall", input: { query: "bun test" } }] }, { text: "Found it." });
    expect((await shiro(["-p", "how do tests run?"], "anthropic")).code).toBe(0);
    const system = systemOf(e2e.fake.requests[2]!);
    expect(system).toContain("- (command) tests run with bun test, not npm test");
    expect(readMemory().entries[0]!.hits).toBe(1);

    e2e.fake.script({ toolCalls: [{ name: "forget", input: { text: "BUN TEST" } }] }, { text: "Forgotten." });
    expect((await shiro(["-p", "forget that"], "chat")).code).toBe(0);
    expect(readMemory().entries).toEqual([]);
  });

  test("the next process takes a notes file the check passed as parsed while its check record holds, and checks it once the file changes", async () => {
    const note = { id: "01a23177-0000-7000-8000-000000000001", kind: "fact", text: "the queue retries", createdAt: "2026-11-28T10:00:00.000Z", hits: 0 };
    mkdirSync(dirname(memoryFile()), { recursive: true });
    writeFileSync(memoryFile(), JSON.stringify({ version: 1, project: e2e.dirs.cwd, entries: [note] }));
    // A whole second, so that setting it again gives the same stamp.
    utimesSync(memoryFile(), 1_800_000_000, 1_800_000_000);
    e2e.fake.script({ text: "ok" }, { text: "ok" }, { text: "ok" });
    expect((await shiro(["-p", "hi"], "chat")).code).toBe(0);
    const record = readFileSync(`${memoryFile()}.checked`, "utf8").split("\n");
    expect([record[0], record[2], record[3]]).toEqual(["shiro notes checked 1", fileStamp(memoryFile()), ""]);
    expect(record[1]).toMatch(/^\S+ \S+ \d{4}-\d\d-\d\dT/);
    // The same bytes but a kind the check refuses, the file's stamp kept (same inode, size and time): the record vouches for it.
    writeFileSync(memoryFile(), readFileSync(memoryFile(), "utf8").replace('"fact"', '"facx"'));
    utimesSync(memoryFile(), 1_800_000_000, 1_800_000_000);
    expect((await shiro(["-p", "hi"], "chat")).code).toBe(0);
    expect(systemOf(e2e.fake.requests[1]!)).toContain("- (facx) the queue retries");
    // Another time: another stamp, so the file is checked, refused and its notes left out.
    utimesSync(memoryFile(), 1_800_000_001, 1_800_000_001);
    expect((await shiro(["-p", "hi"], "chat")).code).toBe(0);
    expect(systemOf(e2e.fake.requests[2]!)).not.toContain("the queue retries");
  });

  test("--no-memory leaves the memory folder untouched, the prompt without notes and the tools off the wire", async () => {
    e2e.fake.script({ toolCalls: [{ name: "remember", input: { kind: "fact", text: "a note" } }] }, { text: "ok" });
    const result = await shiro(["-p", "remember something", "--no-memory"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "memory"))).toBe(false);
    const tools = (e2e.fake.requests[0]!.body.tools as { name: string }[]).map((tool) => tool.name);
    expect(tools).not.toContain("remember");
    expect(systemOf(e2e.fake.requests[0]!)).not.toContain("earlier sessions");
  });
});

describe("sessions across processes", () => {
  test("-c sends the earlier exchange and the task list; -r <prefix> resumes a given session", async () => {
    e2e.fake.script(
      {
        toolCalls: [
          {
            name: "todo_write",
            input: {
              todos: [
                { content: "read the code", status: "done" },
                { content: "fix the boundary", status: "in_progress" },
              ],
            },
          },
        ],
      },
      { text: "First answer." },
    );
    expect((await shiro(["-p", "first question"])).code).toBe(0);
    e2e.fake.script({ text: "Second answer." });
    const second = await shiro(["-p", "second question", "-c"]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("resumed session");
    const request = e2e.fake.requests[2]!;
    expect(userTextsOf(request)).toEqual(["first question", "second question"]);
    expect(JSON.stringify(request.body)).toContain("First answer.");
    expect(systemOf(request)).toContain("[~] fix the boundary");

    const sessionId = readdirSync(join(e2e.dirs.home, ".shiro-neko", "sessions"))
      .find((name) => name.endsWith(".json"))!
      .slice(0, -5);
    e2e.fake.script({ text: "Third." });
    expect((await shiro(["-p", "third question", "-r", sessionId.slice(0, 13)], "chat")).code).toBe(0);
    expect(userTextsOf(e2e.fake.requests[3]!)).toEqual(["first question", "second question", "third question"]);
    const saved = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "sessions", `${sessionId}.json`), "utf8"));
    expect(saved.exchanges.map((exchange: { query: string; status: string }) => [exchange.query, exchange.status])).toEqual([
      ["first question", "completed"],
      ["second question", "completed"],
      ["third question", "completed"],
    ]);
    expect(saved.notebook.todos).toHaveLength(2);
  });

  test("-r with no match and -c with no session exit 1 with a message", async () => {
    const byId = await shiro(["-p", "hi", "-r", "nope"]);
    const latest = await shiro(["-p", "hi", "-c"]);
    expect([byId.code, byId.stderr, byId.stdout]).toEqual([1, 'shiro: no session matching "nope"\n', ""]);
    expect([latest.code, latest.stderr, latest.stdout]).toEqual([1, "shiro: no saved session for this directory\n", ""]);
  });

  test("two processes in one directory: the second -c gets its own session and both files parse", async () => {
    e2e.fake.script({ text: "seed" });
    expect((await shiro(["-p", "start"])).code).toBe(0);
    // The slow run holds its session until the test lets it go (a file appears), not for a while.
    const gate = join(e2e.dirs.cwd, "go");
    const hold = `for i in $(seq 600); do [ -e ${JSON.stringify(gate)} ] && exit 0; sleep 0.05; done; exit 1`;
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: hold } }] }, { text: "slow done" });
    const before = e2e.fake.requests.length;
    const slow = shiro(["-p", "slow one", "-c", "--yolo"]);
    // Once its first request arrives it has claimed the session (the lease comes before the loop).
    await waitUntil(() => e2e.fake.requests.length > before);
    e2e.fake.script({ text: "fast done" });
    const fast = await shiro(["-p", "fast one", "-c"]);
    writeFileSync(gate, "");
    expect(fast.code).toBe(0);
    expect(fast.stderr).toMatch(/is open in process \d+; starting a new one/);
    expect((await slow).code).toBe(0);
    const files = readdirSync(join(e2e.dirs.home, ".shiro-neko", "sessions")).filter((name) => name.endsWith(".json"));
    expect(files).toHaveLength(2);
    const queries = files.map((name) =>
      JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "sessions", name), "utf8")).exchanges.map((e: { query: string }) => e.query),
    );
    expect(queries.sort()).toEqual([["fast one"], ["start", "slow one"]]);
  }, 30_000);
});

describe("historyPairs", () => {
  test("a resumed headless run sends only the last N exchanges; the session still keeps everything", async () => {
    e2e.writeConfig({ historyPairs: 1 });
    e2e.fake.script({ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "answer one" }, { text: "answer two" }, { text: "answer three" });
    expect((await shiro(["-p", "question one"])).code).toBe(0);
    expect((await shiro(["-p", "question two", "-c"])).code).toBe(0);
    expect((await shiro(["-p", "question three", "-c"])).code).toBe(0);
    const third = e2e.fake.requests.at(-1)!;
    expect(userTextsOf(third)).toEqual(["question two", "question three"]);
    expect(JSON.stringify(third.body)).toContain("answer two");
    expect(JSON.stringify(third.body)).not.toContain("answer one");
    const sessions = join(e2e.dirs.home, ".shiro-neko", "sessions");
    const saved = JSON.parse(readFileSync(join(sessions, readdirSync(sessions).find((n) => n.endsWith(".json"))!), "utf8"));
    expect(saved.exchanges.map((exchange: { query: string }) => exchange.query)).toEqual(["question one", "question two", "question three"]);
    expect(saved.messages.filter((message: { role: string }) => message.role === "user").map((m: { content: string }) => m.content)).toEqual([
      "question one",
      "question two",
      "question three",
    ]);
  });
});

describe("global memory", () => {
  test("a global note from one project reaches the prompt in another; --no-memory touches neither file", async () => {
    e2e.fake.script({ toolCalls: [{ name: "remember", input: { kind: "fact", text: "the user prefers pnpm", scope: "global" } }] }, { text: "ok" });
    expect((await shiro(["-p", "remember my preference"])).code).toBe(0);
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const other = mkdtempSync(join(tmpdir(), "shiro-e2e-other-"));
    try {
      e2e.fake.script({ text: "noted" }, { text: "bare" });
      expect((await e2e.shiro(["-p", "hello"], { cwd: other, protocol: "anthropic" })).code).toBe(0);
      expect(systemOf(e2e.fake.requests[2]!)).toContain("- (fact, global) the user prefers pnpm");
      const globalFile = join(e2e.dirs.home, ".shiro-neko", "memory", "global.json");
      const before = readFileSync(globalFile, "utf8");
      expect((await e2e.shiro(["-p", "hello", "--no-memory"], { cwd: other, protocol: "anthropic" })).code).toBe(0);
      expect(systemOf(e2e.fake.requests[3]!)).not.toContain("pnpm");
      expect(readFileSync(globalFile, "utf8")).toBe(before);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
