/**
 * What an earlier run learned is not learned again before the next run's first request: the
 * sandbox probe (a recording bwrap on PATH: plain answers never run it, the first command probes
 * once, a later run's command reuses the outcome) and the window a
 * provider reports for a model the family table does not know (one `GET /models` across two runs,
 * and the second run's threshold follows the kept window from its first step).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEventLines, useE2E } from "./_harness.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";

const MODEL = "acme-unlisted-7b";
const e2e = useE2E({ models: [MODEL], modelWindows: { [MODEL]: 9_000 } });

const doneOf = (stdout: string) => parseEventLines(stdout).find((event) => event.type === "done") as { context: { threshold: number } };

describe("what an earlier run learned", () => {
  sandboxTest("a plain answer never probes the sandbox; the first command probes once, later runs reuse the outcome", async () => {
    const bin = mkdtempSync(join(tmpdir(), "shiro-counting-bwrap-"));
    const calls = join(bin, "calls");
    try {
      const realBwrap = (process.env.PATH ?? "").split(":").find((dir) => dir && existsSync(join(dir, "bwrap")));
      // A wrapper that records each run's arguments, then execs the real bwrap.
      writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho "$*" >> '${calls}'\nexec '${join(realBwrap!, "bwrap")}' "$@"\n`);
      chmodSync(join(bin, "bwrap"), 0o755);
      const env = { PATH: `${bin}:/usr/bin:/bin` };
      // Each run as "probe" (bwrap … true) or the command it confined.
      const runs = () =>
        (existsSync(calls) ? readFileSync(calls, "utf8").split("\n").filter(Boolean) : []).map((line) =>
          line.endsWith(" true") ? "probe" : (/echo \w+/.exec(line)?.[0] ?? line),
        );
      for (const prompt of ["first", "second"]) {
        e2e.fake.script({ text: `answer to ${prompt}` });
        const result = await e2e.shiro(["-p", prompt], { env });
        expect([result.code, result.stdout.trim()]).toEqual([0, `answer to ${prompt}`]);
      }
      expect(runs()).toEqual([]);
      expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "learned.json"))).toBe(false);
      // The first command probes (`… true`), then runs under that bwrap.
      const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
      e2e.fake.script(bash("echo inside"), { text: "done" });
      expect((await e2e.shiro(["-p", "run it", "--yolo"], { env })).code).toBe(0);
      expect(runs()).toEqual(["probe", "echo inside"]);
      // A later run's command does not probe again.
      e2e.fake.script(bash("echo again"), { text: "done" });
      expect((await e2e.shiro(["-p", "run it again", "--yolo"], { env })).code).toBe(0);
      expect(runs()).toEqual(["probe", "echo inside", "echo again"]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  test("a model's window that the provider reported is asked once, then kept for later runs", async () => {
    // The first answer waits until the listing was answered, so the first run has learned it.
    e2e.fake.respond(async () => {
      for (let i = 0; i < 100 && e2e.fake.modelListings.length === 0; i++) await Bun.sleep(20);
      return { text: "hello" };
    });
    const first = await e2e.shiro(["-p", "hi", "--json", "--model", MODEL]);
    expect(first.code).toBe(0);
    expect(e2e.fake.modelListings.length).toBe(1);
    const second = await e2e.shiro(["-p", "hi again", "--json", "--model", MODEL]);
    expect(second.code).toBe(0);
    expect(e2e.fake.modelListings.length).toBe(1);
    const threshold = doneOf(second.stdout).context.threshold;
    expect(threshold).toBe(doneOf(first.stdout).context.threshold);
    expect(threshold).toBeLessThan(9_000);
  });
});
