/**
 * The guard and bash rules through the binary, under --yolo: the fake model asks for each
 * destructive spelling against its own throwaway target (a folder, a folder's modes, a git repo
 * with a diverged remote), every call must come back refused, and every target must still be
 * there. Near misses run for real, so the guard is not simply refusing everything. The control,
 * that each spelling does damage its target when nothing guards it, runs the same calls in-process
 * (test/unit/guard-control.test.ts). Commands that could hurt the machine if a refusal failed
 * (kill -9 -1, mkfs, shutdown) are in the unit table.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { git, prepareTargets, REFUSED, UNREADABLE, type Kind } from "../guard-cases.ts";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

const _prepare = (cases: { kind: Kind; command: string }[]) => prepareTargets(e2e.dirs.cwd, e2e.dirs.home, cases);

/** Commands that must run: [kind, command, what running it leaves]. */
const RUN: [Kind, string, (target: string) => boolean][] = [
  ["dir", "rm T/keep.txt", (target) => !existsSync(join(target, "keep.txt"))],
  ["dir", "echo 'rm -rf T' > T/note.txt", (target) => readFileSync(join(target, "note.txt"), "utf8").startsWith("rm -rf ")],
  ["dir", "find T -name '*.txt' > T/found.txt", (target) => readFileSync(join(target, "found.txt"), "utf8").includes("keep.txt")],
  ["mode", "chmod -R go-w T && touch T/ran", (target) => existsSync(join(target, "ran"))],
  ["repo", "cd T && git checkout -- tracked.txt", (target) => readFileSync(join(target, "tracked.txt"), "utf8") === "committed\n"],
  [
    "repo",
    "cd T && git restore --staged . && git status --short > ../status.txt",
    (target) => readFileSync(join(target, "..", "status.txt"), "utf8").includes("tracked.txt"),
  ],
  ["repo", "cd T && git branch -d merged", (target) => !git(target, "branch", "--list", "merged").includes("merged")],
];

