/**
 * Start-up cost of the compiled binary against a bare `bun build --compile` hello-world built in
 * the same run: median wall time, its ratio to the bare binary, and peak RSS. The bar is
 * `dist/shiro --version` within 2x of the bare binary. dist/shiro is built first when it is missing
 * or older than any source.
 *
 * `bun run test/bench/startup.ts [runs]` runs it alone; test/bench/index.ts runs it with the rest.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "../e2e/_harness.ts";
import { buildBareBinary, median } from "./baseline.ts";
const RATIO_BAR = 2;
const TIME_BINARY = "/usr/bin/time";
const RSS_RUNS = 5;

export interface StartupCase {
  label: string;
  medianMs: number;
  /** Median wall time over the bare binary's median. */
  ratio: number;
  /** Largest peak RSS seen over the runs, in MB. */
  peakRssMb: number;
}

/** Where peak RSS comes from: /usr/bin/time when present, else the rusage Bun.spawnSync reports. */
export type RssSource = "/usr/bin/time" | "rusage";

export interface StartupBenchResult {
  runs: number;
  rssSource: RssSource;
  cases: StartupCase[];
  /** True when `dist/shiro --version` is within RATIO_BAR of the bare binary. */
  withinBar: boolean;
}

export async function benchStartup(options: { runs?: number } = {}): Promise<StartupBenchResult> {
  const runs = options.runs ?? 30;
  const work = mkdtempSync(join(tmpdir(), "shiro-bench-startup-"));
  try {
    const bare = buildBareBinary(work);
    const shiro = ensureBinary();
    const commands: [string, string[]][] = [
      ["bare hello binary", [bare]],
      ["dist/shiro --version", [shiro, "--version"]],
      ["dist/shiro --help", [shiro, "--help"]],
    ];
    // Runs from an empty folder with state in a temp SHIRO_HOME, like a first start.
    const env = { ...process.env, SHIRO_HOME: work, NO_COLOR: "1" };
    const samples = commands.map(() => ({ ms: [] as number[], rss: 0 }));
    for (let round = -2; round < runs; round++) {
      commands.forEach(([, cmd], index) => {
        const sample = _runOnce(cmd, work, env);
        if (round < 0) return; // warm-up: page cache, not start-up, would dominate the first runs
        samples[index]!.ms.push(sample.ms);
        samples[index]!.rss = Math.max(samples[index]!.rss, sample.rssBytes);
      });
    }
    // Bun's rusage can carry the peak of an earlier child (the builds above), so prefer
    // /usr/bin/time, which reports the one process it waited for. Separate runs: its own
    // start-up must not be in the timings.
    const rssSource: RssSource = existsSync(TIME_BINARY) ? TIME_BINARY : "rusage";
    if (rssSource === TIME_BINARY) {
      commands.forEach(([, cmd], index) => {
        samples[index]!.rss = 0;
        for (let i = 0; i < RSS_RUNS; i++) samples[index]!.rss = Math.max(samples[index]!.rss, _peakRssWithTime(cmd, work, env));
      });
    }
    const bareMedian = median(samples[0]!.ms);
    const cases = commands.map(([label], index) => ({
      label,
      medianMs: median(samples[index]!.ms),
      ratio: median(samples[index]!.ms) / bareMedian,
      peakRssMb: samples[index]!.rss / 1024 / 1024,
    }));
    const version = cases[1]!;
    const result = { runs, rssSource, cases, withinBar: version.ratio <= RATIO_BAR };
    _print(result);
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function _runOnce(cmd: string[], cwd: string, env: Record<string, string | undefined>): { ms: number; rssBytes: number } {
  const started = performance.now();
  const child = Bun.spawnSync({ cmd, cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const ms = performance.now() - started;
  if (child.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${child.exitCode}: ${child.stderr.toString()}`);
  return { ms, rssBytes: child.resourceUsage.maxRSS };
}

function _peakRssWithTime(cmd: string[], cwd: string, env: Record<string, string | undefined>): number {
  const child = Bun.spawnSync({ cmd: [TIME_BINARY, "-f", "%M", ...cmd], cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 20_000 });
  const kb = Number(child.stderr.toString().trim().split("\n").at(-1));
  if (child.exitCode !== 0 || !Number.isFinite(kb)) throw new Error(`${TIME_BINARY} ${cmd.join(" ")} failed: ${child.stderr.toString()}`);
  return kb * 1024;
}

function _print(result: StartupBenchResult): void {
  console.log(`startup: ${result.runs} runs each, interleaved, from an empty folder; peak RSS from ${result.rssSource}`);
  console.log(`  ${"case".padEnd(22)}${"median ms".padStart(10)}${"x bare".padStart(9)}${"peak RSS MB".padStart(13)}`);
  for (const c of result.cases) {
    console.log(`  ${c.label.padEnd(22)}${c.medianMs.toFixed(1).padStart(10)}${c.ratio.toFixed(2).padStart(9)}${c.peakRssMb.toFixed(1).padStart(13)}`);
  }
  const version = result.cases[1]!;
  console.log(`  bar: dist/shiro --version within ${RATIO_BAR}x of the bare binary: ${result.withinBar ? "met" : "MISSED"} (${version.ratio.toFixed(2)}x)`);
}

if (import.meta.main) {
  const runs = process.argv[2] ? Number(process.argv[2]) : undefined;
  if (runs !== undefined && !(Number.isInteger(runs) && runs > 0)) {
    console.error("usage: bun run test/bench/startup.ts [runs]");
    process.exit(2);
  }
  await benchStartup({ runs });
}
