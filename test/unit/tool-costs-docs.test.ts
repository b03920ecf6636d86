/** docs/tools.md's cost table is what `bun run tool-costs` measures now (a changed description must regenerate it). */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

test("the tool cost table in docs/tools.md is up to date", () => {
  const result = spawnSync(process.execPath, [join(import.meta.dir, "..", "bench", "tool-costs.ts"), "--check"], { encoding: "utf8", timeout: 60_000 });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
});
