/**
 * The test command (`bun run test`): runs `bun test` over test/ and ends with the line
 * `N passed, N failed` that CI reads (bun test prints its own summary in another shape), after a
 * line with the wall time and the share of time spent in test/e2e/ (the compiled binary), twice:
 * over bun's per-test times (`tests …`), and over each file's wall time (`files …`), which also
 * holds its beforeAll/afterAll setup. Bun runs files one after another and prints a file's name
 * as it starts, so a file's wall time runs from its name's line to the next one (the last file's
 * to the summary). Extra arguments go to `bun test` (a path filter, `--timeout`, …).
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
const walls = { e2e: 0, other: 0 };
let fileStarted = 0;

const _side = (path: string): "e2e" | "other" => (path.startsWith("test/e2e/") ? "e2e" : "other");

/** Closes the running file's wall time at `now`. */
const _endFile = (now: number) => {
  if (file && fileStarted) walls[_side(file)] += now - fileStarted;
  fileStarted = 0;
};

/** bun prints each file's name on a line of its own, then `(pass) name [12.34ms]` per test. */
const _time = (line: string, now: number) => {
  const header = /^(test\/\S+\.test\.ts):$/.exec(line);
  if (header) {
    _endFile(now);
    file = header[1]!;
    fileStarted = now;
  }
  if (/^\s*\d+ pass$/.test(line)) _endFile(now);
  const result = /^\((?:pass|fail)\) .* \[([\d.]+)(ms|s)\]$/.exec(line);
  if (!result) return;
  spent[_side(file)] += Number(result[1]) * (result[2] === "s" ? 1000 : 1);
};

const _share = (part: { e2e: number; other: number }) => {
  const total = part.e2e + part.other;
  return { seconds: (total / 1000).toFixed(1), share: total > 0 ? Math.round((100 * part.e2e) / total) : 0 };
};

const keep = (chunk: Buffer) => {
  const text = chunk.toString("utf8");
  tail = (tail + text).slice(-20_000);
  const lines = (partial + text).split("\n");
  partial = lines.pop() ?? "";
  const now = performance.now();
  for (const line of lines) _time(line.trimEnd(), now);
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
  const now = performance.now();
  _time(partial.trimEnd(), now);
  _endFile(now);
  const passed = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
  const failed = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
  const tests = _share(spent);
  const files = _share(walls);
  const seconds = ((now - started) / 1000).toFixed(1);
  process.stdout.write(`\ntime ${seconds} s (tests ${tests.seconds} s, ${tests.share} % of it in test/e2e)\n`);
  process.stdout.write(`files ${files.seconds} s (wall time with setup, ${files.share} % of it in test/e2e)\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : 1);
});
