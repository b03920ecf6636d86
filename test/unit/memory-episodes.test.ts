/**
 * Episodes: what the builder takes from a run log (and what it ignores), the store's caps folding
 * the oldest into monthly digests, fields a later version adds surviving a rewrite, and recall
 * over notes and episodes (kinds, scope, file, digests, the index kept in step without rewrites).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { openIndexFolder } from "../../lib/search/index-folder.ts";
import { paths } from "../../lib/platform/paths.ts";
import { buildEpisode, type DescribeCall, type EpisodeRunInput } from "../../lib/store/episode-build.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";
import { describeToolCalls } from "../../lib/tools/call-facts.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import { createRecallDiscardedTool } from "../../lib/tools/recall-discarded.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { openEpisodes, type Episode } from "../../lib/store/episodes.ts";
import { recallMemory } from "../../lib/store/memory-recall.ts";
import { openGlobalMemory, openMemory } from "../../lib/store/memory.ts";
import type { LoggedEvent } from "../../lib/store/runs.ts";
import { useTempHome } from "./temp-home.ts";

const ROOT = "/work/project";
/** The session's tools, as the agent registers them: the builder reads calls by their declarations. */
let _describe: DescribeCall | undefined;
const describeCalls: DescribeCall = (name, input) => {
  _describe ??= describeToolCalls(
    [
      ...builtinTools({ complete: async () => "" }),
      ...createMemoryTools(openMemory(ROOT)),
      createTodoTool({ get: () => [], set: () => {} }),
      createRecallDiscardedTool(() => ({ spans: [] }) as never),
    ],
    ROOT,
  );
  return _describe(name, input);
};
useTempHome("shiro-episodes-");

let seq = 0;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 10, minute)).toISOString();
const ev = (event: Record<string, unknown>, minute = 0): LoggedEvent => ({ seq: ++seq, at: at(minute), ...event }) as LoggedEvent;
const call = (id: string, name: string, input: unknown): LoggedEvent => ev({ type: "tool-call", id, name, input });
const ok = (id: string, name: string, output = "ok"): LoggedEvent => ev({ type: "tool-result", id, name, output });

function run(events: LoggedEvent[], prompt = "do the thing"): EpisodeRunInput {
  return { runId: `run-${seq}`, prompt, events: [...events, ev({ type: "done", runId: "r", sessionId: "s", stop: "completed", steps: 3, costUsd: 0.5 }, 9)] };
}

