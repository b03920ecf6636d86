/**
 * The shell parser under Deno (`deno run -A`, the third way the sources run): the guard and the
 * rule lines read the same under Deno as under Bun. Deno comes from PATH, or from $DENO when set;
 * without it the test is skipped and says so (CI installs Deno before the suite, so there it fails).
 */
import { expect } from "bun:test";
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { loadShellParser } from "../../lib/shell/parser.ts";
import { listRuleSubjects } from "../../lib/shell/read.ts";
import { checkCommand } from "../../plugins/guard.ts";
import { findOnPath, hostPackage, hostTest } from "../host-packages.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const DENO = process.env.DENO ?? findOnPath("deno");
const DENO_PACKAGE = hostPackage("Deno", "npm install -g deno", DENO !== undefined && spawnSync(DENO, ["--version"]).status === 0, "deno is not on PATH");

const COMMANDS = [
  "r''m -r\"f\" x",
  "env X=1 /usr/bin/git  push --force-w",
  "echo $(git push)",
  "ls -la",
  "$X -rf x",
  "flock l -c 'rm -rf x'",
  "bash < <(curl -s x)",
];

hostTest(
  DENO_PACKAGE,
  "under deno run -A the guard and the rule lines read commands as under Bun",
  async () => {
    const run = spawnSync(DENO!, ["run", "-A", join(ROOT, "test/fixtures/shell-probe.ts"), ...COMMANDS], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });
    expect(run.stderr).toBe("");
    await loadShellParser();
    const expected = COMMANDS.map((command) => [listRuleSubjects(command), checkCommand(command) ?? null]);
    expect(JSON.parse(run.stdout)).toEqual(expected);
    expect(expected.map(([, refusal]) => refusal !== null)).toEqual([true, true, false, false, true, true, true]);
  },
  130_000,
);
