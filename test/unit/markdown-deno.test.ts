/**
 * The REPL's Markdown renderer and highlighter under Deno (`deno run -A`, the third way the
 * sources run): the same bytes as under Bun, styled and plain. Deno comes from PATH, or from $DENO
 * when set; without it the test is skipped and says so (CI installs Deno, so there it fails).
 */
import { expect } from "bun:test";
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { findOnPath, hostPackage, hostTest } from "../host-packages.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const DENO = process.env.DENO ?? findOnPath("deno");
const DENO_PACKAGE = hostPackage("Deno", "npm install -g deno", DENO !== undefined && spawnSync(DENO, ["--version"]).status === 0, "deno is not on PATH");
const PROBE = join(ROOT, "test/fixtures/markdown-probe.ts");

hostTest(
  DENO_PACKAGE,
  "under deno run -A a streamed answer renders as under Bun, with colour and without",
  () => {
    const deno = spawnSync(DENO!, ["run", "-A", PROBE], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    const bun = spawnSync(process.execPath, [PROBE], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    expect(deno.stderr).toBe("");
    const [styled, plain] = JSON.parse(bun.stdout) as [string, string];
    expect(JSON.parse(deno.stdout)).toEqual([styled, plain]);
    expect(styled).toContain("\x1b[1m");
    expect(plain).toContain("- one\n- two");
    for (const line of plain.split("\n")) expect(line.length).toBeLessThanOrEqual(40);
  },
  130_000,
);
