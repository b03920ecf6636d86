/**
 * Sessions: the record on disk round-trips exactly, autosave is debounced, ids resolve by prefix,
 * `-c` finds the newest session of a directory that no live process holds, corrupt files are
 * skipped with a notice, and leases keep one writer per session across processes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../lib/platform/errors.ts";
import { paths } from "../../lib/platform/paths.ts";
import type { Message } from "../../lib/messages.ts";
import { writeJsonAtomic } from "../../lib/state-file/json-file.ts";
import { appendExchange, createSession, historyForResume, deriveTitle, type SessionRecord } from "../../lib/store/session-record.ts";
import { readSessionHead } from "../../lib/store/session-head.ts";
import { SAVE_DEBOUNCE_MS, findSession, listSessions, loadSession, newestForCwd, openSessionWriter, type SessionWriter } from "../../lib/store/sessions.ts";
import { createFakeTimers } from "../fakes/timers.ts";
import { formatLocalMinute, formatSessionLine } from "../../lib/ui/session-lines.ts";
import { findLeaseHolder, releaseLease, takeNewLease, tryLease } from "../../lib/store/session-lease.ts";
import { useTempHome } from "./temp-home.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "session-lease.ts");
const CWD = "/work/project-a";

/** Runs `test/fixtures/session-lease.ts <action> <sessionId> CWD` in another process, output piped, killed after 30 s. */
function _spawnFixture(action: "exit-open" | "probe" | "continue", sessionId: string) {
  return Bun.spawn({
    cmd: [process.execPath, FIXTURE, action, sessionId, CWD],
    env: process.env,
    stdout: "pipe",
    stderr: "pipe",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
}

const openWriters: SessionWriter[] = [];

// Registered first, so the writers flush into the temp home before it is removed.
afterEach(() => {
  for (const writer of openWriters.splice(0)) writer.close();
});
useTempHome("shiro-sessions-");

function open(session: SessionRecord, options?: Parameters<typeof openSessionWriter>[1]): SessionWriter {
  const writer = openSessionWriter(session, options);
  openWriters.push(writer);
  return writer;
}

/** Saves a session with the given id and cwd, its file stamped `minutesAgo` in the past. */
function saveAt(id: string, cwd: string, minutesAgo: number, title = `session ${id}`): SessionRecord {
  const at = new Date(Date.UTC(2025, 5, 1, 12, 0) - minutesAgo * 60_000).toISOString();
  const session: SessionRecord = { ...createSession({ cwd, provider: "openai", model: "gpt-test" }), id, title, createdAt: at, updatedAt: at };
  writeJsonAtomic(paths.session(id), session);
  const seconds = Date.UTC(2025, 5, 1, 12, 0) / 1000 - minutesAgo * 60;
  utimesSync(paths.session(id), seconds, seconds);
  return session;
}

const transcript: Message[] = [
  { role: "user", content: "why does the pagination test fail?" },
  {
    role: "assistant",
    parts: [
      { type: "reasoning", text: "look at the test", protocol: "anthropic", signature: "sig-1" },
      { type: "text", text: "Let me read it." },
      { type: "tool-call", id: "toolu_1", name: "read_file", input: { path: "test/page.test.ts" } },
    ],
  },
  { role: "tool", results: [{ type: "tool-result", callId: "toolu_1", name: "read_file", output: "no such file", isError: true }] },
  {
    role: "assistant",
    parts: [
      { type: "reasoning", text: "", protocol: "openai-responses", itemId: "rs_1", encryptedContent: "enc", summary: ["s"] },
      { type: "text", text: "The file is missing." },
    ],
  },
];

describe("the session record", () => {
  test("save and load round-trip every message shape, the task list, exchanges and the compaction field", () => {
    const session = createSession({ cwd: CWD, provider: "anthropic", model: "claude-test" });
    const writer = open(session);
    session.messages.push(...transcript);
    session.notebook.todos = [
      { content: "read the test", status: "done" },
      { content: "fix it", status: "in_progress", note: "boundary" },
    ];
    session.inputTokens = 1200;
    session.outputTokens = 80;
    session.costUsd = 0.0123;
    session.compaction = { spans: [{ from: 0, to: 2, createdAt: "2025-01-01T00:00:00.000Z" }], future: true };
    appendExchange(session, {
      query: "why does the pagination test fail?",
      answer: "The file is missing.",
      status: "completed",
      steps: 2,
      runId: "run-1",
      at: "2025-06-01T10:00:00.000Z",
      toolsSummary: "read_file×1",
    });
    writer.save();
    const text = readFileSync(paths.session(session.id), "utf8");
    expect(text.startsWith('{\n  "version": 1,\n  "id": ')).toBe(true);
    expect(statSync(paths.session(session.id)).mode & 0o777).toBe(0o600);
    expect(loadSession(session.id)).toEqual(session);
    expect(session.title).toBe("why does the pagination test fail?");
  });

  test("titles: the first prompt on one line, cut past 60 characters, else untitled", () => {
    expect(deriveTitle("  fix\nthe   build ")).toBe("fix the build");
    expect(deriveTitle("x".repeat(60))).toBe("x".repeat(60));
    expect(deriveTitle("y".repeat(61))).toBe(`${"y".repeat(60)}...`);
    expect(deriveTitle(undefined)).toBe("untitled");
    const empty = createSession({ cwd: CWD, provider: "p", model: "m" });
    open(empty).save();
    expect(loadSession(empty.id).title).toBe("untitled");
  });

  test("unknown fields on messages are kept; a record from a newer shiro is refused with a reason", () => {
    const session = saveAt("0190aaaa-0000-7000-8000-000000000001", CWD, 1);
    const raw = JSON.parse(readFileSync(paths.session(session.id), "utf8"));
    raw.messages = [{ role: "user", content: "hi", providerMetadata: { a: 1 } }];
    writeFileSync(paths.session(session.id), JSON.stringify(raw));
    expect(loadSession(session.id).messages).toEqual([{ role: "user", content: "hi", providerMetadata: { a: 1 } }] as unknown as Message[]);
    writeFileSync(paths.session(session.id), JSON.stringify({ ...raw, version: 2 }));
    expect(() => loadSession(session.id)).toThrow(
      new UserError("session 0190aaaa cannot be read: written by a newer shiro (format version 2, this one reads up to 1)"),
    );
  });
});

describe("debounced autosave", () => {
  test("a tight burst of 200 changes is one write, after the debounce; flush writes only what is pending", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    const timers = createFakeTimers();
    const written: string[] = [];
    const writer = open(session, {
      timers,
      write: (record) => {
        written.push(JSON.stringify(record.messages));
        writeJsonAtomic(paths.session(record.id), record);
      },
    });
    for (let i = 0; i < 200; i++) {
      session.messages.push({ role: "user", content: `change ${i}` });
      writer.markChanged();
    }
    expect([written.length, timers.pending, existsSync(paths.session(session.id))]).toEqual([0, 1, false]);
    timers.advance(SAVE_DEBOUNCE_MS - 1);
    expect(written.length).toBe(0);
    timers.advance(1);
    expect(written.map((messages) => JSON.parse(messages).length)).toEqual([200]);
    expect(writer.flush()).toBe(false);
    session.messages.push({ role: "user", content: "last change" });
    writer.markChanged();
    expect(writer.flush()).toBe(true);
    expect(written.length).toBe(2);
    expect(loadSession(session.id).messages.length).toBe(201);
    // The flush cancelled the pending debounce: nothing is left to fire.
    expect(timers.pending).toBe(0);
    timers.advance(10 * SAVE_DEBOUNCE_MS);
    expect(written.length).toBe(2);
  });

  test("changes spread over a second are written once per window, when the window closes", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    const timers = createFakeTimers();
    const stamps: number[] = [];
    const writer = open(session, {
      timers,
      write: (record) => {
        stamps.push(timers.now);
        writeJsonAtomic(paths.session(record.id), record);
      },
    });
    for (let i = 0; i < 200; i++) {
      session.messages.push({ role: "user", content: `change ${i}` });
      writer.markChanged();
      timers.advance(5);
    }
    timers.advance(SAVE_DEBOUNCE_MS);
    // A window opens at the first change after a write and closes SAVE_DEBOUNCE_MS later.
    expect(stamps).toEqual([400, 800, 1200]);
    expect(loadSession(session.id).messages.length).toBe(200);
  });

  test("a failed debounced save is reported and stays pending for the next save", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    const timers = createFakeTimers();
    const errors: string[] = [];
    let failNext = true;
    const writer = open(session, {
      timers,
      onError: (error) => errors.push(error.message),
      write: (record) => {
        if (failNext) {
          failNext = false;
          throw new Error("ENOSPC: no space left on device");
        }
        writeJsonAtomic(paths.session(record.id), record);
      },
    });
    session.messages.push({ role: "user", content: "keep me" });
    writer.markChanged();
    timers.advance(SAVE_DEBOUNCE_MS);
    expect(errors).toEqual(["ENOSPC: no space left on device"]);
    expect(existsSync(paths.session(session.id))).toBe(false);
    expect(writer.flush()).toBe(true);
    expect(loadSession(session.id).messages).toEqual([{ role: "user", content: "keep me" }]);
  });

  test("close flushes, releases the lease and refuses later changes", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    const writer = openSessionWriter(session);
    expect(existsSync(paths.sessionLease(session.id))).toBe(true);
    session.messages.push({ role: "user", content: "hello" });
    writer.markChanged();
    writer.close();
    expect(loadSession(session.id).messages).toEqual([{ role: "user", content: "hello" }]);
    expect(existsSync(paths.sessionLease(session.id))).toBe(false);
    expect(() => writer.markChanged()).toThrow("its writer takes no more changes");
    expect(() => writer.save()).toThrow("its writer takes no more changes");
    writer.close();
  });

  test("a process that exits with its writer open still saves the session and drops its lease", async () => {
    const session = saveAt("0190bbbb-0000-7000-8000-000000000001", CWD, 5);
    const child = _spawnFixture("exit-open", session.id);
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(loadSession(session.id).messages).toEqual([{ role: "user", content: "added by a process that never closed its writer" }]);
    expect(existsSync(paths.sessionLease(session.id))).toBe(false);
  });
});

