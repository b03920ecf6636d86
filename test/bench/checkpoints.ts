/**
 * What checkpoints cost, side by side in one run, in a 10,000-file git repository:
 * - a turn's checkpoint work, through the turn checkpointer a session uses (its "before" snapshot
 *   at the first change, its "after" snapshot and the record when the turn ends), each turn in
 *   a new checkpointer as in a new `shiro -p` process, when the turn changes 3 files, against
 *   `git add -A` of the same tree into a scratch index (goal: at most 1.5x); the very first
 *   checkpoint of a workspace, which hashes everything, is shown too;
 * - the time to the first model request of `dist/shiro -p` with checkpoints on and off (goal: no
 *   difference, since the snapshot waits for the first write or exec call).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryEnv, ensureBinary, fakeEnv } from "../e2e/_harness.ts";
import { startFakeProvider } from "../fakes/provider.ts";
import { median } from "./baseline.ts";
import { openCheckpointRepo, snapshotWorkspace } from "../../lib/store/checkpoints.ts";
import { createTurnCheckpoints } from "../../lib/agent/turn-checkpoint.ts";

const FILES = 10_000;
const RUNS = 9;
const FIRST_REQUEST_RUNS = 11;
const SETTINGS = { maxFileBytes: 10 * 1024 * 1024, keepDays: 30, maxPerProject: 1000 };

function _makeRepo(root: string): void {
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(root, "src", `d${d}`), { recursive: true });
    for (let f = 0; f < FILES / 100; f++) writeFileSync(join(root, "src", `d${d}`, `f${f}.ts`), `export const v${d}_${f} = ${d * f};\n// file ${d}/${f}\n`);
  }
  const git = (...args: string[]) => spawnSync("git", ["-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "bench");
}

function _gitAddScratch(root: string, index: string): number {
  rmSync(index, { force: true });
  const start = performance.now();
  spawnSync("git", ["add", "-A"], { cwd: root, env: { ...process.env, GIT_INDEX_FILE: index }, stdio: "ignore" });
  return performance.now() - start;
}

async function _firstRequest(
  binary: string,
  root: string,
  home: string,
  extra: string[],
  fake: Awaited<ReturnType<typeof startFakeProvider>>,
): Promise<number> {
  let arrived = 0;
  fake.respond(() => {
    arrived = performance.now();
    return { text: "hi" };
  });
  const env = binaryEnv(home, fakeEnv(fake.baseURL, "chat"));
  const start = performance.now();
  await new Promise<void>((resolve) => spawn(binary, ["-p", "hi", "--no-memory", ...extra], { cwd: root, env, stdio: "ignore" }).on("close", () => resolve()));
  return arrived - start;
}

export async function benchCheckpoints(): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), "shiro-bench-checkpoints-"));
  const saved = process.env.SHIRO_HOME;
  const home = join(temp, "home");
  process.env.SHIRO_HOME = home;
  try {
    const root = join(temp, "repo");
    mkdirSync(root);
    _makeRepo(root);
    const scratch = join(temp, "scratch.index");
    const baselines: number[] = [];

    const repo = await openCheckpointRepo(root);
    let start = performance.now();
    await snapshotWorkspace(repo, SETTINGS);
    const cold = performance.now() - start;
    const turns: number[] = [];
    const befores: number[] = [];
    // Interleaved with the baseline, so a busy machine weighs on both alike.
    for (let run = 0; run < RUNS; run++) {
      baselines.push(_gitAddScratch(root, scratch));
      const checkpoints = createTurnCheckpoints({ root, enabled: true, settings: { ...SETTINGS, enabled: true } });
      checkpoints.start();
      start = performance.now();
      await checkpoints.beforeChange();
      const changing = performance.now();
      for (let i = 0; i < 3; i++) writeFileSync(join(root, "src", `d${i}`, `f${run}.ts`), `export const changed = ${run};\n`);
      const changed = performance.now();
      const outcome = await checkpoints.finish({ sessionId: "bench", runId: `r${run}`, prompt: "bench", messageIndex: 0 });
      if (outcome.files !== 3) throw new Error(`the bench turn recorded ${outcome.files ?? "no"} files: ${outcome.notice ?? ""}`);
      turns.push(performance.now() - start - (changed - changing));
      befores.push(changing - start);
    }
    const turn = median(turns);
    const baseline = median(baselines);
    console.log(
      `checkpoints: a turn changing 3 of ${FILES} files ${turn.toFixed(1)} ms (median of ${RUNS}; its "before" snapshot ${median(befores).toFixed(1)} ms); git add -A into a scratch index ${baseline.toFixed(1)} ms`,
    );
    console.log(`checkpoints: ratio turn / git add -A = ${(turn / baseline).toFixed(2)}x (goal <= 1.5x); the workspace's first snapshot ${cold.toFixed(1)} ms`);

    const binary = ensureBinary();
    const fake = await startFakeProvider();
    try {
      const on: number[] = [];
      const off: number[] = [];
      // Alternating which goes first, so drift on a busy machine falls on both sides alike.
      for (let run = 0; run < FIRST_REQUEST_RUNS; run++) {
        if (run % 2 === 0) on.push(await _firstRequest(binary, root, home, [], fake));
        off.push(await _firstRequest(binary, root, home, ["--no-checkpoints"], fake));
        if (run % 2 === 1) on.push(await _firstRequest(binary, root, home, [], fake));
      }
      console.log(
        `checkpoints: first request ${median(on).toFixed(1)} ms with checkpoints, ${median(off).toFixed(1)} ms with --no-checkpoints (median of ${FIRST_REQUEST_RUNS}; ratio ${(median(on) / median(off)).toFixed(2)}x; goal 1.00x)`,
      );
    } finally {
      await fake.stop();
    }
  } finally {
    if (saved === undefined) delete process.env.SHIRO_HOME;
    else process.env.SHIRO_HOME = saved;
    rmSync(temp, { recursive: true, force: true });
  }
}

if (import.meta.main) await benchCheckpoints();