describe("buildEpisode", () => {
  test("files read and changed (only when the tool succeeded), commands with exits, answer, spans", () => {
    const episode = buildEpisode({
      describe: describeCalls,
      sessionId: "s1",
      cwd: `${ROOT}/src`,
      projectRoot: ROOT,
      runs: [
        run([
          call("1", "read_file", { path: "a.ts" }),
          ok("1", "read_file"),
          call("2", "read_many_files", { files: [{ path: "b.ts" }, { path: "../README.md" }] }),
          ok("2", "read_many_files"),
          call("3", "edit_file", { path: "a.ts", oldString: "x", newString: "y" }),
          ok("3", "edit_file"),
          call("4", "edit_file", { path: "failed.ts" }),
          ev({ type: "tool-error", id: "4", name: "edit_file", error: "oldString not found" }),
          call("5", "write_file", { path: "denied.ts" }),
          ev({ type: "tool-denied", id: "5", name: "write_file", reason: "no", by: "headless" }),
          call("6", "apply_patch", {
            patch: "*** Begin Patch\n*** Add File: new.ts\n+x\n*** Update File: old.ts\n*** Move to: moved.ts\n*** Delete File: gone.ts\n*** End Patch",
          }),
          ok("6", "apply_patch"),
          call("7", "move_file", { from: "c.ts", to: "/elsewhere/c.ts" }),
          ok("7", "move_file"),
          call("8", "bash", { command: "bun test" }),
          ok("8", "bash", "exit: 1\nstdout:\n1 failed"),
          call("9", "bash", { command: "sleep 99" }),
          ev({ type: "tool-error", id: "9", name: "bash", error: "aborted" }),
          ev({ type: "compacted", before: 40, after: 10, summary: "## Goal\nfix it" }),
          ev({ type: "message", text: "First message.", step: 1 }),
          ev({ type: "message", text: "Final answer.", step: 2 }),
        ]),
      ],
    })!;
    expect({ ...episode, id: "", runIds: [] }).toEqual({
      id: "",
      runIds: [],
      sessionId: "s1",
      startedAt: at(0),
      endedAt: at(9),
      prompts: ["do the thing"],
      filesRead: ["src/a.ts", "src/b.ts", "README.md"],
      filesChanged: ["src/a.ts", "src/new.ts", "src/old.ts", "src/moved.ts", "src/gone.ts", "src/c.ts", "/elsewhere/c.ts"],
      commands: [
        { command: "bun test", exit: 1 },
        { command: "sleep 99", exit: null },
      ],
      outcome: { status: "completed", steps: 3, runs: 1, costUsd: 0.5 },
      answer: "Final answer.",
      spans: ["## Goal\nfix it"],
    });
  });

  test("no episode when only bookkeeping tools ran, or nothing did", () => {
    const bookkeeping = [
      call("1", "remember", {}),
      ok("1", "remember"),
      call("2", "recall", {}),
      ok("2", "recall"),
      call("3", "todo_write", {}),
      ok("3", "todo_write"),
    ];
    expect(buildEpisode({ describe: describeCalls, sessionId: "s", cwd: ROOT, projectRoot: ROOT, runs: [run(bookkeeping)] })).toBeUndefined();
    expect(
      buildEpisode({ describe: describeCalls, sessionId: "s", cwd: ROOT, projectRoot: ROOT, runs: [run([ev({ type: "message", text: "hi", step: 1 })])] }),
    ).toBeUndefined();
    expect(
      buildEpisode({ describe: describeCalls, sessionId: "s", cwd: ROOT, projectRoot: ROOT, runs: [run([call("1", "glob", {}), ok("1", "glob")])] }),
    ).toBeDefined();
  });

  test("caps: 8 prompts of 500 characters, 40 files, 20 commands, a 400-character answer", () => {
    const events = [
      ...Array.from({ length: 50 }, (_, i) => [call(`r${i}`, "read_file", { path: `f${i}.ts` }), ok(`r${i}`, "read_file")]).flat(),
      ...Array.from({ length: 25 }, (_, i) => [call(`b${i}`, "bash", { command: `cmd ${i}` }), ok(`b${i}`, "bash", "exit: 0")]).flat(),
      ev({ type: "message", text: "a".repeat(1000), step: 1 }),
    ];
    const runs = [run(events, "x".repeat(600)), ...Array.from({ length: 9 }, (_, i) => run([], `prompt ${i}`))];
    const episode = buildEpisode({ describe: describeCalls, sessionId: "s", cwd: ROOT, projectRoot: ROOT, runs })!;
    expect([
      episode.prompts.length,
      episode.prompts[0]!.length,
      episode.filesRead.length,
      episode.commands.length,
      episode.answer.length,
      episode.outcome.runs,
      episode.outcome.steps,
    ]).toEqual([8, 500, 40, 20, 400, 10, 30]);
  });
});

function episode(i: number, extra: Partial<Episode> = {}): Episode {
  const month = i < 3 ? "09" : "10";
  return {
    id: `ep-${i}`,
    sessionId: `0190${String(i).padStart(4, "0")}-aaaa-7000-8000-000000000000`,
    runIds: [`run-${i}`],
    startedAt: `2026-${month}-0${1 + (i % 8)}T10:00:00.000Z`,
    endedAt: `2026-${month}-0${1 + (i % 8)}T11:00:00.000Z`,
    prompts: [`task number ${i}`],
    filesRead: [],
    filesChanged: [`src/file${i}.ts`],
    commands: [{ command: `make ${i}`, exit: 0 }],
    outcome: { status: "completed", steps: 2, runs: 1, costUsd: 0.25 },
    answer: `done ${i}`,
    spans: [],
    ...extra,
  };
}

