/**
 * The jail covers every tool, through the built binary. Started in a subfolder of a repository,
 * the git tools refuse paths and `REF:PATH` outside it. A symlink swapped between the jail's path
 * check and the open is caught: a background process flips `link` between a file inside the
 * workspace and one outside while the model reads `link` 300 times; not one read gets out.
 */
import { describe, expect, test } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();
const READS = 300;
const SWAPPER = resolve(import.meta.dir, "..", "fixtures", "swap-symlink.ts");

describe("the jail under a symlink race", () => {
  test(`${READS} reads of a link swapped in and out of the workspace let none out`, async () => {
    const outside = mkdtempSync(join(tmpdir(), "shiro-race-outside-"));
    try {
      writeFileSync(join(outside, "elsewhere.txt"), "outside-leak-zz\n");
      writeFileSync(join(e2e.dirs.cwd, "inside.txt"), "inside-ok\n");
      symlinkSync(join(e2e.dirs.cwd, "inside.txt"), join(e2e.dirs.cwd, "link"));
      // Each call differs (limit), so the repeat guard never asks.
      const calls = Array.from({ length: READS }, (_, i) => ({ name: "read_file", input: { path: "link", limit: i + 1 } }));
      e2e.fake.script({ toolCalls: calls }, { text: "done" });

      const swapper = spawn(
        process.execPath,
        [SWAPPER, join(e2e.dirs.cwd, "link"), join(e2e.dirs.cwd, "inside.txt"), join(outside, "elsewhere.txt"), "60000"],
        { stdio: ["pipe", "pipe", "inherit"] },
      );
      let swapperOut = "";
      swapper.stdout.on("data", (chunk: Buffer) => (swapperOut += chunk.toString("utf8")));
      const exited = new Promise<void>((done) => swapper.on("close", () => done()));
      await new Promise<void>((started) => swapper.stdout.once("data", () => started()));
      const result = await e2e.shiro(["-p", "read the link"], { timeoutMs: 90_000 });
      swapper.stdin.end();
      const killer = setTimeout(() => swapper.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);

      expect(result.code).toBe(0);
      const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output.replace(/^Error: /, ""));
      expect(outputs).toHaveLength(READS);
      const leaked = outputs.filter((output) => output.includes("outside-leak"));
      const inside = outputs.filter((output) => output === "1: inside-ok");
      const refused = outputs.filter((output) => output === "Path escapes workspace: link");
      expect({ leaked: leaked.length, other: READS - inside.length - refused.length }).toEqual({ leaked: 0, other: 0 });
      // The race was real: the link kept flipping while the reads ran (how the reads split between
      // inside and refused depends on timing, so only their sum is asserted above).
      expect(Number(swapperOut.trim().split("\n").at(-1))).toBeGreaterThan(READS);
      expect(e2e.fake.requests.map((request) => JSON.stringify(request.body)).filter((body) => body.includes("outside-leak"))).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 150_000);
});

describe("the git tools in a workspace inside a larger repository", () => {
  test("git_show REF:../x, git_show REF:x, git_blame ../x, git_log ../x and a bare git_show stay inside", async () => {
    const repo = e2e.dirs.cwd;
    const ws = join(repo, "ws");
    mkdirSync(ws);
    writeFileSync(join(repo, "outside.txt"), "outside-leak-qq\n");
    writeFileSync(join(ws, "inside.txt"), "inside-ok\n");
    const git = (...args: string[]) =>
      spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: repo, timeout: 20_000 });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "seed");
    const calls = [
      { name: "git_show", input: { ref: "HEAD:../outside.txt" } },
      { name: "git_show", input: { ref: "HEAD:outside.txt" } },
      { name: "git_show", input: { ref: "HEAD:" } },
      { name: "git_blame", input: { path: "../outside.txt" } },
      { name: "git_log", input: { path: "../outside.txt" } },
      { name: "git_show", input: { ref: "HEAD" } },
      { name: "git_show", input: { ref: "HEAD:./inside.txt" } },
    ];
    e2e.fake.script({ toolCalls: calls }, { text: "done" });
    const result = await e2e.shiro(["-p", "look"], { cwd: ws, timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output.replace(/^Error: /, ""));
    expect(outputs.slice(0, 5).map((output) => output.slice(0, 22))).toEqual(Array(5).fill("Path escapes workspace"));
    expect(outputs[5]).toContain("inside-ok");
    expect(outputs[5]).not.toContain("outside");
    expect(outputs[6]).toBe("inside-ok");
    expect(e2e.fake.requests.map((request) => JSON.stringify(request.body)).filter((body) => body.includes("outside-leak"))).toEqual([]);
  }, 90_000);
});
