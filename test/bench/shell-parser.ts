/**
 * What the shell parser costs on the first bash call. Two views, each against a baseline from
 * the same run:
 * - in a compiled probe (built like dist/shiro: minified, bytecode, split), the time to load
 *   mvdan-sh, to read a first command and a warm read, over the whole run of a bare compiled
 *   hello-world, and the resident memory the load adds;
 * - through dist/shiro, a headless run whose one tool call is `bash true` over the same run with
 *   one `glob` call instead (the difference is the parser load plus spawning bash).
 *
 * `bun run test/bench/shell-parser.ts [runs]` runs it alone; test/bench/index.ts runs it too.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { binaryEnv, ensureBinary, fakeEnv } from "../e2e/_harness.ts";
import { startFakeProvider, type FakeStep } from "../fakes/provider.ts";
import { buildBareBinary, median } from "./baseline.ts";

const ROOT = resolve(import.meta.dir, "..", "..");

function _buildProbe(dir: string): string {
  const source = join(dir, "probe.ts");
  const outfile = join(dir, "probe");
  writeFileSync(
    source,
    `
import { loadShellParser } from ${JSON.stringify(join(ROOT, "lib/shell/parser.ts"))};
import { listRuleSubjects } from ${JSON.stringify(join(ROOT, "lib/shell/read.ts"))};
const rssBefore = process.memoryUsage().rss;
const start = performance.now();
await loadShellParser();
const loaded = performance.now();
listRuleSubjects("git status");
const first = performance.now();
const warm = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  listRuleSubjects(\`cd src && env X=\${i} timeout 5 /usr/bin/git push --force-w origin main 2>&1 | tail -1\`);
  warm.push(performance.now() - t);
}
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ loadMs: loaded - start, firstMs: first - loaded, warmMs: warm[10], rssMb: (process.memoryUsage().rss - rssBefore) / 1e6 }));
`,
  );
  const build = spawnSync(process.execPath, ["build", "--compile", "--minify", "--bytecode", "--splitting", "--format=esm", source, "--outfile", outfile], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (build.status !== 0) throw new Error(`building the probe failed:\n${build.stderr}`);
  return outfile;
}

function _timeRun(command: string, args: string[], env?: Record<string, string>, cwd?: string): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolvePromise) => {
    const start = performance.now();
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("close", () => {
      clearTimeout(timer);
      resolvePromise({ ms: performance.now() - start, stdout });
    });
  });
}

export async function benchShellParser(options: { runs?: number } = {}): Promise<void> {
  const runs = options.runs ?? 15;
  const work = mkdtempSync(join(tmpdir(), "shiro-bench-shell-"));
  const fake = await startFakeProvider();
  try {
    const bare = buildBareBinary(work);
    const probe = _buildProbe(work);
    const binary = ensureBinary();
    const bareMs: number[] = [];
    const loadMs: number[] = [];
    const firstMs: number[] = [];
    const warmMs: number[] = [];
    const rssMb: number[] = [];
    for (let round = -2; round < runs; round++) {
      const b = await _timeRun(bare, []);
      const p = await _timeRun(probe, []);
      if (round < 0) continue;
      const sample = JSON.parse(p.stdout) as { loadMs: number; firstMs: number; warmMs: number; rssMb: number };
      rssMb.push(sample.rssMb);
      bareMs.push(b.ms);
      loadMs.push(sample.loadMs);
      firstMs.push(sample.firstMs);
      warmMs.push(sample.warmMs);
    }
    const home = join(work, "home");
    const env = binaryEnv(home, fakeEnv(fake.baseURL, "chat"));
    const runWith = async (step: FakeStep) => {
      fake.reset();
      fake.script(step, { text: "done" });
      return (await _timeRun(binary, ["-p", "go", "--yolo", "--no-memory"], env, work)).ms;
    };
    const bashRuns: number[] = [];
    const globRuns: number[] = [];
    for (let round = -2; round < runs; round++) {
      const withBash = await runWith({ toolCalls: [{ name: "bash", input: { command: "true" } }] });
      const withGlob = await runWith({ toolCalls: [{ name: "glob", input: { pattern: "*.none" } }] });
      if (round < 0) continue;
      bashRuns.push(withBash);
      globRuns.push(withGlob);
    }
    const bareMedian = median(bareMs);
    const [load, first, warm] = [median(loadMs), median(firstMs), median(warmMs)];
    console.log(
      `shell parser: load ${load.toFixed(1)} ms, first read ${first.toFixed(1)} ms, warm read of a compound line ${warm.toFixed(2)} ms, resident memory +${median(rssMb).toFixed(1)} MB (compiled probe, ${runs} runs)`,
    );
    console.log(
      `shell parser: bare compiled binary run ${bareMedian.toFixed(1)} ms; ratios to it: load ${(load / bareMedian).toFixed(2)}x, load + first read ${((load + first) / bareMedian).toFixed(2)}x, warm read ${(warm / bareMedian).toFixed(3)}x`,
    );
    console.log(
      `shell parser: dist/shiro -p with one bash call ${median(bashRuns).toFixed(1)} ms, with one glob call ${median(globRuns).toFixed(1)} ms; ratio bash / glob = ${(median(bashRuns) / median(globRuns)).toFixed(2)}x`,
    );
  } finally {
    await fake.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchShellParser({ runs: Number(process.argv[2] ?? 15) });
