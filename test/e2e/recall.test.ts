/**
 * Episodes and ranked recall through the built binary, for each wire protocol: a session that did
 * work leaves an episode a later, separate session finds by a paraphrase; a relevant old note
 * outranks newer notes sharing one word; `file` finds the episode that changed a path; a session
 * id expands an episode; a corrupt index is rebuilt with a notice; eight processes recording at
 * once lose nothing. Assertions are on the tool results the fake provider received and on disk.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shortestUniquePrefix } from "../../lib/platform/ids.ts";
import { pathHash16 } from "../../lib/platform/paths.ts";
import { toolResultsOf, userTextsOf, useE2E, type WireProtocol } from "./_harness.ts";

const PROTOCOLS = ["chat", "responses", "anthropic"] as const;
const e2e = useE2E();

const memoryDir = () => join(e2e.dirs.home, ".shiro-neko", "memory");
const episodesFile = () => join(memoryDir(), `${pathHash16(e2e.dirs.cwd)}.episodes.jsonl`);
const indexManifest = () => join(memoryDir(), `${pathHash16(e2e.dirs.cwd)}.index`, "manifest.json");
/** The episodes of the log (docs/memory.md, "The file"), in order, each with the text of the last summary line naming it. */
const readEpisodes = () => {
  const records = readFileSync(episodesFile(), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
  const summaries = new Map(records.flatMap((record) => (record.summary ? [[record.summary.id, record.summary.text] as const] : [])));
  const episodes = records.flatMap((record) => (record.episode ? [record.episode as Record<string, any>] : []));
  return { episodes: episodes.map((episode) => (summaries.has(episode.id) ? { ...episode, summary: summaries.get(episode.id) } : episode)) };
};
const sessionIds = () =>
  readdirSync(join(e2e.dirs.home, ".shiro-neko", "sessions"))
    .filter((name) => name.endsWith(".json"))
    .map((name) => name.slice(0, -5));

/** Runs one headless session whose model calls `recall` with `input`, and returns the tool result it was sent. */
async function recallThroughBinary(input: Record<string, unknown>, protocol: WireProtocol): Promise<string> {
  return (await recallManyThroughBinary([input], protocol))[0]!;
}

/** One headless session whose model calls `recall` once per input, all in one step; the tool results it was sent, in call order. */
async function recallManyThroughBinary(inputs: Record<string, unknown>[], protocol: WireProtocol): Promise<string[]> {
  const before = e2e.fake.requests.length;
  e2e.fake.script({ toolCalls: inputs.map((input) => ({ name: "recall", input })) }, { text: "Recalled." });
  const result = await e2e.shiro(["-p", "what do you know about this?"], { protocol });
  expect({ code: result.code, stderr: result.stderr.includes("Error") }).toEqual({ code: 0, stderr: false });
  const second = e2e.fake.requests[before + 1]!;
  const outputs = toolResultsOf(second).map((entry) => entry.output);
  expect(outputs).toHaveLength(inputs.length);
  return outputs;
}

/** Session 1: writes a file and runs a command, with no `remember`. */
async function doSomeWork(protocol: WireProtocol): Promise<void> {
  e2e.fake.script(
    {
      toolCalls: [
        { name: "write_file", input: { path: "src/authRedirect.ts", content: "export const target = '/home';\n" } },
        { name: "bash", input: { command: "echo checked" } },
      ],
    },
    { text: "Fixed the login redirect: it now sends users home." },
  );
  const result = await e2e.shiro(["-p", "fix the flaky login redirect after sign-in", "--yolo"], { protocol });
  expect(result.code).toBe(0);
}

for (const protocol of PROTOCOLS) {
  describe(`episodes and recall over ${protocol}`, () => {
    test("session 2 finds session 1's work by a paraphrase, by the file it changed, and expands it by session id", async () => {
      await doSomeWork(protocol);
      const [sessionId] = sessionIds();
      const episodes = readEpisodes().episodes;
      expect(
        episodes.map((episode) => ({
          sessionId: episode.sessionId,
          prompts: episode.prompts,
          filesRead: episode.filesRead,
          filesChanged: episode.filesChanged,
          commands: episode.commands,
          status: episode.outcome.status,
          steps: episode.outcome.steps,
          runs: episode.outcome.runs,
          answer: episode.answer,
          spans: episode.spans,
        })),
      ).toEqual([
        {
          sessionId,
          prompts: ["fix the flaky login redirect after sign-in"],
          filesRead: [],
          filesChanged: ["src/authRedirect.ts"],
          commands: [{ command: "echo checked", exit: 0 }],
          status: "completed",
          steps: 2,
          runs: 1,
          answer: "Fixed the login redirect: it now sends users home.",
          spans: [],
        },
      ]);
      const date = episodes[0]!.endedAt.slice(0, 10);
      // The session's id as short as it is unique among the notes, the episodes and their sessions.
      const shown = shortestUniquePrefix(sessionId!, [sessionId!, episodes[0]!.id]);
      const line = `episode ${shown} ${date}: "fix the flaky login redirect after sign-in" · changed src/authRedirect.ts · ran echo checked (exit 0) · completed, 2 steps`;

      // One recall session asks every row at once: a paraphrase, four spellings of the changed
      // file, a file no episode touched, and the session id.
      const files = ["src/authRedirect.ts", "authRedirect.ts", "./src/authRedirect.ts", join(e2e.dirs.cwd, "src", "authRedirect.ts")];
      const [paraphrase, ...rest] = await recallManyThroughBinary(
        [{ query: "redirect broken on login page" }, ...files.map((file) => ({ query: "", file })), { query: "", file: "other.ts" }, { query: shown }],
        protocol,
      );
      // A paraphrase sharing two words ("login", "redirect") with what was asked; the session's best
      // passage (its answer, shorter than the ask) is the snippet under the episode.
      expect(paraphrase).toBe(`${line}\n  answer: Fixed the login redirect: it now sends users home.\n(recall a session id to see its episode in full)`);
      // Only the recall session's own work was bookkeeping: it left no episode.
      expect(readEpisodes().episodes).toHaveLength(1);

      expect(rest.slice(0, files.length)).toEqual(files.map(() => `${line}\n(recall a session id to see its episode in full)`));
      expect(rest[files.length]).toBe('No episode read or changed "other.ts".');

      const expanded = rest[files.length + 1]!;
      expect(expanded.split("\n").slice(1)).toEqual([
        "asked:",
        "- fix the flaky login redirect after sign-in",
        "changed: src/authRedirect.ts",
        "commands:",
        "- echo checked (exit 0)",
        "answer: Fixed the login redirect: it now sends users home.",
      ]);
      expect(expanded.split("\n")[0]).toStartWith(`episode of session ${sessionId}, `);
      // Without memory.embeddings, recall never leaves the machine.
      expect(e2e.fake.embeddingRequests).toEqual([]);
    }, 60_000);

    test("a relevant old note outranks 25 newer notes that share one word with the query", async () => {
      const entry = (i: number, text: string, createdAt: string) => ({
        id: `0190000${String(i).padStart(2, "0")}-0000-7000-8000-000000000000`,
        kind: "gotcha",
        text,
        createdAt,
        hits: 0,
      });
      const entries = [
        entry(0, "rotate the staging database password with ops/rotate.sh, never by hand", "2024-03-01T00:00:00.000Z"),
        ...Array.from({ length: 25 }, (_, i) =>
          entry(i + 1, `the database migration ${i} needs a fresh seed`, `2026-0${1 + (i % 9)}-1${i % 10}T00:00:00.000Z`),
        ),
      ];
      mkdirSync(memoryDir(), { recursive: true });
      writeFileSync(join(memoryDir(), `${pathHash16(e2e.dirs.cwd)}.json`), JSON.stringify({ version: 1, project: e2e.dirs.cwd, entries }));
      const lines = (await recallThroughBinary({ query: "how to rotate the staging database password", kinds: ["gotcha"] }, protocol)).split("\n");
      expect(lines[0]).toMatch(/^note \(gotcha, \d+ months old\): rotate the staging database password with ops\/rotate\.sh, never by hand$/);
      expect(lines.slice(1).every((text) => text.includes("the database migration"))).toBe(true);
      expect(lines).toHaveLength(8);
    });

    test("a corrupt index is rebuilt with a notice, and recall still answers", async () => {
      await doSomeWork(protocol);
      expect(await recallThroughBinary({ query: "login" }, protocol)).toContain("fix the flaky login redirect");
      writeFileSync(indexManifest(), "{ this is not json");
      // The run's prompt reads the index first (memory injection), so the notice is the run's.
      e2e.fake.script({ toolCalls: [{ name: "recall", input: { query: "login" } }] }, { text: "Recalled." });
      const run = await e2e.shiro(["-p", "what do you know about this?"], { protocol });
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/\[notice\] memory index .*\.index was unreadable \(not valid JSON .*\); rebuilt it\n/);
      expect(toolResultsOf(e2e.fake.requests.at(-1)!).at(-1)!.output).toContain('"fix the flaky login redirect after sign-in"');
      expect(JSON.parse(readFileSync(indexManifest(), "utf8"))).toMatchObject({ version: 2, docs: 1 });
      expect(await recallThroughBinary({ query: "login" }, protocol)).not.toContain("Notice");
    }, 60_000);
  });
}

