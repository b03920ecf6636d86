/**
 * What the benchmarks measure against: a bare `bun build --compile` hello-world built in the same
 * run (the floor any compiled binary's start-up pays), and the median of a set of samples.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** Builds the hello-world binary in `dir` and returns its path. */
export function buildBareBinary(dir: string): string {
  const source = join(dir, "hello.ts");
  const outfile = join(dir, "hello");
  writeFileSync(source, 'console.log("hello");\n');
  const build = spawnSync(process.execPath, ["build", "--compile", source, "--outfile", outfile], { encoding: "utf8", timeout: 120_000 });
  if (build.status !== 0) throw new Error(`building the bare binary failed:\n${build.stderr}`);
  return outfile;
}

/** The middle sample; the mean of the two middle ones for an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
