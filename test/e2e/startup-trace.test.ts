/**
 * SHIRO_TRACE_STARTUP=1: one JSON line of phase marks on stderr when the first request leaves,
 * through the compiled binary; without it, stderr carries no such line; either way one request per run.
 * And the path to a plain answer starts no program at all in an empty home (strace counts the execs).
 */
import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findOnPath, hostPackage, hostTest } from "../host-packages.ts";
import { binaryEnv, ensureBinary, fakeEnv, useE2E } from "./_harness.ts";

const e2e = useE2E();
const PHASES = ["config", "tools", "memory", "prompt", "connect"];

function _traceLines(stderr: string): Record<string, any>[] {
  return stderr
    .split("\n")
    .filter((line) => line.includes('"startup-trace"'))
    .map((line) => JSON.parse(line));
}

describe("startup trace", () => {
  test("set: one line with every phase, marks rising, phases summing to the last mark; unset: no line", async () => {
    e2e.fake.respond(() => ({ text: "hi" }));
    const traced = await e2e.shiro(["-p", "hi"], { env: { SHIRO_TRACE_STARTUP: "1" } });
    expect(traced.code).toBe(0);
    const lines = _traceLines(traced.stderr);
    expect(lines.length).toBe(1);
    const { marks, phases, cpu } = lines[0]!;
    expect([Object.keys(marks), Object.keys(phases), Object.keys(cpu)]).toEqual([PHASES, PHASES, PHASES]);
    expect(PHASES.filter((phase) => !(cpu[phase] >= 0))).toEqual([]);
    const times = PHASES.map((phase) => marks[phase] as number);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const sum = PHASES.reduce((total, phase) => total + (phases[phase] as number), 0);
    expect(Math.abs(sum - marks.connect)).toBeLessThan(0.5);
    expect(traced.stdout).toBe("hi\n");

    for (const value of ["", "0", "true"]) {
      const plain = await e2e.shiro(["-p", "hi"], { env: { SHIRO_TRACE_STARTUP: value } });
      expect([plain.code, _traceLines(plain.stderr), plain.stdout]).toEqual([0, [], "hi\n"]);
    }
    // One request per run, the trace adding none (later runs' prompts carry the earlier episodes).
    expect(e2e.fake.requests.map((request) => request.body.messages.at(-1))).toEqual(Array(4).fill({ role: "user", content: "hi" }));
  }, 120_000);

  hostTest(
    hostPackage("strace", "apt-get install -y strace", _straceWorks(), "strace is not on PATH or cannot trace here"),
    "a plain answer in an empty home starts no program: no sandbox probe, no helper",
    async () => {
      e2e.fake.respond(() => ({ text: "hi" }));
      const out = join(e2e.dirs.home, "execs.txt");
      const env = binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat"));
      // Not spawnSync: the fake provider answers from this process's event loop.
      const code = await new Promise<number | null>((resolvePromise) => {
        const child = spawn("strace", ["-f", "-qq", "-e", "trace=execve", "-o", out, ensureBinary(), "-p", "hi"], { cwd: e2e.dirs.cwd, env, stdio: "ignore" });
        const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
        child.on("close", (status) => resolvePromise((clearTimeout(timer), status)));
      });
      const execs = (existsSync(out) ? readFileSync(out, "utf8").split("\n") : []).filter((line) => line.includes("execve(") && / = 0$/.test(line));
      // The one exec is shiro itself.
      expect([code, execs.length, execs[0]?.includes(ensureBinary())]).toEqual([0, 1, true]);
      expect(e2e.fake.requests.length).toBe(1);
    },
    90_000,
  );
});

/** strace is on PATH and can trace a child here (a container may refuse ptrace). */
function _straceWorks(): boolean {
  if (findOnPath("strace") === undefined) return false;
  return spawnSync("strace", ["-f", "-qq", "-e", "trace=execve", "-o", "/dev/null", "true"], { timeout: 10_000 }).status === 0;
}