describe("memory.episodeSummary", () => {
  test("one budgeted model call after the work adds a summary to the stored episode, and recall finds its words", async () => {
    e2e.writeConfig({ memory: { episodeSummary: true } });
    e2e.fake.script(
      { toolCalls: [{ name: "write_file", input: { path: "src/authRedirect.ts", content: "x\n" } }] },
      { text: "Done." },
      { text: "Wanted: a stable login redirect.\nChanged src/authRedirect.ts; the wombat guard is in place.\n\nline three\nfour\nfive\nsix is cut" },
    );
    expect((await e2e.shiro(["-p", "fix the flaky login redirect after sign-in", "--yolo"], { protocol: "anthropic" })).code).toBe(0);
    const request = e2e.fake.requests[2]!;
    expect(request.body.tools ?? []).toEqual([]);
    expect(userTextsOf(request)).toEqual([
      "<record>\nasked: fix the flaky login redirect after sign-in\nchanged: src/authRedirect.ts\noutcome: completed after 2 steps\nfinal answer: Done.\n</record>",
    ]);
    const [episode] = readEpisodes().episodes;
    expect(episode!.summary).toBe("Wanted: a stable login redirect.\nChanged src/authRedirect.ts; the wombat guard is in place.\nline three\nfour\nfive");
    e2e.writeConfig({});
    expect(await recallThroughBinary({ query: "wombat" }, "chat")).toStartWith(`episode ${shortestUniquePrefix(episode!.sessionId, [episode!.id])} `);
  }, 60_000);
});

