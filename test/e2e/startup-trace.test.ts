/**
 * SHIRO_TRACE_STARTUP=1: one JSON line of phase marks on stderr when the first request leaves,
 * through the compiled binary; without it, stderr carries no such line; either way one request per run.
 */
import { describe, expect, test } from "bun:test";
import { useE2E } from "./_harness.ts";

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
    const { marks, phases } = lines[0]!;
    expect([Object.keys(marks), Object.keys(phases)]).toEqual([PHASES, PHASES]);
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
});