describe("episode store", () => {
  test("past the count cap the oldest fold into the digest of their month; nothing is dropped without a trace", () => {
    const store = openEpisodes(ROOT, { maxEpisodes: 3 });
    const results = Array.from({ length: 6 }, (_, i) => store.record(episode(i)));
    expect(results.map((result) => [result.count, result.folded])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [3, 1],
      [3, 1],
      [3, 1],
    ]);
    const { episodes, digests } = store.read();
    expect(episodes.map((entry) => entry.id)).toEqual(["ep-3", "ep-4", "ep-5"]);
    expect(digests).toEqual([
      {
        month: "2026-09",
        episodes: 3,
        firstAt: "2026-09-01T10:00:00.000Z",
        lastAt: "2026-09-03T11:00:00.000Z",
        steps: 6,
        costUsd: 0.75,
        sessionIds: [episode(0).sessionId, episode(1).sessionId, episode(2).sessionId],
        prompts: ["task number 0", "task number 1", "task number 2"],
        filesChanged: ["src/file0.ts", "src/file1.ts", "src/file2.ts"],
        commands: ["make 0", "make 1", "make 2"],
      },
    ]);
  });

  test("the byte cap folds too, but the newest episode always stays", () => {
    const store = openEpisodes(ROOT, { maxBytes: 1_000 });
    store.record(episode(3));
    store.record(episode(4, { answer: "z".repeat(2_000) }));
    expect(store.read().episodes.map((entry) => entry.id)).toEqual(["ep-4"]);
    expect(store.read().digests.map((digest) => [digest.month, digest.episodes])).toEqual([["2026-10", 1]]);
  });

  test("fields a later version adds are kept through a compaction; a file that is not a log is moved aside, not overwritten", () => {
    const store = openEpisodes(ROOT);
    store.record({ ...episode(1), scope: "agent", provenance: { commit: "abc" } } as Episode);
    store.record(episode(2));
    store.compact();
    const lines = readFileSync(paths.projectEpisodes(ROOT), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect([lines[0], lines[1].episode.scope, lines[1].episode.provenance]).toEqual([
      { shiro: "episodes", version: 2, project: ROOT },
      "agent",
      { commit: "abc" },
    ]);

    writeFileSync(paths.projectEpisodes(ROOT), "[broken");
    const notices: string[] = [];
    const damaged = openEpisodes(ROOT, { onNotice: (text) => notices.push(text) });
    expect(damaged.read()).toEqual({ episodes: [], digests: [] });
    damaged.record(episode(3));
    expect(damaged.read().episodes.map((entry) => entry.id)).toEqual(["ep-3"]);
    expect(notices.map((text) => text.replace(/\/\S+/g, "<path>"))).toEqual([
      `episodes <path> are unreadable (not valid JSON (JSON Parse error: Unexpected identifier "broken")); they are ignored, and the next episode moves the file aside`,
      `episodes <path> were unreadable (not valid JSON (JSON Parse error: Unexpected identifier "broken")); moved them to <path> and started anew`,
    ]);
  });
});