describe("memory.embeddings", () => {
  const CONCEPTS = [
    ["car", "automobile", "vehicle"],
    ["login", "sign-in", "auth"],
    ["database", "migration"],
  ];
  /** One dimension per concept, plus one for anything else: a paraphrase with no shared word is close. */
  const embedConcepts = (text: string) => {
    const lower = text.toLowerCase();
    const vector = CONCEPTS.map((words) => (words.some((word) => lower.includes(word)) ? 1 : 0));
    return [...vector, vector.some(Boolean) ? 0 : 1];
  };

  test("notes are embedded once, the query on every recall, and meaning ranks a note sharing no word first", async () => {
    e2e.writeConfig({ memory: { embeddings: { baseURL: e2e.fake.baseURL, model: "fake-embed", apiKeyEnv: "EMBED_KEY" } } });
    e2e.fake.embedWith(embedConcepts);
    const entry = (i: number, text: string) => ({
      id: `0190000${i}-0000-7000-8000-000000000000`,
      kind: "fact",
      text,
      createdAt: new Date(Date.now() - (3 - i) * 1000).toISOString(),
      hits: 0,
    });
    mkdirSync(memoryDir(), { recursive: true });
    writeFileSync(
      join(memoryDir(), `${pathHash16(e2e.dirs.cwd)}.json`),
      JSON.stringify({
        version: 1,
        project: e2e.dirs.cwd,
        entries: [
          entry(0, "the automobile pool is parked on level 3"),
          entry(1, "login uses a session cookie"),
          entry(2, "is the database seeded where the tests expect"),
        ],
      }),
    );
    const env = { EMBED_KEY: "embed-key" };
    const recall = async (query: string) => {
      const before = e2e.fake.requests.length;
      e2e.fake.script({ toolCalls: [{ name: "recall", input: { query } }] }, { text: "ok" });
      expect((await e2e.shiro(["-p", "recall it"], { env })).code).toBe(0);
      return toolResultsOf(e2e.fake.requests[before + 1]!)[0]!.output.split("\n");
    };
    // "where" and "is" are ignored words: by words alone, "the car" matches nothing.
    expect(await recall("where is the car")).toEqual(["note (fact, today): the automobile pool is parked on level 3"]);
    expect((await recall("car"))[0]).toBe("note (fact, today, 1 hit): the automobile pool is parked on level 3");
    const bodies = e2e.fake.embeddingRequests.map((request) => request.body);
    expect(bodies[0]).toEqual({
      model: "fake-embed",
      input: ["is the database seeded where the tests expect", "login uses a session cookie", "the automobile pool is parked on level 3"],
    });
    expect(bodies.slice(1)).toEqual([
      { model: "fake-embed", input: ["where is the car"] },
      { model: "fake-embed", input: ["car"] },
    ]);
    expect(e2e.fake.embeddingRequests.every((request) => request.headers.authorization === "Bearer embed-key")).toBe(true);
    const vectors = JSON.parse(readFileSync(join(memoryDir(), `${pathHash16(e2e.dirs.cwd)}.vectors.json`), "utf8"));
    expect([vectors.model, vectors.dims, Object.keys(vectors.vectors).length]).toEqual(["fake-embed", 4, 3]);

    e2e.fake.embedWith(() => {
      throw new Error("the embedding model is down");
    });
    const fallback = await recall("database seeded");
    expect(fallback[0]).toMatch(
      /^Notice: embeddings endpoint http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings answered 500: fake provider: the embedding model is down; ranked by words only$/,
    );
    expect(fallback[1]).toContain("is the database seeded where the tests expect");
  }, 60_000);
});

