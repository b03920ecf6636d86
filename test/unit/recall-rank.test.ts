/**
 * The ranking pieces of recall that know nothing of storage: time expressions resolved against a
 * fixed now (a table of spellings), passages (bounded, whole units, nothing lost), the group rule
 * (max, tails, sums, the time window), and one ranking over notes, episodes and session passages
 * through the stores (one scale, grouped per session, bookkeeping never found, time windows).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { splitPassages } from "../../lib/search/passages.ts";
import { rankGroups } from "../../lib/search/group-rank.ts";
import { parseTimeQuery } from "../../lib/search/time-query.ts";
import { useTempHome } from "./temp-home.ts";

// A Tuesday.
const NOW = new Date("2026-12-01T10:00:00.000Z");
const day = (iso: string) => `${iso}T00:00:00.000Z`;

describe("time in a question", () => {
  const table: [string, string, [string, string] | undefined][] = [
    ["what did we do today", "what did we do", [day("2026-12-01"), day("2026-12-02")]],
    ["Yesterday's deploy", "'s deploy", [day("2026-11-30"), day("2026-12-01")]],
    ["the cache decision last week", "the cache decision", [day("2026-11-23"), day("2026-11-30")]],
    ["this week's flaky tests", "'s flaky tests", [day("2026-11-30"), day("2026-12-07")]],
    ["what we shipped last month", "what we shipped", [day("2026-11-01"), day("2026-12-01")]],
    ["the past week", "the", [day("2026-11-25"), day("2026-12-02")]],
    ["3 days ago the build broke", "the build broke", [day("2026-11-28"), day("2026-11-29")]],
    ["two weeks ago", "", [day("2026-11-16"), day("2026-11-23")]],
    ["a month ago we paused it", "we paused it", [day("2026-11-01"), day("2026-12-01")]],
    ["errors in the last 10 days", "errors in the", [day("2026-11-22"), day("2026-12-02")]],
    ["in March we fixed the deploy", "we fixed the deploy", [day("2026-03-01"), day("2026-04-01")]],
    ["the December outage", "the outage", [day("2026-12-01"), day("2027-01-01")]],
    ["in November", "", [day("2026-11-01"), day("2026-12-01")]],
    ["the January plan", "the plan", [day("2026-01-01"), day("2026-02-01")]],
    ["in may", "", [day("2026-05-01"), day("2026-06-01")]],
    ["March 2025 budget", "budget", [day("2025-03-01"), day("2025-04-01")]],
    ["in mar 2025", "", [day("2025-03-01"), day("2025-04-01")]],
    ["in 2025 the team", "the team", [day("2025-01-01"), day("2026-01-01")]],
    ["on 2026-03-14 what happened", "on 2026-03-14 what happened", [day("2026-03-14"), day("2026-03-15")]],
    ["May I ask about the parser", "May I ask about the parser", undefined],
    ["the mar file", "the mar file", undefined],
    ["the march of progress", "the march of progress", undefined],
    ["no time here", "no time here", undefined],
  ];
  for (const [query, words, window] of table)
    test(JSON.stringify(query), () => {
      const found = parseTimeQuery(query, NOW);
      expect({ words: found.words, window: found.window ? [found.window.from, found.window.to] : undefined }).toEqual({ words, window });
    });

  test("when-questions are recognised", () => {
    const asks = ["when did we migrate", "When was the release", "what day did it break", "how long ago was that"];
    expect(asks.map((query) => parseTimeQuery(query, NOW).asksWhen)).toEqual([true, true, true, true]);
    expect(parseTimeQuery("what broke", NOW).asksWhen).toBe(false);
  });
});

describe("passages", () => {
  test("short text is itself; blank is nothing", () => {
    expect(splitPassages("  one line  ")).toEqual(["one line"]);
    expect(splitPassages(" \n\n ")).toEqual([]);
  });

  test("paragraphs pack up to the bound, never split, and nothing is lost", () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `para ${i} ${"w".repeat(50 + i * 7)}`);
    const passages = splitPassages(paragraphs.join("\n\n"), 400);
    expect(passages.every((passage) => passage.length <= 400)).toBe(true);
    expect(passages.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  test("a long paragraph splits at line ends (dialogue turns), a long line at sentences, a long sentence at a space", () => {
    const turns = Array.from({ length: 12 }, (_, i) => `Speaker${i}: ${"talk ".repeat(10).trim()}.`).join("\n");
    const byTurn = splitPassages(turns, 200);
    expect(byTurn.every((passage) => passage.length <= 200 && /^Speaker\d+:/.test(passage))).toBe(true);
    expect(byTurn.join("\n")).toBe(turns);
    const sentences = Array.from({ length: 10 }, (_, i) => `Sentence ${i} says ${"x".repeat(30)}.`).join(" ");
    expect(splitPassages(sentences, 120).every((passage) => passage.length <= 120 && passage.startsWith("Sentence"))).toBe(true);
    const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
    const cut = splitPassages(words, 100);
    expect(cut.every((passage) => passage.length <= 100)).toBe(true);
    expect(cut.join(" ")).toBe(words);
    expect(splitPassages("y".repeat(250), 100)).toEqual(["y".repeat(100), "y".repeat(100), "y".repeat(50)]);
  });
});

describe("the group rule", () => {
  const items = [
    { group: "session:a", score: 5, at: "2026-11-01" },
    { group: "session:b", score: 4, at: "2026-11-02" },
    { group: "session:b", score: 3, at: "2026-11-02" },
    { group: "session:b", score: 3, at: "2026-11-03" },
    { group: "note:n", score: 4.5, at: "2026-10-01" },
  ];
  const order = (options: Parameters<typeof rankGroups>[1]) => rankGroups(items, options).map((group) => [group.key, Number(group.score.toFixed(3))]);

  test("max, the default tail, sums; ties to the newer", () => {
    expect(order({ rule: { tail: 0, depth: 1 } })).toEqual([
      ["session:a", 5],
      ["note:n", 4.5],
      ["session:b", 4],
    ]);
    expect(order({})).toEqual([
      ["session:b", 7.57],
      ["session:a", 5],
      ["note:n", 4.5],
    ]);
    expect(order({ rule: { tail: 1, depth: 2 } })[0]).toEqual(["session:b", 7]);
    expect(
      rankGroups([
        { group: "x", score: 1, at: "2026-01-01" },
        { group: "y", score: 1, at: "2026-02-01" },
      ]).map((group) => group.key),
    ).toEqual(["y", "x"]);
  });

  test("the best `limit` groups are the exhaustive ranking's first `limit`, and that is the comparator sort's, ties and near ties included; times read only for ties among them", () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n) / 1;
    for (let round = 0; round < 60; round++) {
      // Few distinct scores and times: most groups tie with many others; some rounds add near ties (within and just past 1e-9).
      const near = round % 3 === 0 ? [0, 4e-10, 8e-10, 1.2e-9] : [0];
      const made = (count: number) =>
        Array.from({ length: count }, () => {
          const at = `2026-11-0${1 + random(4)}`;
          return {
            group: `session:${random(120)}`,
            score: 1 + random(6) * 0.5 + near[random(near.length)]!,
            at,
          };
        });
      const items = made(40 + random(300));
      const all = rankGroups(items).map((group) => [group.key, group.score, group.at]);
      // The whole ranking is the comparator sort's (by score, a tie to 1e-9 to the newer, then by key), done here on its own.
      const sorted = [...rankGroups(items)].sort((a, b) =>
        Math.abs(b.score - a.score) > 1e-9 ? b.score - a.score : a.at < b.at ? 1 : a.at > b.at ? -1 : a.key < b.key ? -1 : 1,
      );
      if (round % 3 !== 0) expect(all).toEqual(sorted.map((group) => [group.key, group.score, group.at]));
      for (const limit of [1, 3, 8, 25, 1000]) {
        const best = rankGroups(items, { limit });
        expect(best.map((group) => [group.key, group.score, group.at])).toEqual(all.slice(0, limit));
      }
    }
    // Eight clear leaders over 500 groups tied below them: no time is read.
    let reads = 0;
    const tied = Array.from({ length: 508 }, (_, i) => ({
      group: `note:${i}`,
      score: i < 8 ? 10 - i : 1,
      get at() {
        reads += 1;
        return "2026-11-01";
      },
    }));
    expect(rankGroups(tied, { limit: 8 }).map((group) => group.key)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => `note:${i}`));
    expect(reads).toBe(0);
    // Every group asked for: the leaders first, the tied ones by key (their times are equal).
    expect(rankGroups(tied).map((group) => group.key)).toEqual([
      ...Array.from({ length: 8 }, (_, i) => `note:${i}`),
      ...Array.from({ length: 500 }, (_, i) => `note:${i + 8}`).sort(),
    ]);
  });

  test("a NaN score: the first `limit` of the whole ranking, as without a limit", () => {
    const odd = [
      { group: "note:nan", score: Number.NaN, at: "2026-11-09" },
      { group: "note:a", score: 2, at: "2026-11-01" },
      { group: "note:b", score: 1, at: "2026-11-01" },
    ];
    const all = rankGroups(odd).map((group) => group.key);
    expect(all).toContain("note:nan");
    for (const limit of [1, 2]) expect(rankGroups(odd, { limit }).map((group) => group.key)).toEqual(all.slice(0, limit));
  });

  test("a group inside the time window doubles; `at` is its newest item", () => {
    const ranked = rankGroups(items, { rule: { tail: 0, depth: 1 }, window: { from: "2026-10-01", to: "2026-10-02" } });
    expect(ranked.map((group) => [group.key, group.score, group.at])).toEqual([
      ["note:n", 9, "2026-10-01"],
      ["session:a", 5, "2026-11-01"],
      ["session:b", 4, "2026-11-03"],
    ]);
  });
});

describe("one ranking over everything remembered", () => {
  useTempHome("shiro-recall-rank-");
  const ROOT = "/work/recall-rank-project";

  test("notes, episodes and passages on one scale, one line per session, bookkeeping and other projects never found, time windows", async () => {
    const { paths } = await import("../../lib/platform/paths.ts");
    const { writeJsonAtomic } = await import("../../lib/state-file/json-file.ts");
    const { openMemory } = await import("../../lib/store/memory.ts");
    const { openEpisodes } = await import("../../lib/store/episodes.ts");
    const { recallEverything, rankEverything } = await import("../../lib/find/recall-everything.ts");
    mkdirSync(paths.sessionsDir(), { recursive: true });
    const session = (id: string, at: string, cwd: string, messages: unknown[]) =>
      writeJsonAtomic(paths.session(id), {
        version: 1,
        id,
        createdAt: at,
        updatedAt: at,
        cwd,
        provider: "p",
        model: "m",
        title: "t",
        inputTokens: 0,
        outputTokens: 0,
        notebook: { todos: [] },
        exchanges: [{ query: "q", answer: "a", status: "completed", steps: 1, runId: "r", at }],
        messages,
      });
    const filler = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} talks about the weather and lunch plans.`);
    filler[24] = "The staging database password rotates every Friday through ops/rotate.sh.";
    session("01900000-0000-7000-8000-00000000000a", "2026-11-24T09:00:00.000Z", ROOT, [{ role: "user", content: filler.join("\n\n") }]);
    session("01900000-0000-7000-8000-00000000000b", "2026-10-01T09:00:00.000Z", ROOT, [
      { role: "user", content: "look it up" },
      { role: "assistant", parts: [{ type: "tool-call", id: "c1", name: "recall", input: { query: "staging database password rotates" } }] },
      {
        role: "tool",
        results: [{ type: "tool-result", callId: "c1", name: "recall", output: "staging database password rotates every Friday", bookkeeping: true }],
      },
      { role: "assistant", parts: [{ type: "text", text: "Nothing found." }] },
    ]);
    session("01900000-0000-7000-8000-00000000000c", "2026-11-25T09:00:00.000Z", "/elsewhere", [
      { role: "user", content: "staging database password rotates every Friday" },
    ]);
    openMemory(ROOT).remember("gotcha", "never rotate the staging database password by hand");
    const context = { projectRoot: ROOT, cwd: ROOT, project: openMemory(ROOT), episodes: openEpisodes(ROOT), now: NOW };

    const ranking = rankEverything(context, { query: "how often does the staging db password rotate" });
    expect(ranking.groups.map((group) => [group.kind, group.sessionId ?? group.note?.text])).toEqual([
      ["note", "never rotate the staging database password by hand"],
      ["session", "01900000-0000-7000-8000-00000000000a"],
    ]);
    const lines = recallEverything(context, { query: "how often does the staging db password rotate" }).split("\n");
    expect(lines[0]).toBe("note (gotcha, today): never rotate the staging database password by hand");
    expect(lines[1]).toMatch(
      /^transcript session 01900000-0000-7000-8000-00000000000a 2026-11-24 prompt: .*The staging database password rotates every Friday through ops\/rotate\.sh\./,
    );
    expect(lines).toHaveLength(2);

    expect(rankEverything(context, { query: "staging password", kinds: ["gotcha"] }).groups.map((group) => group.kind)).toEqual(["note"]);
    expect(rankEverything(context, { query: "staging password", kinds: ["transcript"] }).groups.map((group) => group.kind)).toEqual(["session"]);
    expect(rankEverything(context, { query: "staging password", scope: "global" }).groups).toEqual([]);
    const asking = rankEverything({ ...context, currentSession: "01900000-0000-7000-8000-00000000000a" }, { query: "staging password" });
    expect(asking.groups.map((group) => group.kind)).toEqual(["note"]);
    // The window favours what is dated inside it: the same words said last week and this Monday.
    session("01900000-0000-7000-8000-00000000000d", "2026-11-30T12:00:00.000Z", ROOT, [{ role: "user", content: filler.join("\n\n") }]);
    const sessionsOf = (query: string) => rankEverything(context, { query, kinds: ["transcript"] }).groups.map((group) => group.sessionId!.slice(-1));
    expect(sessionsOf("how often does the staging db password rotate")).toEqual(["d", "a"]);
    const lastWeek = rankEverything(context, { query: "how often does the staging db password rotate last week", kinds: ["transcript"] });
    expect([lastWeek.words, lastWeek.window]).toEqual(["how often does the staging db password rotate", { from: day("2026-11-23"), to: day("2026-11-30") }]);
    expect(lastWeek.groups.map((group) => group.sessionId!.slice(-1))).toEqual(["a", "d"]);
    expect(rankEverything(context, { query: "what did we do last week" }).groups).toEqual([]);
  });

  test("a passage's entry found damaged after the search: the ranking is done again, the transcript index rebuilt with its notice, the groups the same", async () => {
    const { paths } = await import("../../lib/platform/paths.ts");
    const { writeJsonAtomic } = await import("../../lib/state-file/json-file.ts");
    const { openMemory } = await import("../../lib/store/memory.ts");
    const { openEpisodes } = await import("../../lib/store/episodes.ts");
    const { rankEverything } = await import("../../lib/find/recall-everything.ts");
    const { SECTION } = await import("../../lib/search/segment-layout.ts");
    const root = "/work/recall-damage-project";
    mkdirSync(paths.sessionsDir(), { recursive: true });
    for (let i = 0; i < 6; i++) {
      const id = `01910000-0000-7000-8000-00000000000${i}`;
      const at = `2026-11-2${i}T09:00:00.000Z`;
      writeJsonAtomic(paths.session(id), {
        ...{ version: 1, id, createdAt: at, updatedAt: at, cwd: root, provider: "p", model: "m", title: "t", inputTokens: 0, outputTokens: 0 },
        notebook: { todos: [] },
        exchanges: [{ query: "q", answer: "a", status: "completed", steps: 1, runId: "r", at }],
        messages: [{ role: "user", content: `the login redirect loops ${"again ".repeat(i)}after the deploy of build ${i}` }],
      });
    }
    const context = { projectRoot: root, cwd: root, project: openMemory(root), episodes: openEpisodes(root), now: NOW };
    const shown = (ranking: { groups: { kind: string; sessionId?: string; passage?: { id: string } }[] }) =>
      ranking.groups.map((group) => [group.kind, group.sessionId, group.passage?.id]);
    const before = rankEverything(context, { query: "login redirect" });
    expect(before.groups.length).toBeGreaterThan(3);
    const dir = paths.transcriptIndex();
    for (const name of readdirSync(dir).filter((file) => file.endsWith(".seg"))) {
      const bytes = readFileSync(join(dir, name));
      bytes.fill(0x78, bytes.readUInt32LE(32 + SECTION.docEntries * 4), bytes.readUInt32LE(32 + SECTION.end * 4));
      writeFileSync(join(dir, name), bytes);
    }
    // Another process's view: the manifest's time moved, so the segments are read again.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, "manifest.json"), later, later);
    const after = rankEverything(context, { query: "login redirect" });
    expect(after.notices).toHaveLength(1);
    expect(after.notices[0]).toMatch(/^search index .* was unreadable \(.*\); rebuilt it$/);
    expect(shown(after)).toEqual(shown(before));
  });
});
