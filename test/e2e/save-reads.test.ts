/**
 * What saving a plain `-p` turn reads in a long history, through the binary (strace): the saved
 * line's short id comes from the register of recent ids (lib/store/short-ids.ts), so neither the
 * sessions nor the runs folder is listed, and the id printed is the shortest prefix
 * unique among every stored session and run, as a listing of both folders tells; the transcript
 * index's manifest is read once, not again by the append under its lock.
 */
import { describe, expect } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findOnPath, hostPackage, hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";

const e2e = useE2E();
const STRACE = hostPackage("strace", "apt-get install -y strace", _straceWorks(), "strace is not on PATH or cannot trace here");
const SESSIONS = 120;

describe("saving a plain turn in a long history", () => {
  hostTest(
    STRACE,
    "lists neither the sessions nor the runs folder, and prints the short id a listing of both gives",
    async () => {
      _writeHistory(e2e.dirs.home, e2e.dirs.cwd);
      e2e.fake.respond(() => ({ text: "hi" }));
      // The first search builds the transcript index: a turn then reads its manifest, not the folders.
      expect((await e2e.shiro(["search", "login redirect"])).code).toBe(0);
      expect((await e2e.shiro(["-p", "hi"])).code).toBe(0);

      const state = join(e2e.dirs.home, ".shiro-neko");
      const trace = join(e2e.dirs.home, "strace.txt");
      // Without memory: a prompt's memory section may list the folders for its own lines; the save must not.
      const { code, stderr } = await _traced(trace, ["--no-memory", "-p", "hi"]);
      expect(code).toBe(0);
      const lines = readFileSync(trace, "utf8").split("\n");
      const listed = lines
        .filter((line) => line.includes("O_DIRECTORY"))
        .flatMap((line) => /"([^"]+)"/.exec(line)?.slice(1) ?? [])
        .filter((path) => path.startsWith(state))
        .map((path) => path.slice(state.length + 1));
      expect(listed.filter((path) => path === "sessions" || path === "runs")).toEqual([]);
      // The transcript index's manifest is read once: the saver's append takes that read again while its stamp holds.
      const manifestReads = lines.filter((line) => line.includes('/search/transcripts.index/manifest.json"') && line.includes("O_RDONLY"));
      expect(manifestReads.length).toBe(1);

      const short = /shiro: session (\S+) saved/.exec(stderr)?.[1];
      const stored = ["sessions", "runs"].flatMap((dir) =>
        readdirSync(join(state, dir))
          .filter((name) => name.endsWith(".json"))
          .map((name) => name.slice(0, -".json".length)),
      );
      const saved = stored.find((id) => short !== undefined && id.startsWith(short) && existsSync(join(state, "sessions", `${id}.json`)));
      expect(saved).toBeDefined();
      expect(short).toBe(_bruteForce(saved!, stored));
    },
    240_000,
  );
});

function _bruteForce(id: string, accepted: readonly string[], min = 8): string {
  for (let length = min; length <= id.length; length++) {
    const prefix = id.slice(0, length);
    if (prefix.endsWith("-")) continue;
    if (!accepted.some((other) => other !== id && other.startsWith(prefix))) return prefix;
  }
  return id;
}

/** Runs the binary under strace (file and descriptor calls) in this test's folders. */
async function _traced(out: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const env = binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat"));
  let stderr = "";
  // Not spawnSync: the fake provider answers from this process's event loop.
  const code = await new Promise<number | null>((resolvePromise) => {
    const child = spawn("strace", ["-f", "-qq", "-e", "trace=%file,%desc", "-o", out, ensureBinary(), ...args], {
      cwd: e2e.dirs.cwd,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (status) => resolvePromise((clearTimeout(timer), status)));
  });
  return { code, stderr };
}

/** SESSIONS sessions (two runs and episodes each) and 30 notes, written by the stores' own code in a child process. */
function _writeHistory(home: string, project: string): void {
  const script = join(home, "history.ts");
  const history = join(import.meta.dir, "..", "bench", "_history.ts");
  writeFileSync(
    script,
    `const { writeHistory, YEAR_OF_HISTORY } = await import(${JSON.stringify(history)});\nwriteHistory(${JSON.stringify(project)}, { ...YEAR_OF_HISTORY, sessions: ${SESSIONS}, notes: 30 });\n`,
  );
  const made = spawnSync(process.execPath, [script], { env: { ...process.env, SHIRO_HOME: home }, encoding: "utf8", timeout: 120_000 });
  if (made.status !== 0) throw new Error(`writing the history failed:\n${made.stderr}`);
}

/** strace is on PATH and can trace a child here (a container may refuse ptrace). */
function _straceWorks(): boolean {
  if (findOnPath("strace") === undefined) return false;
  return spawnSync("strace", ["-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "true"], { timeout: 10_000 }).status === 0;
}