describe("recall over notes and episodes", () => {
  const now = new Date(Date.UTC(2026, 10, 20));
  const context = () => ({ projectRoot: ROOT, cwd: ROOT, project: openMemory(ROOT), global: openGlobalMemory(), episodes: openEpisodes(ROOT), now });

  test("kinds, scope and limit narrow the answer; digests are found like episodes", () => {
    const store = openEpisodes(ROOT, { maxEpisodes: 2 });
    for (let i = 0; i < 5; i++) store.record(episode(i));
    openMemory(ROOT).remember("gotcha", "task runner needs make 4 first");
    openGlobalMemory().remember("fact", "the user likes make over just for every task");
    const recall = (request: Parameters<typeof recallMemory>[1]) => recallMemory(context(), request).split("\n");
    expect(recall({ query: "task number 4" })[0]).toBe(
      'episode 01900004 2026-10-05: "task number 4" · changed src/file4.ts · ran make 4 (exit 0) · completed, 2 steps',
    );
    expect(recall({ query: "task make", kinds: ["gotcha"] })).toEqual(["note (gotcha, today, 1 hit): task runner needs make 4 first"]);
    expect(recall({ query: "task make", scope: "global" })).toEqual(["note (fact, global, today, 1 hit): the user likes make over just for every task"]);
    expect(recall({ query: "file1" })).toEqual([
      'digest 2026-09 (3 episodes): "task number 0"; "task number 1" · changed src/file0.ts, src/file1.ts, src/file2.ts',
      "(recall a session id to see its episode in full)",
    ]);
    expect(recall({ query: "", file: "file1.ts" })[0]).toBe(
      'digest 2026-09 (3 episodes): "task number 0"; "task number 1" · changed src/file1.ts, src/file0.ts, src/file2.ts',
    );
    expect(recall({ query: "task", limit: 2 }).map((line) => line.slice(0, 12))).toEqual(["note (fact, ", "note (gotcha"]);
    expect(() => recallMemory(context(), { query: " " })).toThrow("recall needs a query (words, a path or a session id) or a file");
  });

  test("the index follows new episodes and notes from other processes, and is not rewritten when only hits change", () => {
    openMemory(ROOT).remember("fact", "alpha lives in the first module");
    expect(recallMemory(context(), { query: "alpha" })).toBe("note (fact, today): alpha lives in the first module");
    const indexPath = join(paths.memoryIndex(ROOT), "manifest.json");
    const written = statSync(indexPath).mtimeMs;
    expect(recallMemory(context(), { query: "alpha" })).toBe("note (fact, today, 1 hit): alpha lives in the first module");
    expect(statSync(indexPath).mtimeMs).toBe(written);
    openEpisodes(ROOT).record(episode(7, { prompts: ["alpha again, in an episode"] }));
    openMemory(ROOT).forget("alpha lives");
    expect(recallMemory(context(), { query: "alpha" }).split("\n")[0]).toStartWith('episode 01900007 2026-10-08: "alpha again, in an episode"');
    const saved = openIndexFolder(paths.memoryIndex(ROOT), { label: "test" }).open(() => {});
    expect(saved.entries().map((doc) => doc.id)).toEqual(["ep-7"]);
  });

  test("a summary added after the episode was indexed is searchable at the next recall", () => {
    const store = openEpisodes(ROOT);
    store.record(episode(6));
    expect(recallMemory(context(), { query: "wombat" })).toBe('Nothing recorded about "wombat".');
    expect([store.addSummary("ep-6", "the wombat guard went in"), store.addSummary("ep-missing", "x")]).toEqual([true, false]);
    expect(recallMemory(context(), { query: "wombat" }).split("\n")[0]).toStartWith("episode 01900006 ");
  });

  test("a session id expands its episode in full; an unknown one is searched as words", () => {
    openEpisodes(ROOT).record(episode(5, { filesRead: ["README.md"], spans: ["## Goal\nship it"] }));
    expect(recallMemory(context(), { query: "01900005" }).split("\n")).toEqual([
      "episode of session 01900005-aaaa-7000-8000-000000000000, 2026-10-06 10:00 to 2026-10-06 11:00: completed, 2 steps in 1 run, $0.2500",
      "asked:",
      "- task number 5",
      "read: README.md",
      "changed: src/file5.ts",
      "commands:",
      "- make 5 (exit 0)",
      "answer: done 5",
      "compaction summary:",
      "## Goal",
      "ship it",
    ]);
    expect(recallMemory(context(), { query: "0190ffff" })).toBe('Nothing recorded about "0190ffff".');
  });
});

describe("recall with a notes file written by hand", () => {
  test("an id listed twice or a note removed by another process never breaks the index", () => {
    const path = paths.projectMemory(ROOT);
    mkdirSync(dirname(path), { recursive: true });
    const note = { id: "n1", kind: "fact", text: "kiwi grows here", createdAt: "2026-11-01T00:00:00.000Z", hits: 0 };
    writeFileSync(path, JSON.stringify({ version: 1, project: ROOT, entries: [note, { ...note, text: "kiwi twice" }] }));
    const context = { projectRoot: ROOT, cwd: ROOT, project: openMemory(ROOT), now: new Date(Date.UTC(2026, 10, 2)) };
    expect(recallMemory(context, { query: "kiwi" })).toBe("note (fact, 1 day old): kiwi twice");
    writeFileSync(path, JSON.stringify({ version: 1, project: ROOT, entries: [] }));
    expect(recallMemory(context, { query: "kiwi" })).toBe('Nothing recorded about "kiwi".');
  });
});

