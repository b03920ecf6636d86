/**
 * Whether a turn's memory ranks past passages before its first request: while the built index holds
 * at most PROMPT_TRANSCRIPT_DOCS documents, or while it is missing with a short history to build it
 * from (lib/find/transcript-index.ts), a long one known by its history census without listing it.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { CENSUS_TRUST_MS, PROMPT_TRANSCRIPT_DOCS, promptRanksTranscripts } from "../../lib/find/transcript-index.ts";
import { TOKENIZER_VERSION } from "../../lib/search/tokenize.ts";

let home = "";
const saved = process.env.SHIRO_HOME;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "shiro-transcript-small-"));
  process.env.SHIRO_HOME = home;
});
afterEach(() => {
  if (saved === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = saved;
  rmSync(home, { recursive: true, force: true });
});

const files = (dir: string, count: number, suffix: string) => {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) writeFileSync(join(dir, `${i}${suffix}`), "{}");
};

test("a history of nothing but the current session has nothing past to rank", () => {
  // Every spelling of "only the current session": no folder, empty folders, its file, its lease.
  expect(promptRanksTranscripts("s1")).toBe(false);
  mkdirSync(paths.sessionsDir(), { recursive: true });
  mkdirSync(paths.eventsDir(), { recursive: true });
  expect(promptRanksTranscripts("s1")).toBe(false);
  writeFileSync(join(paths.sessionsDir(), "s1.json"), "{}");
  writeFileSync(join(paths.sessionsDir(), "s1.lease"), "{}");
  expect(promptRanksTranscripts("s1")).toBe(false);
  // Anything else is past: another session, its lease alone, any run's event log, or any file when no session is named.
  expect(promptRanksTranscripts()).toBe(true);
  for (const [dir, name] of [
    [paths.sessionsDir(), "s2.json"],
    [paths.sessionsDir(), "s2.lease"],
    [paths.sessionsDir(), "s1.json.tmp"],
    [paths.eventsDir(), "r1.jsonl"],
  ] as const) {
    writeFileSync(join(dir, name), "{}");
    expect(promptRanksTranscripts("s1")).toBe(true);
    rmSync(join(dir, name));
  }
  expect(promptRanksTranscripts("s1")).toBe(false);
});

test("a missing index is small while a few hundred files would build it", () => {
  files(paths.sessionsDir(), 1, ".json");
  expect(promptRanksTranscripts()).toBe(true);
  files(paths.sessionsDir(), 120, ".json");
  files(paths.eventsDir(), 80, ".jsonl");
  expect(promptRanksTranscripts()).toBe(true);
  files(paths.eventsDir(), 81, ".jsonl");
  expect(promptRanksTranscripts()).toBe(false);
});

test("a built index counts by its documents, whatever the files; one whose build was cut short is not small", () => {
  files(paths.sessionsDir(), 500, ".json");
  mkdirSync(paths.transcriptIndex(), { recursive: true });
  const manifest = (meta: Record<string, string>, docs: number) =>
    writeFileSync(
      join(paths.transcriptIndex(), "manifest.json"),
      JSON.stringify({ version: 2, tokenizer: TOKENIZER_VERSION, generation: 1, next: 1, segments: [], dead: {}, docs, totalLen: 0, meta }),
    );
  const built = { sessions: "1:2", events: "3:4" };
  expect([
    (manifest({}, 10), promptRanksTranscripts()),
    (manifest(built, 10), promptRanksTranscripts()),
    (manifest(built, PROMPT_TRANSCRIPT_DOCS), promptRanksTranscripts()),
    (manifest(built, PROMPT_TRANSCRIPT_DOCS + 1), promptRanksTranscripts()),
  ]).toEqual([false, true, true, false]);
});

test("a long history without an index is known from its census: no listing while the folders are as counted or the census is recent", () => {
  files(paths.sessionsDir(), 150, ".json");
  files(paths.eventsDir(), 100, ".jsonl");
  expect(promptRanksTranscripts()).toBe(false);
  const stamp = (dir: string) => `${statSync(dir).ino}:${statSync(dir).mtimeMs}`;
  const census = readFileSync(paths.historyCensus(), "utf8").split("\n");
  expect([census[0], census[1], census[3], census[4]]).toEqual([
    "shiro history census 1",
    `${stamp(paths.sessionsDir())} ${stamp(paths.eventsDir())}`,
    "250",
    "",
  ]);
  // Removed by hand, unseen: the census is believed, so the folders were not listed.
  rmSync(paths.eventsDir(), { recursive: true });
  expect(promptRanksTranscripts()).toBe(false);
  // Taken longer ago than it is trusted, with the folders changed since: listed again (150 files), and no new census for a short history.
  const old = [census[0], census[1], String(Date.now() - CENSUS_TRUST_MS - 1000), census[3], ""].join("\n");
  writeFileSync(paths.historyCensus(), old);
  expect(promptRanksTranscripts()).toBe(true);
  expect(readFileSync(paths.historyCensus(), "utf8")).toBe(old);
});

test("an old census is still believed while the folders are as it counted them; an unreadable one is out of date", () => {
  files(paths.sessionsDir(), 250, ".json");
  expect(promptRanksTranscripts()).toBe(false);
  const census = readFileSync(paths.historyCensus(), "utf8").split("\n");
  writeFileSync(paths.historyCensus(), [census[0], census[1], "0", "999", ""].join("\n"));
  expect(promptRanksTranscripts()).toBe(false);
  // A census of a short history, or a cut one, is not taken: the folders are counted (250 files, past the limit).
  for (const text of [[census[0], census[1], "0", "12", ""].join("\n"), `${census[0]}\n${census[1]}\n`]) {
    writeFileSync(paths.historyCensus(), text);
    expect(promptRanksTranscripts()).toBe(false);
    expect(readFileSync(paths.historyCensus(), "utf8").split("\n")[3]).toBe("250");
  }
});
