/**
 * The test command (`bun run test`): runs `bun test` over test/ and ends with the line
 * `N passed, N failed` that CI reads (bun test prints its own summary in another shape).
 * Extra arguments go to `bun test` (a path filter, `--timeout`, …).
 */
import { spawn } from "node:child_process";

// bunfig.toml's [test] timeout is not applied by `bun test` 1.4.5 (5 s is), so it is passed here.
const args = ["test", "--timeout", "30000", ...(process.argv.length > 2 ? process.argv.slice(2) : ["test/"])];
const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
let tail = "";
const keep = (chunk: Buffer) => {
  tail = (tail + chunk.toString("utf8")).slice(-20_000);
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
  const passed = Number(/^\s*(\d+) pass$/m.exec(tail)?.[1] ?? 0);
  const failed = Number(/^\s*(\d+) fail$/m.exec(tail)?.[1] ?? 0);
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  process.exit(code === 0 && failed === 0 && passed > 0 ? 0 : 1);
});