describe("describeToolCalls: what episodes and note provenance count as read or changed, from the declarations", () => {
  test("every file tool, one table", () => {
    const toolCallFiles = (name: string, input: Record<string, unknown>) => {
      const facts = describeCalls(name, input);
      return { read: facts.reads, changed: facts.changes };
    };
    const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** Add File: b.ts\n+z\n*** End Patch";
    expect({
      read_file: toolCallFiles("read_file", { path: "r.ts" }),
      read_many_files: toolCallFiles("read_many_files", { files: [{ path: "m1.ts" }, { path: "m2.ts" }] }),
      write_file: toolCallFiles("write_file", { path: "w.ts", content: "" }),
      edit_file: toolCallFiles("edit_file", { path: "e.ts" }),
      multi_edit: toolCallFiles("multi_edit", { path: "me.ts" }),
      apply_patch: toolCallFiles("apply_patch", { patch }),
      move_file: toolCallFiles("move_file", { from: "old.ts", to: "new.ts" }),
      delete_file: toolCallFiles("delete_file", { path: "d.ts" }),
      grep: toolCallFiles("grep", { pattern: "x" }),
    }).toEqual({
      read_file: { read: ["r.ts"], changed: [] },
      read_many_files: { read: ["m1.ts", "m2.ts"], changed: [] },
      write_file: { read: [], changed: ["w.ts"] },
      edit_file: { read: [], changed: ["e.ts"] },
      multi_edit: { read: [], changed: ["me.ts"] },
      apply_patch: { read: [], changed: ["a.ts", "b.ts"] },
      move_file: { read: [], changed: ["old.ts", "new.ts"] },
      delete_file: { read: [], changed: ["d.ts"] },
      grep: { read: [], changed: [] },
    });
  });
});

describe("checking the episodes file at a run's start", () => {
  const learned = () => JSON.parse(readFileSync(paths.learned(), "utf8")).facts as Record<string, { basis: string }>;
  const stamp = (path: string) => {
    const stat = statSync(path);
    return JSON.stringify([stat.dev, stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs]);
  };
  const legacyText = () => `${JSON.stringify({ version: 1, project: ROOT, episodes: [episode(1)], digests: [] }, null, 2)}\n`;

  test("a log's header is all that is read: a damaged header is told on every start, a damaged body by the first read", () => {
    const store = openEpisodes(ROOT);
    store.record(episode(1));
    expect(openEpisodes(ROOT).unreadable()).toBeUndefined();
    const text = readFileSync(store.path, "utf8");
    writeFileSync(store.path, `${text}garbage\n`);
    expect(openEpisodes(ROOT).unreadable()).toBeUndefined();
    const notices: string[] = [];
    expect(
      openEpisodes(ROOT, { onNotice: (line) => notices.push(line) })
        .read()
        .episodes.map((entry) => entry.id),
    ).toEqual(["ep-1"]);
    expect(notices).toEqual([
      `episodes ${store.path} hold 1 unreadable line (not valid JSON); they are skipped, and \`shiro memory gc\` keeps them in a .corrupt file`,
    ]);
    writeFileSync(store.path, `garbage\n${text}`);
    for (let start = 0; start < 2; start++) expect(openEpisodes(ROOT).unreadable()).toMatch(/^episodes \S+ are unreadable \(not valid JSON/);
  });

  test("a legacy file is parsed once per version, and a broken one is told on every start", () => {
    const legacy = paths.legacyProjectEpisodes(ROOT);
    mkdirSync(dirname(legacy), { recursive: true });
    writeFileSync(legacy, legacyText());
    const key = `episodes-readable:${legacy}`;
    expect(openEpisodes(ROOT).unreadable()).toBeUndefined();
    expect(learned()[key]?.basis).toBe(stamp(legacy));
    writeFileSync(legacy, `${legacyText()}garbage`);
    for (let start = 0; start < 2; start++) expect(openEpisodes(ROOT).unreadable()).toMatch(/^episodes \S+ are unreadable \(not valid JSON/);
  });
});

describe("a broken episodes file", () => {
  test("is a notice of the next run, once, not a silent empty list", async () => {
    const { openSessionMemory } = await import("../../lib/agent/memory-session.ts");
    const episodes = openEpisodes(ROOT);
    mkdirSync(dirname(episodes.path), { recursive: true });
    writeFileSync(episodes.path, "{ not json");
    const memory = openSessionMemory({ projectRoot: ROOT, cwd: ROOT, agent: "build", sessionId: "s", runId: () => "r", messages: () => [], episodes });
    const notices = (events: { type: string; text?: string }[]) => events.filter((event) => event.type === "notice").map((event) => event.text);
    const first = notices(memory.beginRun("what changed?"));
    expect(
      first.map((text) => [
        text?.startsWith(`episodes ${episodes.path} are unreadable (not valid JSON`),
        text?.endsWith("the next episode moves the file aside"),
      ]),
    ).toEqual([[true, true]]);
    expect(notices(memory.beginRun("and now?"))).toEqual([]);
  });
});
