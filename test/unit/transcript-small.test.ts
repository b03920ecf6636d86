/**
 * Whether a turn's memory ranks past passages before its first request: while the built index holds
 * at most PROMPT_TRANSCRIPT_DOCS documents, or while it is missing with a short history to build it
 * from (lib/find/transcript-index.ts).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { PROMPT_TRANSCRIPT_DOCS, transcriptIndexIsSmall } from "../../lib/find/transcript-index.ts";
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

test("a missing index is small while a few hundred files would build it", () => {
  expect(transcriptIndexIsSmall()).toBe(true);
  files(paths.sessionsDir(), 120, ".json");
  files(paths.eventsDir(), 80, ".jsonl");
  expect(transcriptIndexIsSmall()).toBe(true);
  files(paths.eventsDir(), 81, ".jsonl");
  expect(transcriptIndexIsSmall()).toBe(false);
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
    (manifest({}, 10), transcriptIndexIsSmall()),
    (manifest(built, 10), transcriptIndexIsSmall()),
    (manifest(built, PROMPT_TRANSCRIPT_DOCS), transcriptIndexIsSmall()),
    (manifest(built, PROMPT_TRANSCRIPT_DOCS + 1), transcriptIndexIsSmall()),
  ]).toEqual([false, true, true, false]);
});
