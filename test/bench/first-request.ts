/**
 * Time from exec to the first model request: `dist/shiro -p "hi"` against the fake provider on
 * 127.0.0.1, measured at the fake when the request arrives, next to a bare compiled Bun binary's
 * whole run in the same session. The target: under 100 ms to the first request.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeProvider } from "../fakes/provider.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const RUNS = 15;

function _median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function _bareBinary(dir: string): string {
  const source = join(dir, "hello.ts");
  writeFileSync(source, 'console.log("hello");\n');
  const out = join(dir, "hello");
  const build = spawnSync(process.execPath, ["build", "--compile", source, "--outfile", out], { encoding: "utf8" });
  if (build.status !== 0) throw new Error(build.stderr);
  return out;
}

function _timeExit(command: string, args: string[]): Promise<number> {
  return new Promise((resolvePromise) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: "ignore" });
    child.on("close", () => resolvePromise(performance.now() - start));
  });
}

export async function benchFirstRequest(): Promise<void> {
  const binary = join(ROOT, "dist", "shiro");
  const build = spawnSync(process.execPath, ["run", "build"], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(build.stderr);
  const temp = mkdtempSync(join(tmpdir(), "shiro-bench-first-"));
  const fake = await startFakeProvider();
  try {
    const bare = _bareBinary(temp);
    let arrived = 0;
    fake.respond(() => {
      arrived = performance.now();
      return { text: "hi" };
    });
    const home = join(temp, "home");
    const env = { PATH: process.env.PATH ?? "", HOME: home, SHIRO_HOME: home, SHIRO_BASE_URL: fake.baseURL, SHIRO_API_KEY: "k", SHIRO_PROTOCOL: "chat", SHIRO_PROVIDER: "openai" };
    const firstRequest: number[] = [];
    const whole: number[] = [];
    const bareTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      bareTimes.push(await _timeExit(bare, []));
      await new Promise<void>((resolvePromise) => {
        const start = performance.now();
        const child = spawn(binary, ["-p", "hi", "--no-memory"], { cwd: temp, env, stdio: "ignore" });
        child.on("close", () => {
          whole.push(performance.now() - start);
          firstRequest.push(arrived - start);
          resolvePromise();
        });
      });
    }
    const first = _median(firstRequest);
    console.log(`first request: median ${first.toFixed(1)} ms after exec (${RUNS} runs; target < 100 ms)`);
    console.log(`first request: whole -p run ${_median(whole).toFixed(1)} ms; bare compiled binary ${_median(bareTimes).toFixed(1)} ms; ratio first-request / bare = ${(first / _median(bareTimes)).toFixed(2)}x`);
  } finally {
    await fake.stop();
    rmSync(temp, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchFirstRequest();
