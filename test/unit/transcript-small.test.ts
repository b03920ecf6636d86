/**
 * Whether a turn may open the transcript index before its first request: only while it is small,
 * or missing with a short history to build it from (lib/find/transcript-index.ts).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { paths } from "../../lib/platform/paths.ts";
import { SMALL_TRANSCRIPT_INDEX_BYTES, transcriptIndexIsSmall } from "../../lib/find/transcript-index.ts";

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

test("an index file is small up to its byte limit, whatever the history", () => {
  files(paths.sessionsDir(), 500, ".json");
  mkdirSync(dirname(paths.transcriptIndex()), { recursive: true });
  writeFileSync(paths.transcriptIndex(), "");
  truncateSync(paths.transcriptIndex(), SMALL_TRANSCRIPT_INDEX_BYTES);
  expect(transcriptIndexIsSmall()).toBe(true);
  truncateSync(paths.transcriptIndex(), SMALL_TRANSCRIPT_INDEX_BYTES + 1);
  expect(transcriptIndexIsSmall()).toBe(false);
});
