/**
 * What a power loss can leave of a write that was not fsynced (lib/state-file/json-file.ts
 * `durable: false`: a new session's first record, a new run's first snapshot): the file renamed
 * into place but empty. Every reader reports that one file and loses nothing else: `shiro
 * sessions`, `shiro runs`, `-c` and `shiro search` (which syncs its index from the sessions).
 */
import { expect, test } from "bun:test";
import { rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { parseEventLines, useE2E, userTextsOf } from "./_harness.ts";

const e2e = useE2E();

test("an empty session file and an empty run file are reported by name; the other session and run are listed, resumed and found", async () => {
  e2e.fake.script({ text: "noted the walrus" });
  const first = await e2e.shiro(["-p", "remember the walrus", "--json"]);
  expect(first.code).toBe(0);
  const kept = String(parseEventLines(first.stdout)[0]!.sessionId);
  e2e.fake.script({ text: "noted the otter" });
  const second = await e2e.shiro(["-p", "remember the otter", "--json"]);
  expect(second.code).toBe(0);
  const lost = String(parseEventLines(second.stdout)[0]!.sessionId);
  const lostRun = String(parseEventLines(second.stdout)[0]!.runId);
  const state = join(e2e.dirs.home, ".shiro-neko");
  truncateSync(join(state, "sessions", `${lost}.json`), 0);
  truncateSync(join(state, "runs", `${lostRun}.json`), 0);
  // The index was built while both files were whole; after a power loss it is rebuilt from what is on disk.
  rmSync(join(state, "search"), { recursive: true, force: true });
  // Short ids are as long as the ids on disk make them (ids made in one millisecond share more):
  // each printed one is expanded back to the one id it abbreviates.
  const expand = (text: string) => _expandIds(text, [kept, lost, lostRun]);

  const sessions = await e2e.shiro(["sessions"]);
  expect([
    sessions.code,
    sessions.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => [expand(line.split(" ")[0]!), line.endsWith("remember the walrus")]),
  ]).toEqual([0, [[kept, true]]]);
  expect(sessions.stderr).toBe(`shiro: skipped session file ${join(state, "sessions", `${lost}.json`)}: empty, no JSON in it\n`);

  const runs = await e2e.shiro(["runs"]);
  expect([
    runs.code,
    runs.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => line.endsWith("remember the walrus")),
  ]).toEqual([0, [true]]);
  expect(runs.stderr).toBe(`shiro: skipped runs/${lostRun}.json: empty, no JSON in it\n`);

  const search = await e2e.shiro(["search", "walrus"]);
  expect([search.code, search.stderr]).toEqual([0, ""]);
  expect(_hits(search.stdout).map(expand)).toEqual([`session ${kept}  prompt  remember the walrus`, `session ${kept}  answer  noted the walrus`]);

  // The lost run's event log is whole: its answer is still found.
  const otter = await e2e.shiro(["search", "otter"]);
  expect([otter.code, otter.stderr]).toEqual([0, ""]);
  expect(_hits(otter.stdout).map(expand)).toEqual([`run ${lostRun}  answer  noted the otter`]);

  e2e.fake.reset();
  e2e.fake.script({ text: "the walrus" });
  const resumed = await e2e.shiro(["-p", "what was it?", "-c", "--json"]);
  expect(resumed.code).toBe(0);
  const events = parseEventLines(resumed.stdout);
  expect([events[0]!.sessionId, events[1]]).toEqual([
    kept,
    { type: "notice", text: `skipped session file ${join(state, "sessions", `${lost}.json`)}: empty, no JSON in it` },
  ]);
  expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["remember the walrus", "what was it?"]);
}, 120_000);

/** `shiro search`'s lines without the date and folder columns: kind, id, field, snippet. */
function _hits(stdout: string): string[] {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.replace(/ +\d{4}-\d\d-\d\d \d\d:\d\d {2}.*? {2}/, "  "));
}

/** `text` with its leading word, or the word after `session `/`run `, replaced by the one id of `ids` it abbreviates (8 characters at least); unchanged when none or several match. */
function _expandIds(text: string, ids: readonly string[]): string {
  return text.replace(/^((?:session |run )?)([0-9a-f-]{8,})/, (whole, kind: string, short: string) => {
    const matches = ids.filter((id) => id.startsWith(short));
    return matches.length === 1 ? `${kind}${matches[0]}` : whole;
  });
}
