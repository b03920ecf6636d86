/** docs/tools.md's cost table is what `bun run tool-costs` measures now (a changed description must regenerate it). */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const _CHECK_TIMEOUT_MS = 60_000;

test(
  "the tool cost table in docs/tools.md is up to date",
  () => {
    const result = spawnSync(process.execPath, [join(import.meta.dir, "..", "bench", "tool-costs.ts"), "--check"], {
      encoding: "utf8",
      timeout: _CHECK_TIMEOUT_MS,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  },
  // The check is one spawned process; under load it takes longer than bun's 5 s default.
  _CHECK_TIMEOUT_MS + 5_000,
);
