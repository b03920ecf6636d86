/**
 * The transcript index's check on open (lib/find/transcript-index.ts): the folders' stamps a
 * process noted before writing its own session and logs still count as current, so a recall in
 * that process does not check every file because of its own writes; a process that noted nothing
 * (or a home whose stamps moved before the note) checks and finds the new session.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { noteFoldersBeforeWriting, openTranscriptIndex } from "../../lib/find/transcript-index.ts";
import { createSession } from "../../lib/store/session-record.ts";
import { openSessionWriter } from "../../lib/store/sessions.ts";

const savedHome = process.env.SHIRO_HOME;
let base = "";

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "shiro-transcript-own-"));
});

afterEach(() => {
  if (savedHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
});

function _save(prompt: string, at: number): void {
  const session = createSession({ cwd: "/work/app", provider: "openai", model: "fake-model" }, new Date(at));
  session.messages.push({ role: "user", content: prompt }, { role: "assistant", parts: [{ type: "text", text: `answered ${prompt}` }] });
  const writer = openSessionWriter(session);
  writer.save();
  writer.close();
}

const found = (word: string) => openTranscriptIndex().search(word, { limit: 10 }).length;

describe("transcript index: the stamps noted before this process wrote", () => {
  const cases = [
    { noted: "before the new session is written", note: "before", zebra: 0 },
    { noted: "never", note: "none", zebra: 2 },
    { noted: "after the new session is written", note: "after", zebra: 2 },
  ] as const;
  for (const { noted, note, zebra } of cases)
    test(`noted ${noted}: a session with "zebra" is ${zebra ? "found" : "not looked for"}`, () => {
      process.env.SHIRO_HOME = join(base, note);
      _save("the quokka parser", Date.UTC(2026, 0, 1));
      _save("the wombat lock", Date.UTC(2026, 0, 2));
      expect([found("quokka"), found("wombat"), found("zebra")]).toEqual([2, 2, 0]);
      if (note === "before") noteFoldersBeforeWriting();
      _save("the zebra stall", Date.UTC(2026, 0, 3));
      if (note === "after") noteFoldersBeforeWriting();
      expect([found("quokka"), found("zebra")]).toEqual([2, zebra]);
    });
});
