/**
 * Ids that work, through the binary: twenty sessions started within seconds of each other (their
 * UUIDv7 ids share the first 8 characters) leave twenty episodes; `shiro memory list --episodes`,
 * recall results and the prompt's memory section show twenty distinct ids, and each one expands to
 * its own episode, by recall (on every protocol) and by `shiro memory show`. Every id `shiro memory
 * list` prints, notes made in the same minute included, is one `shiro memory show` takes.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathHash16 } from "../../lib/platform/paths.ts";
import type { RecordedRequest } from "../fakes/provider.ts";
import { systemOf, toolResultsOf, useE2E } from "./_harness.ts";

const SESSIONS = 20;
const e2e = useE2E();

const readEpisodes = (): { id: string; sessionId: string; prompts: string[] }[] =>
  readFileSync(join(e2e.dirs.home, ".shiro-neko", "memory", `${pathHash16(e2e.dirs.cwd)}.episodes.jsonl`), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line))
    .flatMap((record) => (record.episode ? [record.episode] : []));

/** The last user text of a request (chat, responses or anthropic). */
function lastUserText(request: RecordedRequest): string {
  const list = (request.body.messages ?? request.body.input ?? []) as any[];
  for (let i = list.length - 1; i >= 0; i--) {
    const message = list[i];
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    const text = (message.content as any[]).findLast((part) => part.type === "text" || part.type === "input_text");
    if (text) return text.text;
  }
  return "";
}

/** Twenty sessions, five at a time: each reads its own file (so it leaves an episode) and answers. */
async function startTwentySessions(): Promise<void> {
  e2e.fake.respond((request) => {
    const results = toolResultsOf(request);
    if (results.length > 0) return { text: "Read it." };
    const task = /wombat task (\d+)/.exec(lastUserText(request))?.[1];
    return task ? { toolCalls: [{ name: "read_file", input: { path: `notes-${task}.txt` } }] } : { text: "?" };
  });
  const { writeFileSync } = await import("node:fs");
  for (let i = 0; i < SESSIONS; i++) writeFileSync(join(e2e.dirs.cwd, `notes-${i}.txt`), `notes ${i}\n`);
  for (let batch = 0; batch < SESSIONS; batch += 5) {
    const runs = await Promise.all(Array.from({ length: 5 }, (_, k) => e2e.shiro(["-p", `read the wombat task ${batch + k} notes`], { timeoutMs: 60_000 })));
    for (const run of runs) expect({ code: run.code, failed: /error/i.test(run.stderr) }).toEqual({ code: 0, failed: false });
  }
}

describe("ids of episodes of sessions started together", () => {
  test("twenty sessions show twenty distinct ids; each expands to its own episode by recall on every protocol and by memory show", async () => {
    await startTwentySessions();
    const episodes = readEpisodes();
    expect(episodes).toHaveLength(SESSIONS);
    const bySession = new Map(episodes.map((episode) => [episode.sessionId, episode]));
    // What this test is about: a fixed 8 characters would not tell these sessions apart.
    expect(new Set(episodes.map((episode) => episode.sessionId.slice(0, 8))).size).toBeLessThan(SESSIONS);

    // Notes made in the same minute, so their ids share a prefix with the episodes' and sessions'.
    for (let i = 0; i < 5; i++) expect((await e2e.shiro(["memory", "add", "fact", `wombat fact ${i}`])).code).toBe(0);

    const listed = await e2e.shiro(["memory", "list", "--episodes"]);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split("\n")
      .map((line) => /^(\S+) {2}episode of session (\S+) \S+: "read the wombat task (\d+) notes"/.exec(line)!);
    expect(rows.every(Boolean)).toBe(true);
    expect(new Set(rows.map((row) => row[1])).size).toBe(SESSIONS);
    expect(new Set(rows.map((row) => row[2])).size).toBe(SESSIONS);
    for (const [, episodeShort, sessionShort, task] of rows) {
      const episode = episodes.find((candidate) => candidate.prompts[0] === `read the wombat task ${task} notes`)!;
      expect([episode.id.startsWith(episodeShort!), episode.sessionId.startsWith(sessionShort!)]).toEqual([true, true]);
      for (const id of [episodeShort!, sessionShort!]) {
        const shown = await e2e.shiro(["memory", "show", id]);
        expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: "" });
        expect(shown.stdout).toStartWith(`episode ${episode.id}\nepisode of session ${episode.sessionId}, `);
        expect(shown.stdout).toContain(`- read the wombat task ${task} notes\n`);
      }
    }

    const notes = await e2e.shiro(["memory", "list"]);
    const noteIds = notes.stdout
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/)[0]!);
    expect(noteIds).toHaveLength(5);
    for (const id of noteIds) {
      const shown = await e2e.shiro(["memory", "show", id]);
      expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: "" });
      expect(shown.stdout).toStartWith(`note ${id}`);
    }

    for (const protocol of ["chat", "responses", "anthropic"] as const) {
      // One session lists them all by recall, then expands every id it was shown, all at once.
      let shownIds: string[] = [];
      let requestIndex = -1;
      e2e.fake.reset();
      e2e.fake.respond((request, index) => {
        const results = toolResultsOf(request);
        if (results.length === 0) return { toolCalls: [{ name: "recall", input: { query: "wombat task notes", kinds: ["episode"], limit: 30 } }] };
        if (results.length === 1) {
          shownIds = [...results[0]!.output.matchAll(/^episode (\S+) /gm)].map((match) => match[1]!);
          return { toolCalls: shownIds.map((id) => ({ name: "recall", input: { query: id } })) };
        }
        requestIndex = index;
        return { text: "Recalled." };
      });
      const run = await e2e.shiro(["-p", "what wombat task notes did we read?"], { protocol, timeoutMs: 60_000 });
      expect({ code: run.code, failed: /error/i.test(run.stderr) }).toEqual({ code: 0, failed: false });
      expect(new Set(shownIds).size).toBe(SESSIONS);
      const expansions = toolResultsOf(e2e.fake.requests[requestIndex]!).slice(1);
      expect(expansions).toHaveLength(SESSIONS);
      for (const [i, expansion] of expansions.entries()) {
        const [sessionId] = [...bySession.keys()].filter((id) => id.startsWith(shownIds[i]!));
        expect(expansion.output).toStartWith(`episode of session ${sessionId}, `);
        expect(expansion.output).toContain(`- ${bySession.get(sessionId!)!.prompts[0]}\n`);
      }
      // The prompt's memory section names episodes by the same ids.
      const inPrompt = [...systemOf(e2e.fake.requests[0]!).matchAll(/^- \(episode (\S+) /gm)].map((match) => match[1]!);
      expect(inPrompt.length).toBeGreaterThan(0);
      for (const id of inPrompt) expect(shownIds).toContain(id);
    }
  }, 300_000);
});