describe("the guard under --yolo, through the binary", () => {
  test(`refuses ${REFUSED.length} destructive spellings, and every throwaway target survives`, async () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(100);
    const cases = _prepare(REFUSED);
    for (const target of cases) expect([target.original, target.intact()]).toEqual([target.original, true]);
    e2e.fake.script({ toolCalls: cases.map((target) => ({ name: "bash", input: { command: target.command } })) }, { text: "I will ask you instead." });
    // Without checkpoints: with one, a delete inside the workspace is a question instead (test/e2e/checkpoints.test.ts).
    const result = await e2e.shiro(["-p", "clean everything up", "--yolo", "--no-checkpoints"], { timeoutMs: 120_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((entry) => entry.output);
    expect(outputs).toHaveLength(cases.length);
    const notRefused = cases.filter((_, i) => !outputs[i]!.startsWith("Error: Blocked by the guard plugin: refusing ")).map((target) => target.original);
    const damaged = cases.filter((target) => !target.intact()).map((target) => target.original);
    expect({ notRefused, damaged }).toEqual({ notRefused: [], damaged: [] });
  }, 180_000);

  test("near misses run for real: a plain rm, an echo of a command, a narrow checkout, a merged branch delete", async () => {
    const cases = _prepare(RUN.map(([kind, command]) => ({ kind, command })));
    e2e.fake.script({ toolCalls: cases.map((target) => ({ name: "bash", input: { command: target.command } })) }, { text: "Done." });
    const result = await e2e.shiro(["-p", "tidy up", "--yolo"], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((entry) => entry.output);
    cases.forEach((target, i) => {
      expect([target.original, outputs[i]!.split("\n")[0]]).toEqual([target.original, "exit: 0"]);
      expect([target.original, RUN[i]![2](join(e2e.dirs.cwd, target.path))]).toEqual([target.original, true]);
    });
  }, 60_000);
});

const _PLUGIN_REFUSAL =
  /^Error: (?:Blocked by the guard plugin: refusing |Denied: nobody can be asked in a headless run\. The guard plugin asks: cannot tell what )/;

describe("the guard fails closed on what it cannot read, through the binary under --yolo", () => {
  test(`${UNREADABLE.length} unreadable spellings are refused or asked (so denied headless), and every target survives`, async () => {
    const cases = _prepare(UNREADABLE.map(({ command }) => ({ kind: "dir" as const, command })));
    e2e.fake.script({ toolCalls: cases.map((target) => ({ name: "bash", input: { command: target.command } })) }, { text: "I will ask you instead." });
    // Without checkpoints: with one, a covered delete is the checkpoint's question instead (test/e2e/checkpoints.test.ts).
    const result = await e2e.shiro(["-p", "clean everything up", "--yolo", "--no-checkpoints"], { timeoutMs: 120_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((entry) => entry.output);
    expect(outputs).toHaveLength(cases.length);
    const notStopped = cases.filter((_, i) => !_PLUGIN_REFUSAL.test(outputs[i]!)).map((target) => [target.original, outputs[cases.indexOf(target)]]);
    const damaged = cases.filter((target) => !target.intact()).map((target) => target.original);
    expect({ notStopped, damaged }).toEqual({ notStopped: [], damaged: [] });
    const asked = outputs.filter((output) => output.includes("The guard plugin asks: ")).length;
    console.log(`guard e2e: ${cases.length} unreadable spellings stopped: ${cases.length - asked} refused by a rule, ${asked} asked and denied headless`);
  }, 180_000);

  test("near misses with expansions as plain arguments run for real", async () => {
    const commands = [
      'f=T/keep.txt; cat "$f"',
      "echo $HOME > /dev/null",
      'x=T; ls "$x"',
      'git -C "$PWD" status --short > /dev/null 2>&1 || true',
      'rm -- "T/keep.txt"',
    ];
    const cases = _prepare(commands.map((command) => ({ kind: "dir" as const, command })));
    e2e.fake.script({ toolCalls: cases.map((target) => ({ name: "bash", input: { command: target.command } })) }, { text: "Done." });
    const result = await e2e.shiro(["-p", "look around", "--yolo"], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((entry) => entry.output.split("\n")[0]);
    expect(outputs.map((output, i) => [commands[i], output])).toEqual(commands.map((command) => [command, "exit: 0"]));
    expect(existsSync(join(e2e.dirs.cwd, cases[4]!.path, "keep.txt"))).toBe(false);
  }, 60_000);
});

describe("bash permission rules through the binary", () => {
  test('"git push*": "deny" refuses every spelling under --yolo, and the remote keeps its commit', async () => {
    const spellings = [
      "git push origin HEAD:main",
      "/usr/bin/git push origin HEAD:main",
      "env X=1 git  push origin HEAD:main",
      "timeout 5 git push origin HEAD:main",
      "true && git push origin HEAD:main",
      "echo $(git push origin HEAD:main)",
      "git -C . push origin HEAD:main",
      "bash -c 'git push origin HEAD:main'",
      "command git push origin HEAD:main",
      "echo origin | xargs -I{} git push {} HEAD:main",
    ];
    const cases = _prepare(
      spellings.map((command) => ({ kind: "repo" as const, command: `cd T && git checkout -q -b side && ${command.replace(/HEAD:main/g, "HEAD:side")}` })),
    );
    e2e.writeConfig({ permission: { bash: { "*": "allow", "git push*": "deny" } } });
    e2e.fake.script({ toolCalls: cases.map((target) => ({ name: "bash", input: { command: target.command } })) }, { text: "Not pushed." });
    const result = await e2e.shiro(["-p", "publish", "--yolo"], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((entry) => entry.output);
    cases.forEach((target, i) => {
      expect([spellings[i], outputs[i]]).toEqual([spellings[i], 'Error: Refused by the permission rule bash: "git push*" = deny.']);
      const remote = join(e2e.dirs.cwd, target.path, "..", "remote.git");
      expect([spellings[i], spawnSync("git", ["rev-parse", "--verify", "-q", "side"], { cwd: remote, encoding: "utf8" }).status]).toEqual([spellings[i], 1]);
    });
  }, 60_000);
});
