/**
 * What a plain turn touches in its history before its first model request, through the binary:
 * every call strace sees on a path under the state folder (open, stat, read, list, write) up to
 * the request's bytes being sent to the fake provider. In a home of 40 sessions and in one of 120
 * (the same notes), a turn whose prompt matches nothing remembered makes the same calls on the
 * same files (ids aside): nothing on the way to the request is read, listed or stat'ed in
 * proportion to the history, and no history folder is listed before the request is sent (the
 * saved line's short id lists them while the answer streams). In a long history whose search index
 * was never built, the history census says it is long: only the first turn lists the folders. A
 * notes file, skills folder or subagents folder not there is learnt missing from its stat, never opened.
 */
import { describe, expect } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";
import { runTraced, STRACE, writeHistoryHome, traceLines } from "./_traced.ts";

const e2e = useE2E();
/** Matches no note, episode or passage of the generated history. */
const PROMPT = "xyzzy";
const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe("a plain turn before its first request", () => {
  hostTest(
    STRACE,
    "makes the same calls on the state folder with 40 and with 120 sessions, and lists no history folder",
    async () => {
      const calls: string[][] = [];
      for (const sessions of [40, 120]) {
        const home = _home(`h${sessions}`);
        writeHistoryHome(home, e2e.dirs.cwd, sessions);
        // The first search builds the indexes, the first turn the episode id list: a long-lived home has both.
        expect(await _run(home, ["search", "login redirect broken"])).toBe(0);
        expect(await _run(home, ["-p", "hi"])).toBe(0);
        expect(await _run(home, ["-p", "hi"])).toBe(0);
        const trace = join(home, "strace.txt");
        expect(await _run(home, ["-p", PROMPT], trace)).toBe(0);
        calls.push(_beforeRequest(trace, join(home, ".shiro-neko")));
      }
      const [small, large] = calls;
      expect(small!.length).toBeGreaterThan(0);
      expect(large!.filter((call) => /^getdents/.test(call))).toEqual([]);
      expect(large).toEqual(small!);
    },
    240_000,
  );

  hostTest(
    STRACE,
    "lists no history folder in a long history whose search index was never built, once a turn has counted it",
    async () => {
      const home = _home("unindexed");
      // 120 sessions leave 360 session and event files: too many to build the index from before a first request.
      writeHistoryHome(home, e2e.dirs.cwd, 120);
      const traces = [join(home, "first.txt"), join(home, "second.txt")];
      for (const trace of traces) expect(await _run(home, ["-p", PROMPT], trace)).toBe(0);
      const listed = traces.map((trace) => [...new Set(_beforeRequest(trace, join(home, ".shiro-neko")).filter((call) => /^getdents/.test(call)))]);
      // The first turn also builds the recall index (and lists its new folder).
      expect(listed[0]).toEqual(expect.arrayContaining(["getdents64 sessions", "getdents64 events"]));
      expect(listed[1]).toEqual([]);
      expect(existsSync(join(home, ".shiro-neko", "search", "transcripts.index"))).toBe(false);
    },
    240_000,
  );

  hostTest(
    STRACE,
    "in a fresh home, asks nothing of an index folder: nothing past to rank, no ranking",
    async () => {
      const home = _home("fresh");
      const trace = join(home, "strace.txt");
      expect(await _run(home, ["-p", "fix the login redirect"], trace)).toBe(0);
      const calls = _beforeRequest(trace, join(home, ".shiro-neko"));
      expect(calls.length).toBeGreaterThan(0);
      // Whether an index is there is asked (the transcript index's manifest, the recall index's folder); nothing is opened in or beside them.
      expect(calls.filter((call) => /search\/transcripts\.index($|\/(?!manifest\.json$))|memory\/[^/]*\.index\//.test(call))).toEqual([]);
    },
    90_000,
  );

  hostTest(
    STRACE,
    "opens no memory file, skills folder or subagents folder its stat found missing",
    async () => {
      const home = _home("noteless");
      expect(await _run(home, ["-p", "hi"])).toBe(0);
      const trace = join(home, "strace.txt");
      expect(await _run(home, ["-p", PROMPT], trace)).toBe(0);
      const memory = _beforeRequest(trace, join(home, ".shiro-neko")).filter((call) => /^\w+ memory\/.*\.json$/.test(call));
      // The project's, the agent's and the global notes: none written yet, each learnt missing from its stat.
      expect(memory.filter((call) => /^(statx|newfstatat|stat) /.test(call)).length).toBeGreaterThanOrEqual(3);
      expect(memory.filter((call) => /^(openat|open) /.test(call))).toEqual([]);
      // Nor is a skills or subagents folder that is not there (home and project: .claude/skills, .claude/agents, …).
      const lines = traceLines(trace);
      const sent = lines.findIndex((line) => /^\d+\s+(sendto|sendmsg|write|writev)\(\d+<(TCP|socket)/.test(line));
      const folders = lines.slice(0, sent).filter((line) => /\/(skills|agents)"/.test(line) && /ENOENT/.test(line));
      expect(folders.length).toBeGreaterThan(5);
      expect(folders.filter((line) => /^\d+\s+open(at)?\(/.test(line))).toEqual([]);
    },
    90_000,
  );
});

/** A new home folder under the test's temporary home, the fake answering "hi". */
function _home(name: string): string {
  e2e.fake.respond(() => ({ text: "hi" }));
  const home = join(e2e.dirs.home, name);
  mkdirSync(home, { recursive: true });
  return home;
}

/** Runs the binary in `home` (under strace into `trace` when given); its exit code. */
async function _run(home: string, args: string[], trace?: string): Promise<number | null> {
  const env = binaryEnv(home, fakeEnv(e2e.fake.baseURL, "chat"));
  return (await runTraced(ensureBinary(), args, { cwd: e2e.dirs.cwd, env, out: trace, trace: "%file,%desc,%network" })).code;
}

/** `<call> <path under the state folder>` for each traced call before the request's first send, ids and temp suffixes as placeholders. */
function _beforeRequest(trace: string, state: string): string[] {
  const lines = traceLines(trace);
  const sent = lines.findIndex((line) => /^\d+\s+(sendto|sendmsg|write|writev)\(\d+<(TCP|socket)/.test(line));
  expect(sent).toBeGreaterThan(0);
  const prefix = `${state}/`;
  const calls: string[] = [];
  for (const line of lines.slice(0, sent)) {
    const call = /^\d+\s+(\w+)\(/.exec(line)?.[1];
    const at = line.indexOf(prefix);
    if (!call || at < 0) continue;
    const path = line.slice(at + prefix.length).split(/["<>]/)[0]!;
    calls.push(`${call} ${path.replace(ID, "<id>").replace(/\.\d+\.\d+\.tmp$/, ".tmp")}`);
  }
  return calls;
}
