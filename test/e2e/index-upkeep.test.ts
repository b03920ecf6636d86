/**
 * The segmented indexes through the built binary: every run adds one segment to the search index
 * after its answer (and the recall index takes in its episode), a search then answers from them
 * without rewriting anything, a session file another process wrote without indexing it is found,
 * and `shiro memory gc` merges each index into one segment without changing an answer.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathHash16 } from "../../lib/platform/paths.ts";
import { useE2E } from "./_harness.ts";

const e2e = useE2E();
const state = (...parts: string[]) => join(e2e.dirs.home, ".shiro-neko", ...parts);
const shiro = (args: string[]) => e2e.shiro(args, { protocol: "chat" });
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { generation: number; segments: { file: string }[]; docs: number };
const transcripts = () => manifest(state("search", "transcripts.index"));
const recallIndex = () => manifest(state("memory", `${pathHash16(e2e.dirs.cwd)}.index`));

/** One headless run that reads a file (so it leaves an episode) and answers. */
async function run(prompt: string, answer: string): Promise<void> {
  writeFileSync(join(e2e.dirs.cwd, "notes.txt"), `${prompt}\n`);
  e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] }, { text: answer });
  const result = await shiro(["-p", prompt]);
  expect(result.code).toBe(0);
  expect(result.stderr).not.toMatch(/index/);
}

async function search(query: string): Promise<{ id: string; role: string; snippet: { text: string } }[]> {
  const result = await shiro(["search", query, "--json"]);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(result.stdout);
}

describe("segmented indexes", () => {
  test("each run appends one segment after its answer; search reads them as they are; gc merges each index into one", async () => {
    await run("where does the walrus config live?", "In walrus.toml.");
    await run("why is the narwhal build slow?", "The narwhal cache is cold.");
    const before = transcripts();
    const episodesBefore = recallIndex().docs;
    await run("rename the quokka module", "Renamed quokka to marsupial.");
    const after = transcripts();
    expect(after.segments.length).toBe(before.segments.length + 1);
    expect(after.segments.slice(0, -1)).toEqual(before.segments);
    expect(recallIndex().docs).toBe(episodesBefore + 1);

    const found = await search("quokka");
    expect(found.map((hit) => hit.role).sort()).toEqual(["answer", "episode", "prompt", "tool-result"]);
    // Nothing changed since the last run saved: the search wrote nothing.
    expect(transcripts().generation).toBe(after.generation);

    expect((await shiro(["memory", "--help"])).stdout).toMatch(/^ +gc +merge the search and recall indexes' segments into one each/m);
    const gc = await shiro(["memory", "gc"]);
    expect({ code: gc.code, stderr: gc.stderr }).toEqual({ code: 0, stderr: "" });
    const lines = gc.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^search index: \d+ segments, [\d.]+ (B|KiB) → 1 segment, [\d.]+ (B|KiB)( \(\d+ removed documents? dropped\))?$/);
    expect(lines[1]).toMatch(/^recall index: \d+ segments?, [\d.]+ (B|KiB) → 1 segment, [\d.]+ (B|KiB)( \(\d+ removed documents? dropped\))?$/);
    expect(lines[2]).toMatch(/^episodes: (\d+) episodes?, [\d.]+ (B|KiB) → \1 episodes?, [\d.]+ (B|KiB)$/);
    expect(transcripts().segments).toHaveLength(1);
    expect(readdirSync(state("search", "transcripts.index")).sort()).toEqual([transcripts().segments[0]!.file, "manifest.json"].sort());
    expect(await search("quokka")).toEqual(found);
    expect((await search("walrus")).length).toBeGreaterThan(0);
  }, 120_000);

  test("a session file written without indexing it is found at the next search", async () => {
    await run("tune the okapi scheduler", "Tuned okapi.");
    const sessions = readdirSync(state("sessions")).filter((name) => name.endsWith(".json"));
    const session = JSON.parse(readFileSync(state("sessions", sessions[0]!), "utf8"));
    const id = `${session.id.slice(0, -4)}beef`;
    const copy = { ...session, id, messages: [{ role: "user", content: "the pangolin migration stalled" }], exchanges: [] };
    writeFileSync(state("sessions", `${id}.json.tmp`), JSON.stringify(copy));
    renameSync(state("sessions", `${id}.json.tmp`), state("sessions", `${id}.json`));
    expect((await search("pangolin")).map((hit) => [hit.id, hit.role])).toEqual([[id, "prompt"]]);
  }, 60_000);
});