describe("finding sessions", () => {
  test("an exact id, a unique prefix among the newest 100, or a clear error", () => {
    saveAt("0190aaaa-1111-7000-8000-000000000001", CWD, 3);
    saveAt("0190aaab-1111-7000-8000-000000000001", CWD, 2);
    saveAt("0190cccc-1111-7000-8000-000000000001", CWD, 1);
    expect(findSession("0190aaab").id).toBe("0190aaab-1111-7000-8000-000000000001");
    expect(findSession("0190CCCC-1111-7000-8000-000000000001").id).toBe("0190cccc-1111-7000-8000-000000000001");
    expect(() => findSession("0190aaa")).toThrow(new UserError('"0190aaa" matches 2 sessions; give more characters'));
    expect(() => findSession("0190ffff")).toThrow(new UserError('no session matching "0190ffff"'));
    expect(() => findSession("../../config")).toThrow(new UserError('no session matching "../../config"'));
  });

  test("a prefix finds a session however old: printed ids are unique among all saved sessions", () => {
    saveAt("0190dddd-0000-7000-8000-000000000000", CWD, 500);
    for (let i = 0; i < 100; i++) saveAt(`0191${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`, CWD, 100 - i);
    expect(findSession("0190dddd").id).toBe("0190dddd-0000-7000-8000-000000000000");
    expect(() => findSession("0191")).toThrow(new UserError('"0191" matches 100 sessions; give more characters'));
    expect(findSession("0190dddd-0000-7000-8000-000000000000").id).toBe("0190dddd-0000-7000-8000-000000000000");
  });

  test("listing: newest first, 15 at most, corrupt files skipped with a notice, no folder means empty", () => {
    expect(listSessions()).toEqual({ sessions: [], notices: [] });
    for (let i = 0; i < 17; i++) saveAt(`0192${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`, CWD, 100 - i);
    mkdirSync(paths.sessionsDir(), { recursive: true });
    writeFileSync(paths.session("0193bad0-0000-7000-8000-000000000000"), '{"version": 1, "id": ');
    const { sessions, notices } = listSessions();
    expect(sessions.map((summary) => summary.id.slice(0, 8))).toEqual(Array.from({ length: 15 }, (_, i) => `0192${String(16 - i).padStart(4, "0")}`));
    expect(notices.length).toBe(1);
    expect(notices[0]).toStartWith(`skipped session file ${paths.session("0193bad0-0000-7000-8000-000000000000")}: not valid JSON`);
    expect(formatSessionLine(sessions[0]!)).toBe(`01920016  ${formatLocalMinute(sessions[0]!.updatedAt)}  0msg  session 01920016-0000-7000-8000-000000000000`);
  });

  test("a listed id is as long as -r needs: sessions made within a minute share their first 8 characters", () => {
    const first = saveAt("0190aaaa-1111-7000-8000-000000000001", CWD, 2, "first");
    const second = saveAt("0190aaaa-1122-7000-8000-000000000001", CWD, 1, "second");
    const alone = saveAt("0190bbbb-1111-7000-8000-000000000001", CWD, 0, "alone");
    const lines = listSessions().sessions.map(formatSessionLine);
    expect(lines).toEqual([
      `0190bbbb  ${formatLocalMinute(alone.updatedAt)}  0msg  alone`,
      `0190aaaa-112  ${formatLocalMinute(second.updatedAt)}  0msg  second`,
      `0190aaaa-111  ${formatLocalMinute(first.updatedAt)}  0msg  first`,
    ]);
    for (const [line, session] of [
      [lines[1]!, second],
      [lines[2]!, first],
    ] as const)
      expect(findSession(line.split(" ")[0]!).id).toBe(session.id);
  });

  test("newestForCwd picks the newest session of that directory by updatedAt", () => {
    saveAt("0190aaaa-2222-7000-8000-000000000001", CWD, 30);
    saveAt("0190bbbb-2222-7000-8000-000000000001", CWD, 20);
    saveAt("0190cccc-2222-7000-8000-000000000001", "/work/project-b", 10);
    expect(newestForCwd(CWD)).toEqual({ session: loadSession("0190bbbb-2222-7000-8000-000000000001"), live: [], notices: [] });
    expect(newestForCwd("/work/elsewhere")).toEqual({ live: [], notices: [] });
  });
});

