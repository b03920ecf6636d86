/**
 * Search and recall answer from the on-disk indexes in a long history, through the binary: what
 * each one opens under the state folder is counted with strace (open, stat and read calls).
 * - `shiro search` reads the episodes file only when an episode is among the results it prints,
 *   and opens only the sessions and runs of its candidate hits.
 * - A `-p` turn that calls `recall` checks no file of the sessions and events folders: the
 *   transcript index is taken as saved although the run's own lease, session and log moved the
 *   folders' stamps, and only the sessions whose passages the answer quotes are opened.
 */
import { describe, expect } from "bun:test";
import { join } from "node:path";
import { hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";
import { runTraced, STRACE, writeHistoryHome, traceLines } from "./_traced.ts";

const e2e = useE2E();
const QUERY = "login redirect broken";
const RECALL_PROMPT = "use recall for the login redirect";
const SESSIONS = 120;

/** The calls a traced run made on paths under the state folder: [syscall, path relative to it]. */
interface Traced {
  code: number | null;
  stdout: string;
  calls: [string, string][];
}

describe("search and recall in a long history", () => {
  hostTest(
    STRACE,
    "search opens the episodes file only to print an episode; a recall turn checks no history file",
    async () => {
      writeHistoryHome(e2e.dirs.home, e2e.dirs.cwd, SESSIONS);
      e2e.fake.respond((request) => {
        const last = request.body.messages.at(-1) as { role: string; content?: unknown };
        if (last.role === "tool") return { text: "Found it." };
        if (JSON.stringify(last.content ?? "").includes(RECALL_PROMPT)) return { toolCalls: [{ name: "recall", input: { query: QUERY } }] };
        return { text: "hi" };
      });
      // The first search builds the indexes; a plain turn saves a session the way every turn does.
      expect((await e2e.shiro(["search", QUERY])).code).toBe(0);
      expect((await e2e.shiro(["-p", "hi"])).code).toBe(0);

      const episodesFile = (path: string) => /\.episodes\.jsonl?$/.test(path);
      const historyFile = (path: string) => /^(sessions|events|runs)\/[^/]+\.(json|jsonl)$/.test(path);

      const search = await _traced(["search", QUERY, "--json"]);
      const hits = JSON.parse(search.stdout) as { kind: string; id: string }[];
      expect([search.code, hits.length, hits.filter((hit) => hit.kind === "episode")]).toEqual([0, 20, []]);
      // A stat tells the recall index whether the file changed; nothing opens it.
      expect(search.calls.filter(([call, path]) => episodesFile(path) && !/stat/.test(call))).toEqual([]);
      // Each printed hit's source, and no more than the 40 candidates' sources: never the whole history.
      const opened = new Set(search.calls.filter(([call, path]) => call === "openat" && historyFile(path)).map(([, path]) => path));
      expect(opened.size).toBeGreaterThan(0);
      expect(opened.size).toBeLessThanOrEqual(3 * 40);

      const memory = await _traced(["search", QUERY, "--memory", "--limit", "3", "--json"]);
      const shown = JSON.parse(memory.stdout) as { kind: string }[];
      expect([memory.code, shown.some((hit) => hit.kind === "episode")]).toEqual([0, true]);
      expect(memory.calls.some(([call, path]) => call === "openat" && episodesFile(path))).toBe(true);

      const turn = await _traced(["-p", RECALL_PROMPT]);
      expect(turn.code).toBe(0);
      const recalled = String(e2e.fake.requests.at(-1)!.body.messages.at(-1)!.content);
      expect(recalled).toContain("episode ");
      // The run's own files (its lease, session, snapshot and log) are what it wrote, renamed or removed.
      const own = new Set(turn.calls.filter(([call]) => /^(write|pwrite64|rename|renameat2?|unlink|fsync)$/.test(call)).map(([, path]) => path));
      const ownIds = [...own].flatMap((path) => /([0-9a-f]{8}-[0-9a-f-]{27})/.exec(path)?.slice(1) ?? []);
      const others = (path: string) => historyFile(path) && !ownIds.some((id) => path.includes(id));
      const touched = new Set(turn.calls.filter(([call, path]) => /stat|open/.test(call) && others(path)).map(([, path]) => path));
      // At most the session of each result line (recall's default limit is 8), and no other history file.
      expect(touched.size).toBeGreaterThan(0);
      expect(touched.size).toBeLessThanOrEqual(8);
      expect([...touched].filter((path) => !path.startsWith("sessions/"))).toEqual([]);
    },
    240_000,
  );
});

/** Runs the binary under strace in this test's folders; the calls on paths in the state folder. */
async function _traced(args: string[]): Promise<Traced> {
  const out = join(e2e.dirs.home, `strace-${Date.now()}.txt`);
  const { code, stdout } = await runTraced(ensureBinary(), args, { cwd: e2e.dirs.cwd, env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")), out });
  const state = `${join(e2e.dirs.home, ".shiro-neko")}/`;
  const calls: [string, string][] = [];
  for (const line of traceLines(out)) {
    const call = /^\d+\s+(\w+)\(/.exec(line)?.[1];
    if (!call) continue;
    for (let at = line.indexOf(state); at >= 0; at = line.indexOf(state, at + state.length))
      calls.push([call, line.slice(at + state.length).split(/["<>]/)[0]!]);
  }
  return { code, stdout, calls };
}
