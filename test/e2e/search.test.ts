/**
 * `shiro search` through the built binary: one search finds a prompt, an answer, a tool result
 * from a run and a note, each with an id its `show` command accepts; `--since`, `--project`,
 * `--all` and the source flags filter; `runs search` answers from the same index; ids printed
 * by lists stay unique when runs share their first 8 characters; `recall` reaches transcripts
 * through `kinds: ["transcript"]`.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { shortestUniquePrefix } from "../../lib/platform/ids.ts";
import { pathHash16 } from "../../lib/platform/paths.ts";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();
const state = (...parts: string[]) => join(e2e.dirs.home, ".shiro-neko", ...parts);
const shiro = (args: string[], cwd?: string) => e2e.shiro(args, { protocol: "chat", ...(cwd ? { cwd } : {}) });

interface Hit {
  kind: string;
  role: string;
  tool?: string;
  id: string;
  shortId: string;
  at: string;
  project: string;
  snippet: { text: string };
}

async function searchJson(args: string[], cwd?: string): Promise<Hit[]> {
  const result = await shiro(["search", ...args, "--json"], cwd);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(result.stdout) as Hit[];
}

/** One headless run in `cwd`: reads a file, runs a command, answers. */
async function workOnZebra(cwd: string): Promise<void> {
  writeFileSync(join(cwd, "zebra.log"), "zebra parser stalled at offset 4096 waiting on quokka lock\n");
  e2e.fake.script(
    {
      toolCalls: [
        { name: "read_file", input: { path: "zebra.log" } },
        { name: "bash", input: { command: "echo flamingo-probe done" } },
      ],
    },
    { text: "The zebra parser waits on the quokka lock; release it before flushing." },
  );
  const result = await shiro(["-p", "why does the zebra parser stall?", "--yolo"], cwd);
  expect(result.code).toBe(0);
}

