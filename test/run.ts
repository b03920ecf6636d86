/**
 * The test command (`bun run test`): runs `bun test` over test/ and ends with the line
 * `N passed, N failed` that CI reads (bun test prints its own summary in another shape), after a
 * line with the wall time and the share of test time spent in test/e2e/ (the compiled binary).
 * Extra arguments go to `bun test` (a path filter, `--timeout`, …).
 */
import { spawn } from "node:child_process";

const started = performance.now();
// bunfig.toml's [test] timeout is not applied by `bun test` 1.4.5 (5 s is), so it is passed here.
const args = ["test", "--timeout", "30000", ...(process.argv.length > 2 ? process.argv.slice(2) : ["test/"])];
const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
let tail = "";
let partial = "";
let file = "";
const spent = { e2e: 0, other: 0 };

/** bun prints each file's name on a line of its own, then `(pass) name [12.34ms]` per test. */
const _time = (line: string) => {
  const header = /^(test\/\S+\.test\.ts):$/.exec(line);
  if (header) file = header[1]!;
  const result = /^\((?:pass|fail)\) .* \[([\d.]+)(ms|s)\]$/.exec(line);
  if (!result) return;
  const ms = Number(result[1]) * (result[2] === "s" ? 1000 : 1);
  if (file.startsWith("test/e2e/")) spent.e2e += ms;
  else spent.other += ms;
};

const keep = (chunk: Buffer) => {
  const text = chunk.toString("utf8");
  tail = (tail + text).slice(-20_000);
  const lines = (partial + text).split("\n");
  partial = lines.pop() ?? "";
  for (const line of lines) _time(line.trimEnd());
};
child.stdout.on("data", (chunk: Buffer) => {
  process.stdout.write(chunk);
  keep(chunk);
});
child.stderr.on("data", (chunk: Buffer) => {
  process.stderr.write(chunk);
  keep(chunk);
});
child.on("close", (code) => {
  _time(partial.trimEnd());
  const passed = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
  const failed = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
  const total = spent.e2e + spent.other;
  const share = total > 0 ? Math.round((100 * spent.e2e) / total) : 0;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\ntime ${seconds} s (tests ${(total / 1000).toFixed(1)} s, ${share} % of it in test/e2e)\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : 1);
});
