/**
 * A symlink swapped between the jail's path check and the open is caught, through the built
 * binary: a background process flips `link` between a file inside the workspace and one outside
 * while the model reads `link` 300 times; not one read returns the outside file.
 */
import { describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

      const swapper = spawn(process.execPath, [SWAPPER, join(e2e.dirs.cwd, "link"), join(e2e.dirs.cwd, "inside.txt"), join(outside, "elsewhere.txt"), "60000"], { stdio: ["pipe", "pipe", "inherit"] });
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
      // The race was real: the link pointed both ways while the reads ran.
      expect(inside.length).toBeGreaterThan(0);
      expect(refused.length).toBeGreaterThan(0);
      expect(Number(swapperOut.trim().split("\n").at(-1))).toBeGreaterThan(READS);
      expect(e2e.fake.requests.map((request) => JSON.stringify(request.body)).filter((body) => body.includes("outside-leak"))).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  }, 150_000);
});