describe("shiro search", () => {
  test("finds a prompt, an answer, a run's tool result and a note; every id is accepted by its show command", async () => {
    await workOnZebra(e2e.dirs.cwd);
    expect((await shiro(["memory", "add", "gotcha", "the zebra parser needs the quokka lock released first"])).code).toBe(0);
    const other = join(e2e.dirs.home, "other-project");
    mkdirSync(other);
    e2e.fake.script({ text: "Nothing about that here." });
    expect((await shiro(["-p", "is there a zebra in this other project?"], other)).code).toBe(0);
    expect((await shiro(["memory", "add", "fact", "the other zebra keeps its quokka in a shed"], other)).code).toBe(0);

    const hits = await searchJson(["zebra quokka"]);
    const roles = (kind: string) =>
      hits
        .filter((hit) => hit.kind === kind)
        .map((hit) => (hit.tool ? `${hit.role} ${hit.tool}` : hit.role))
        .sort();
    // What a session and its run both hold is shown once: tool calls and results as the run's, the rest as the session's.
    // read_file's input names zebra.log, so the call matches too.
    expect(roles("session")).toEqual(["answer", "prompt"]);
    expect(roles("run")).toEqual(["tool-call read_file", "tool-result read_file"]);
    const runsOnly = await searchJson(["zebra quokka", "--runs"]);
    expect(runsOnly.map((hit) => `${hit.kind} ${hit.role}`).sort()).toEqual(["run answer", "run prompt", "run tool-call", "run tool-result"]);
    const sessionsOnly = await searchJson(["zebra quokka", "--sessions"]);
    expect(sessionsOnly.map((hit) => `${hit.kind} ${hit.role}`).sort()).toEqual([
      "session answer",
      "session prompt",
      "session tool-call",
      "session tool-result",
    ]);
    expect(roles("note")).toEqual(["gotcha"]);
    expect(roles("episode")).toEqual(["episode"]);
    // The other project's run stays out unless --all.
    expect(hits.every((hit) => hit.project === e2e.dirs.cwd)).toBe(true);
    const everywhere = await searchJson(["zebra", "--all"]);
    expect(everywhere.some((hit) => hit.project === other && hit.role === "prompt")).toBe(true);
    expect((await searchJson(["zebra", "--project", other])).map((hit) => [hit.kind, hit.role, hit.project]).sort()).toEqual([
      ["note", "fact", other],
      ["session", "prompt", other],
    ]);
    // --all widens the notes too: the other project's note, under its project, shown there by its id.
    expect(hits.some((hit) => hit.snippet.text.includes("shed"))).toBe(false);
    const otherNote = everywhere.find((hit) => hit.kind === "note" && hit.project === other);
    expect(otherNote?.snippet.text).toContain("the other zebra keeps its quokka in a shed");
    expect(
      everywhere
        .filter((hit) => hit.kind === "note")
        .map((hit) => hit.project)
        .sort(),
    ).toEqual([e2e.dirs.cwd, other].sort());
    const shownThere = await shiro(["memory", "show", otherNote!.shortId], other);
    expect([shownThere.code, shownThere.stdout.includes(otherNote!.id)]).toEqual([0, true]);

    // The command and what it printed, from the run log alone.
    const bash = await searchJson(["flamingo-probe", "--runs"]);
    expect(bash.map((hit) => [hit.kind, hit.role, hit.tool, hit.snippet.text])).toEqual([
      ["run", "tool-call", "bash", "bash echo flamingo-probe done"],
      ["run", "tool-result", "bash", "exit: 0 stdout: flamingo-probe done"],
    ]);

    for (const hit of hits) {
      const command = hit.kind === "note" || hit.kind === "episode" ? ["memory", "show", hit.shortId] : [`${hit.kind}s`, "show", hit.shortId];
      const shown = await shiro(command);
      expect({ command: command.join(" "), code: shown.code, stderr: shown.stderr }).toEqual({ command: command.join(" "), code: 0, stderr: "" });
      expect(shown.stdout).toContain(hit.id);
      expect(hit.shortId.length).toBeGreaterThanOrEqual(8);
      expect(hit.id.startsWith(hit.shortId)).toBe(true);
    }

    // Text: aligned columns, plain in a pipe, one line per hit.
    const text = await shiro(["search", "zebra quokka"]);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(hits.length);
    expect(text.stdout).not.toContain("\x1b[");
    const snippetColumn = lines.map((line, i) => line.indexOf(hits[i]!.snippet.text.slice(0, 12)));
    expect(new Set(snippetColumn).size).toBe(1);
    expect(lines.find((line) => line.startsWith("note "))).toMatch(
      /^note [0-9a-f-]{8,}\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+\S+\s+gotcha\s+the zebra parser needs the quokka lock released first$/,
    );
  }, 90_000);

  test("--since drops what is older, in every spelling; the source flags keep one kind", async () => {
    await workOnZebra(e2e.dirs.cwd);
    expect((await shiro(["memory", "add", "fact", "zebra notes are filed under animals"])).code).toBe(0);
    // Age the note and the run's events by a month, on disk.
    const notesFile = state("memory", `${pathHash16(e2e.dirs.cwd)}.json`);
    const notes = JSON.parse(readFileSync(notesFile, "utf8"));
    notes.entries = notes.entries.map((entry: Record<string, unknown>) => ({ ...entry, createdAt: "2020-01-02T00:00:00.000Z" }));
    writeFileSync(notesFile, JSON.stringify(notes));
    const [events] = readdirSync(state("events"));
    const lines = readFileSync(state("events", events!), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.stringify({ ...JSON.parse(line), at: "2020-01-02T00:00:00.000Z" }));
    writeFileSync(state("events", events!), `${lines.join("\n")}\n`);

    const kinds = async (args: string[]) => [...new Set((await searchJson(["zebra", ...args])).map((hit) => hit.kind))].sort();
    expect(await kinds([])).toEqual(["episode", "note", "run", "session"]);
    // The run keeps its prompt (its snapshot's start time is recent); its events are old.
    for (const since of ["7d", "1w", "168h", "10080m", "2021-06-01"]) {
      const hits = await searchJson(["zebra", "--since", since]);
      expect({ since, kinds: [...new Set(hits.map((hit) => `${hit.kind} ${hit.role}`))].sort() }).toEqual({
        since,
        kinds: ["episode episode", "session answer", "session prompt", "session tool-call", "session tool-result"],
      });
    }
    expect(await kinds(["--since", "2019-12-31"])).toEqual(["episode", "note", "run", "session"]);
    expect(await kinds(["--memory"])).toEqual(["episode", "note"]);
    expect(await kinds(["--sessions"])).toEqual(["session"]);
    expect(await kinds(["--runs", "--memory"])).toEqual(["episode", "note", "run"]);
    for (const bad of ["yesterday", "7", "3x", "2020-13-45", "7 days"]) {
      const result = await shiro(["search", "zebra", "--since", bad]);
      expect({ bad, code: result.code, stderr: result.stderr.split("\n")[0] }).toEqual({
        bad,
        code: 2,
        stderr: `shiro: --since takes a duration back from now (30m, 12h, 7d, 2w) or a date (2026-11-01); got "${bad}" (see shiro --help)`,
      });
    }
    expect((await shiro(["search", "nothing-like-this-anywhere"])).stdout).toBe('nothing matches "nothing-like-this-anywhere"\n');
  }, 90_000);

  test("runs search answers from the same index; list ids stay unique and aligned when runs share their first 8 characters", async () => {
    await workOnZebra(e2e.dirs.cwd);
    const [only] = readdirSync(state("runs"));
    const runId = only!.slice(0, -5);
    // A twin run whose id shares the first 12 characters.
    const twin = `${runId.slice(0, 12)}${runId[12] === "a" ? "b" : "a"}${runId.slice(13)}`;
    const snapshot = JSON.parse(readFileSync(state("runs", only!), "utf8"));
    writeFileSync(state("runs", `${twin}.json`), JSON.stringify({ ...snapshot, id: twin, prompt: "an unrelated twin" }));

    const search = await shiro(["runs", "search", "quokka lock", "--json"]);
    const found = JSON.parse(search.stdout) as { runId: string; shortId: string; kind: string }[];
    expect(found.map((hit) => [hit.kind, hit.runId])).toEqual([
      ["tool-result", runId],
      ["message", runId],
    ]);
    const everyId = [...readdirSync(state("runs")), ...readdirSync(state("sessions")).filter((name) => name.endsWith(".json"))].map((name) =>
      name.slice(0, -5),
    );
    expect(found[0]!.shortId).toBe(shortestUniquePrefix(runId, everyId));
    expect(found[0]!.shortId.length).toBeGreaterThanOrEqual(13);
    expect((await shiro(["runs", "show", found[0]!.shortId])).stdout).toContain(`run      ${runId}`);
    expect((await shiro(["runs", "show", runId.slice(0, 8)])).stderr).toBe(`shiro: "${runId.slice(0, 8)}" matches 2 runs; give more characters\n`);

    const list = (await shiro(["runs", "list"])).stdout.trimEnd().split("\n");
    expect(list.map((line) => line.split(/\s+/)[0]).sort()).toEqual([runId, twin].map((id) => shortestUniquePrefix(id, everyId)).sort());
    expect(new Set(list.map((line) => line.search(/ (completed|error)/))).size).toBe(1);
  }, 60_000);

  test("recall reaches past transcripts through kinds transcript, one line per session by its best passage, leaving the asking session out", async () => {
    await workOnZebra(e2e.dirs.cwd);
    const before = e2e.fake.requests.length;
    e2e.fake.script({ toolCalls: [{ name: "recall", input: { query: "quokka lock", kinds: ["transcript"] } }] }, { text: "ok" });
    expect((await shiro(["-p", "what blocked the parser last time?"])).code).toBe(0);
    const output = toolResultsOf(e2e.fake.requests[before + 1]!)[0]!.output.split("\n");
    const sessions = readdirSync(state("sessions"))
      .filter((name) => name.endsWith(".json"))
      .map((name) => name.slice(0, -5))
      .sort();
    const short = shortestUniquePrefix(sessions[0]!, [...sessions, ...readdirSync(state("runs")).map((name) => name.slice(0, -5))]);
    expect(output.map((line) => line.replace(/ \d{4}-\d\d-\d\d /, " <date> "))).toEqual([
      `transcript session ${short} <date> answer: The zebra parser waits on the quokka lock; release it before flushing.`,
    ]);
  }, 60_000);
});
