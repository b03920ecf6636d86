/**
 * Time from exec to the first model request: `dist/shiro -p "hi"` against the fake provider on
 * 127.0.0.1, measured at the fake when the request arrives, next to a bare compiled Bun binary's
 * whole run in the same session. The target: under 100 ms to the first request. Each run sets
 * SHIRO_TRACE_STARTUP=1, so the time is also split by phase (lib/agent/startup-trace.ts), in wall
 * and in processor time: medians.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryEnv, ensureBinary, fakeEnv } from "../e2e/_harness.ts";
import { startFakeProvider } from "../fakes/provider.ts";
import { buildBareBinary, median } from "./baseline.ts";

const RUNS = 15;

function _timeExit(command: string, args: string[]): Promise<number> {
  return new Promise((resolvePromise) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: "ignore" });
    child.on("close", () => resolvePromise(performance.now() - start));
  });
}

export async function benchFirstRequest(): Promise<void> {
  const binary = ensureBinary();
  const temp = mkdtempSync(join(tmpdir(), "shiro-bench-first-"));
  let arrived = 0;
  // As the request's handler starts, before the fake reads and checks the body (the fake's own work is not shiro's).
  const fake = await startFakeProvider({ onArrival: (method) => void (method === "POST" && (arrived = performance.now())) });
  try {
    const bare = buildBareBinary(temp);
    fake.respond(() => ({ text: "hi" }));
    const home = join(temp, "home");
    const env = binaryEnv(home, { ...fakeEnv(fake.baseURL, "chat"), SHIRO_TRACE_STARTUP: "1" });
    const phases: Record<string, number[]> = {};
    const cpu: Record<string, number[]> = {};
    const main: Record<string, number[]> = {};
    const firstRequest: number[] = [];
    const whole: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bareTimes.push(await _timeExit(bare, []));
      await new Promise<void>((resolvePromise) => {
        const start = performance.now();
        const child = spawn(binary, ["-p", "hi", "--no-memory"], { cwd: temp, env, stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
        child.on("close", () => {
          const trace = _trace(stderr);
          for (const [phase, ms] of Object.entries(trace.phases)) (phases[phase] ??= []).push(ms);
          for (const [phase, ms] of Object.entries(trace.cpu)) (cpu[phase] ??= []).push(ms);
          for (const [phase, ms] of Object.entries(trace.main ?? {})) (main[phase] ??= []).push(ms);
          whole.push(performance.now() - start);
          firstRequest.push(arrived - start);
          resolvePromise();
        });
      });
    }
    const first = median(firstRequest);
    console.log(`first request: median ${first.toFixed(1)} ms after exec (${RUNS} runs; target < 100 ms)`);
    console.log(
      `first request: whole -p run ${median(whole).toFixed(1)} ms; bare compiled binary ${median(bareTimes).toFixed(1)} ms; ratio first-request / bare = ${(first / median(bareTimes)).toFixed(2)}x`,
    );
    const split = Object.entries(phases).map(([phase, times]) => `${phase} ${median(times).toFixed(1)}`);
    console.log(`first request: by phase (ms, inside the process, SHIRO_TRACE_STARTUP=1): ${split.join(", ") || "no trace line"}`);
    const cpuSplit = Object.entries(cpu).map(([phase, times]) => `${phase} ${median(times).toFixed(1)}`);
    console.log(`first request: processor time by phase (ms, every thread): ${cpuSplit.join(", ") || "no trace line"}`);
    const mainSplit = Object.entries(main).map(([phase, times]) => `${phase} ${median(times).toFixed(1)}`);
    if (mainSplit.length > 0)
      console.log(`first request: main-thread processor time by phase (ms, the steadiest figure on a shared machine): ${mainSplit.join(", ")}`);
  } finally {
    await fake.stop();
    rmSync(temp, { recursive: true, force: true });
  }
}

function _trace(stderr: string): { phases: Record<string, number>; cpu: Record<string, number>; main?: Record<string, number> } {
  const line = stderr.split("\n").find((text) => text.includes('"startup-trace"'));
  return line ? (JSON.parse(line) as { phases: Record<string, number>; cpu: Record<string, number>; main?: Record<string, number> }) : { phases: {}, cpu: {} };
}

if (import.meta.main) await benchFirstRequest();
