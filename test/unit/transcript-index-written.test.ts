/**
 * A save indexes the session as this process wrote it (lib/store/sessions.ts `takeWrittenSession`,
 * lib/find/transcript-index.ts `indexSavedTranscripts`): while the file has the stamp the write
 * left, it is not read and checked again, and what is indexed is what a load would give; any other
 * file under that name (replaced, rewritten, touched, written by a writer that is not the default
 * one) is read from disk, as before.
 */
import { afterEach, beforeEach, describe, expect, spyOn, test } from "bun:test";
import * as fs from "node:fs";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { indexSavedTranscripts, openTranscriptIndex } from "../../lib/find/transcript-index.ts";
import { sessionDocs } from "../../lib/find/transcript-docs.ts";
import { paths } from "../../lib/platform/paths.ts";
import { fileStamp } from "../../lib/state-file/file-stamp.ts";
import { createSession, type SessionRecord } from "../../lib/store/session-record.ts";
import { loadSession, openSessionWriter, takeWrittenSession } from "../../lib/store/sessions.ts";

const savedHome = process.env.SHIRO_HOME;
let base = "";

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "shiro-transcript-written-"));
  process.env.SHIRO_HOME = base;
});

afterEach(() => {
  if (savedHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
});

/** A session of every kind of document: prompt, answer, tool call and result, an archive and a span summary, and a secret. */
function _session(word: string, at: number): SessionRecord {
  const session = createSession({ cwd: "/work/app", provider: "openai", model: "fake-model" }, new Date(at));
  session.messages.push(
    {
      role: "user",
      content: `the ${word} parser with key sk-ant-api03-${"a".repeat(40)}`,
    },
    {
      role: "assistant",
      parts: [
        { type: "text", text: `looking at ${word}` },
        {
          type: "tool-call",
          id: "c1",
          name: "read_file",
          input: { path: `${word}.ts` },
        },
      ],
    },
    {
      role: "tool",
      results: [
        {
          type: "tool-result",
          callId: "c1",
          name: "read_file",
          output: `export const ${word} = 1;`,
        },
      ],
    },
    { role: "assistant", parts: [{ type: "text", text: `answered ${word}` }] },
  );
  session.exchanges.push({
    query: `the ${word} parser`,
    answer: `answered ${word}`,
    status: "completed",
    steps: 2,
    runId: session.id,
    at: new Date(at).toISOString(),
  });
  session.compaction = {
    spans: [
      {
        from: 0,
        to: 2,
        createdAt: new Date(at).toISOString(),
        summary: `summary of ${word}`,
      },
    ],
    archive: [
      {
        at: new Date(at).toISOString(),
        summary: `archived ${word}`,
        messages: [{ role: "user", content: `earlier ${word}` }],
      },
    ],
  };
  return session;
}

function _write(session: SessionRecord): void {
  const writer = openSessionWriter(session);
  writer.save();
  writer.close();
}

const found = (word: string) => openTranscriptIndex().search(word, { limit: 10 }).length;

describe("takeWrittenSession", () => {
  test("gives what a load gives, redacted, and documents equal to the loaded session's", () => {
    const session = _session("quokka", Date.UTC(2026, 0, 1));
    _write(session);
    const loaded = loadSession(session.id);
    const written = takeWrittenSession(session.id, fileStamp(paths.session(session.id))!);
    expect(written).toEqual(loaded);
    expect(JSON.stringify(written)).not.toContain("a".repeat(40));
    expect(sessionDocs(written!)).toEqual(sessionDocs(loaded));
  });

  const refused: [string, (session: SessionRecord) => string | undefined][] = [
    [
      "the file replaced by another writer",
      (session) => (writeFileSync(paths.session(session.id), JSON.stringify(loadSession(session.id))), fileStamp(paths.session(session.id))),
    ],
    [
      "the file touched",
      (session) => (utimesSync(paths.session(session.id), new Date(0), new Date(Date.UTC(2020, 0, 1))), fileStamp(paths.session(session.id))),
    ],
    ["a stamp that is not the file's", () => "1:2:3"],
    ["taken once already", (session) => (takeWrittenSession(session.id, fileStamp(paths.session(session.id))!), fileStamp(paths.session(session.id)))],
  ];
  for (const [what, change] of refused)
    test(`refuses ${what}`, () => {
      const session = _session("wombat", Date.UTC(2026, 0, 2));
      _write(session);
      const stamp = change(session);
      expect(takeWrittenSession(session.id, stamp!)).toBeUndefined();
    });

  test("keeps only the session written last: an earlier one, written over by another's save, is read from its file", () => {
    const first = _session("quokka", Date.UTC(2026, 0, 4));
    const second = _session("wombat", Date.UTC(2026, 0, 5));
    _write(first);
    _write(second);
    expect(takeWrittenSession(first.id, fileStamp(paths.session(first.id))!)).toBeUndefined();
    expect(takeWrittenSession(second.id, fileStamp(paths.session(second.id))!)).toEqual(loadSession(second.id));
  });

  test("knows nothing of a session another writer (a test's write) saved, or one never written here", () => {
    const session = _session("numbat", Date.UTC(2026, 0, 3));
    const writer = openSessionWriter(session, {
      write: (record) => fs.writeFileSync(paths.session(record.id), JSON.stringify(record)),
    });
    writer.save();
    writer.close();
    expect(takeWrittenSession(session.id, fileStamp(paths.session(session.id))!)).toBeUndefined();
    expect(takeWrittenSession("01900000-0000-7000-8000-000000000000", "1:2:3")).toBeUndefined();
  });
});

describe("indexSavedTranscripts after a save", () => {
  test("indexes the session without reading its file again", () => {
    _write(_session("quokka", Date.UTC(2026, 0, 1)));
    expect(found("quokka")).toBeGreaterThan(0);
    const session = _session("wombat", Date.UTC(2026, 0, 2));
    _write(session);
    const reads = spyOn(fs, "readFileSync");
    try {
      indexSavedTranscripts({ sessionId: session.id, runIds: [] });
      expect(reads.mock.calls.filter(([path]) => String(path) === paths.session(session.id))).toHaveLength(0);
    } finally {
      reads.mockRestore();
    }
    // What the save indexed is what an index built from the files holds.
    const indexed = ["wombat", "archived", "summary", "redacted"].map(found);
    expect(indexed[0]).toBeGreaterThan(0);
    rmSync(paths.transcriptIndex(), { recursive: true, force: true });
    expect(["wombat", "archived", "summary", "redacted"].map(found)).toEqual(indexed);
  });

  test("fsyncs the session it saves, and nothing of the index (derived data: a segment or manifest cut short by a power loss is rebuilt)", () => {
    _write(_session("quokka", Date.UTC(2026, 0, 1)));
    expect(found("quokka")).toBeGreaterThan(0);
    const session = _session("wombat", Date.UTC(2026, 0, 2));
    const syncs = spyOn(fs, "fsyncSync");
    try {
      _write(session);
      const written = syncs.mock.calls.length;
      indexSavedTranscripts({ sessionId: session.id, runIds: [] });
      expect([written, syncs.mock.calls.length - written]).toEqual([1, 0]);
    } finally {
      syncs.mockRestore();
    }
    expect(found("wombat")).toBeGreaterThan(0);
  });

  test("reads the file when it was replaced after the write, and indexes what the file holds", () => {
    _write(_session("quokka", Date.UTC(2026, 0, 1)));
    expect(found("quokka")).toBeGreaterThan(0);
    const session = _session("wombat", Date.UTC(2026, 0, 2));
    _write(session);
    const other = {
      ...loadSession(session.id),
      messages: [{ role: "user", content: "the zebra stall" }],
    };
    writeFileSync(paths.session(session.id), JSON.stringify(other));
    indexSavedTranscripts({ sessionId: session.id, runIds: [] });
    expect(found("zebra")).toBe(1);
  });
});