describe("-c reads each recent session's head, not the whole file", () => {
  test("the head gives the very cwd and updatedAt the record holds, odd characters and a large body included", () => {
    const cwd = '/work/"odd" dir\\x/ü';
    const session = saveAt("0190dddd-1111-7000-8000-000000000001", cwd, 5);
    const long = {
      ...loadSession(session.id),
      messages: Array.from({ length: 300 }, (_, i): Message => ({ role: "user", content: `message ${i} ${"x".repeat(200)}` })),
    };
    writeJsonAtomic(paths.session(session.id), long);
    expect(readSessionHead(paths.session(session.id))).toEqual({ cwd, updatedAt: session.updatedAt });
    expect(newestForCwd(cwd).session).toEqual(loadSession(session.id));
  });

  test("a file whose head does not show both (compact JSON, keys after the messages) is read whole, with the same answer", () => {
    const compact = { ...createSession({ cwd: CWD, provider: "openai", model: "gpt-test" }), id: "0190eeee-1111-7000-8000-000000000001" };
    mkdirSync(paths.sessionsDir(), { recursive: true });
    writeFileSync(paths.session(compact.id), JSON.stringify(compact));
    const { cwd, updatedAt, ...rest } = { ...createSession({ cwd: CWD, provider: "openai", model: "gpt-test" }), id: "0190eeee-2222-7000-8000-000000000001" };
    const reordered = { ...rest, messages: [{ role: "user", content: "y".repeat(5_000) }], cwd, updatedAt: "2020-01-01T00:00:00.000Z" };
    writeFileSync(paths.session(reordered.id), JSON.stringify(reordered, null, 2));
    expect([readSessionHead(paths.session(compact.id)), readSessionHead(paths.session(reordered.id))]).toEqual([undefined, undefined]);
    expect(newestForCwd(CWD).session?.id).toBe(compact.id);
    rmSync(paths.session(compact.id));
    expect(newestForCwd(CWD).session?.id).toBe(reordered.id);
  });
});