describe("eight processes at once", () => {
  test("8 sessions each recording a note and an episode at the same time lose nothing, and recall finds them all", async () => {
    writeFileSync(join(e2e.dirs.cwd, "shared.txt"), "one line\n");
    e2e.fake.respond((request) => {
      if (toolResultsOf(request).length > 0) return { text: "done" };
      const asked = userTextsOf(request).at(-1)!;
      return {
        toolCalls: [
          { name: "remember", input: { kind: "fact", text: `note from ${asked}` } },
          { name: "read_file", input: { path: "shared.txt" } },
        ],
      };
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => e2e.shiro(["-p", `parallel worker ${i}`], { protocol: PROTOCOLS[i % 3]!, timeoutMs: 60_000 })),
    );
    expect(results.map((result) => result.code)).toEqual(Array(8).fill(0));
    const expected = Array.from({ length: 8 }, (_, i) => `parallel worker ${i}`);
    const notes = JSON.parse(readFileSync(join(memoryDir(), `${pathHash16(e2e.dirs.cwd)}.json`), "utf8")).entries.map((note: { text: string }) => note.text);
    expect(notes.sort()).toEqual(expected.map((text) => `note from ${text}`));
    const episodes = readEpisodes().episodes;
    expect(episodes.map((episode) => episode.prompts[0]).sort()).toEqual(expected);
    expect(episodes.every((episode) => episode.filesRead[0] === "shared.txt")).toBe(true);
    e2e.fake.reset();
    const found = await recallThroughBinary({ query: "parallel worker", kinds: ["episode"], limit: 10 }, "chat");
    expect(found.split("\n").filter((line) => line.startsWith("episode "))).toHaveLength(8);
    const reading = (await recallThroughBinary({ query: "", file: "shared.txt", limit: 3 }, "anthropic")).split("\n");
    expect(reading.slice(0, 3).map((line) => line.replace(/^episode \S+ \S+: "parallel worker \d"/, "…"))).toEqual(
      Array(3).fill("… · completed, 2 steps · read shared.txt"),
    );
  }, 120_000);
});