describe("leases", () => {
  test("a second process sees the lease: it cannot take it, and -c skips to the next session", async () => {
    const older = saveAt("0190aaaa-3333-7000-8000-000000000001", CWD, 30);
    const newer = saveAt("0190bbbb-3333-7000-8000-000000000001", CWD, 20);
    open(loadSession(newer.id));
    const child = _spawnFixture("probe", newer.id);
    const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const probe = JSON.parse(stdout);
    expect(probe).toEqual({ lease: { ok: false, pid: process.pid, since: probe.lease.since }, newest: older.id, live: [newer.id] });
    expect(existsSync(paths.sessionLease(newer.id))).toBe(true);
  });

  test("-r of a session held by a live process is refused", async () => {
    const session = saveAt("0190aaaa-4444-7000-8000-000000000001", CWD, 10);
    saveAt("0190aaaa-4455-7000-8000-000000000001", CWD, 5);
    const holder = Bun.spawn({ cmd: ["sleep", "20"], timeout: 30_000, killSignal: "SIGKILL" });
    try {
      writeFileSync(paths.sessionLease(session.id), JSON.stringify({ pid: holder.pid, since: "2025-06-01T12:00:00.000Z" }));
      expect(findLeaseHolder(session.id)).toEqual({ pid: holder.pid, since: "2025-06-01T12:00:00.000Z" });
      expect(() => openSessionWriter(loadSession(session.id))).toThrow(
        new UserError(`session 0190aaaa-444 is in use by process ${holder.pid}; try again once that process has ended`),
      );
      expect(newestForCwd(CWD)).toEqual({
        session: loadSession("0190aaaa-4455-7000-8000-000000000001"),
        live: [],
        notices: [],
      });
      rmSync(paths.session("0190aaaa-4455-7000-8000-000000000001"));
      expect(newestForCwd(CWD)).toEqual({ live: [{ id: session.id, pid: holder.pid, since: "2025-06-01T12:00:00.000Z" }], notices: [] });
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("-c claims the session it picks, so another process can no longer take it", async () => {
    const session = saveAt("0190aaaa-6666-7000-8000-000000000001", CWD, 10);
    expect(newestForCwd(CWD).session?.id).toBe(session.id);
    const child = _spawnFixture("probe", session.id);
    const [code, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    expect(code).toBe(0);
    const probe = JSON.parse(stdout);
    expect(probe).toEqual({ lease: { ok: false, pid: process.pid, since: probe.lease.since }, newest: null, live: [session.id] });
    open(loadSession(session.id));
  });

  test("six -c at once: one continues the session, the others skip it as live, none fails", async () => {
    const session = saveAt("0190aaaa-7777-7000-8000-000000000001", CWD, 10);
    const children = Array.from({ length: 6 }, () => _spawnFixture("continue", session.id));
    const results = await Promise.all(
      children.map(async (child) => {
        const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
        return { code, stderr, report: JSON.parse(stdout || "null") as { picked: string | null; live: string[] } | null };
      }),
    );
    expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual(Array.from({ length: 6 }, () => ({ code: 0, stderr: "" })));
    const picked = results.filter(({ report }) => report?.picked === session.id);
    expect(picked.length).toBeGreaterThanOrEqual(1);
    // Each one that did not get it saw it held; whoever picked it held it alone at that moment.
    for (const { report } of results) if (report?.picked === null) expect(report.live).toEqual([session.id]);
    expect(existsSync(paths.sessionLease(session.id))).toBe(false);
  });

  test("a lease left by a dead process is taken over", () => {
    const session = saveAt("0190aaaa-5555-7000-8000-000000000001", CWD, 10);
    const dead = spawnSync("true");
    expect(dead.status).toBe(0);
    writeFileSync(paths.sessionLease(session.id), JSON.stringify({ pid: dead.pid, since: "2025-06-01T12:00:00.000Z" }));
    expect(findLeaseHolder(session.id)).toBeUndefined();
    expect(tryLease(session.id)).toEqual({ ok: true });
    expect(JSON.parse(readFileSync(paths.sessionLease(session.id), "utf8")).pid).toBe(process.pid);
    releaseLease(session.id);
    expect(existsSync(paths.sessionLease(session.id))).toBe(false);
  });

  test("a new session's lease is created without the lock; a file already there is judged as tryLease judges it", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    expect(takeNewLease(session.id)).toEqual({ ok: true });
    expect(JSON.parse(readFileSync(paths.sessionLease(session.id), "utf8")).pid).toBe(process.pid);
    expect(existsSync(`${paths.sessionLease(session.id)}.lock`)).toBe(false);
    releaseLease(session.id);
    // A dead holder's lease is taken over; a live holder's refuses, as for any session.
    const dead = spawnSync("true");
    writeFileSync(paths.sessionLease(session.id), JSON.stringify({ pid: dead.pid, since: "2025-06-01T12:00:00.000Z" }));
    expect(takeNewLease(session.id)).toEqual({ ok: true });
    releaseLease(session.id);
    writeFileSync(paths.sessionLease(session.id), JSON.stringify({ pid: process.ppid, since: "2025-06-01T12:00:00.000Z" }));
    expect(takeNewLease(session.id)).toEqual({ ok: false, pid: process.ppid, since: "2025-06-01T12:00:00.000Z" });
    rmSync(paths.sessionLease(session.id));
  });

  test("one writer per session within a process, too", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    open(session);
    expect(() => openSessionWriter(session)).toThrow(`session ${session.id.slice(0, 8)} already has a writer in this process`);
  });
});

describe("exchanges and resume", () => {
  function withExchanges(): SessionRecord {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    session.messages.push(...transcript);
    appendExchange(session, { query: "first question", answer: "first answer", status: "completed", steps: 1, runId: "r1" });
    appendExchange(session, { query: "second question", answer: "second answer", status: "completed", steps: 3, runId: "r2" });
    appendExchange(session, { query: "third question", answer: "", status: "aborted", steps: 1, runId: "r3" });
    return session;
  }

  test("historyPairs 0 resumes the full transcript", () => {
    const session = withExchanges();
    expect(historyForResume(session, 0)).toBe(session.messages);
  });

  test("historyPairs N resumes the last N exchanges as plain user/assistant pairs", () => {
    expect(historyForResume(withExchanges(), 2)).toEqual([
      { role: "user", content: "second question" },
      { role: "assistant", parts: [{ type: "text", text: "second answer" }] },
      { role: "user", content: "third question" },
      { role: "assistant", parts: [{ type: "text", text: "(this turn ended as aborted before any answer)" }] },
    ]);
  });

  test("a session without exchanges resumes its transcript whatever historyPairs says", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    session.messages.push(...transcript);
    expect(historyForResume(session, 3)).toBe(session.messages);
  });

  test("appendExchange stamps the time when none is given", () => {
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    const exchange = appendExchange(session, { query: "q", answer: "a", status: "max-steps", steps: 40, runId: "r" });
    expect(session.exchanges).toEqual([{ query: "q", answer: "a", status: "max-steps", steps: 40, runId: "r", at: exchange.at }]);
    expect(Number.isNaN(Date.parse(exchange.at))).toBe(false);
  });
});

describe("sessions show's usage", () => {
  test("splits the parent's and the subagents' share as /cost does; no split while no subagent ran", async () => {
    const { renderSessionDetails } = await import("../../lib/ui/session-details.ts");
    const session = createSession({ cwd: CWD, provider: "p", model: "m" });
    Object.assign(session, { inputTokens: 1500, outputTokens: 150, costUsd: 0.03, subagents: { inputTokens: 1000, outputTokens: 100, costUsd: 0.02 } });
    const lines = renderSessionDetails(session).split("\n");
    expect(lines.slice(lines.indexOf("tokens    1500 in, 150 out"), lines.indexOf("tokens    1500 in, 150 out") + 4)).toEqual([
      "tokens    1500 in, 150 out",
      "cost      $0.0300",
      "  this agent: 500 in / 50 out, $0.0100",
      "  subagents: 1000 in / 100 out, $0.02",
    ]);
    delete session.subagents;
    expect(renderSessionDetails(session)).not.toContain("subagents:");
  });
});
