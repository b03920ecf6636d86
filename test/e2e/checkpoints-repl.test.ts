/**
 * /undo, /redo and /rewind in the REPL (the pty driver) on a session of three turns: each shows
 * what it will do and asks; the files on disk and the next request's transcript show what it did;
 * a hand edit since the turn is refused, named, and nothing changes.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, userTextsOf, useE2E } from "./_harness.ts";
import { startPty } from "./_pty.ts";
import { treeState } from "./_tree-state.ts";

const e2e = useE2E();
const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });

test("three turns, then /undo, /redo, /rewind 2 (both), and the hand-edit refusal", async () => {
  const cwd = e2e.dirs.cwd;
  writeFileSync(join(cwd, "keep.txt"), "keep\n");
  const start = treeState(cwd);
  e2e.fake.script(
    bash("echo one > a.txt"),
    { text: "turn one done" },
    bash("echo two > b.txt && echo changed > keep.txt"),
    { text: "turn two done" },
    { toolCalls: [{ name: "write_file", input: { path: "c.txt", content: "three\n" } }] },
    { text: "turn three done" },
    { text: "after the rewind" },
  );
  const repl = startPty(["--yolo"], { cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
  try {
    let at = await repl.until("› ");
    repl.type("first turn\r");
    at = await repl.until("turn one done", at);
    repl.type("second turn\r");
    at = await repl.until("turn two done", at);
    repl.type("third turn\r");
    at = await repl.until("turn three done", at);
    at = await repl.until(": /undo takes this turn's changes back", at);
    const afterThree = treeState(cwd);

    repl.type("/undo\r");
    at = await repl.until("  remove c.txt\n", at);
    at = await repl.until("Go ahead? y yes | n no ", at);
    repl.type("y\r");
    at = await repl.until("taken back: 1 path", at);
    expect(existsSync(join(cwd, "c.txt"))).toBe(false);

    repl.type("/redo\r");
    at = await repl.until("  restore c.txt\n", at);
    at = await repl.until("Go ahead?", at);
    repl.type("y\r");
    at = await repl.until("put back: 1 path", at);
    expect(treeState(cwd)).toEqual(afterThree);

    repl.type("/rewind\r");
    at = await repl.until("  1  first turn", at);
    at = await repl.until("  2  second turn  (2 files changed)", at);
    at = await repl.until("  3  third turn  (1 file changed)", at);
    repl.type("/rewind 2\r");
    at = await repl.until("f files | c conversation | b both | n nothing ", at);
    repl.type("b\r");
    at = await repl.until("conversation taken back to before turn 2", at);
    expect(treeState(cwd).map((entry) => entry.path)).toEqual(["a.txt", "keep.txt"]);
    expect(readFileSync(join(cwd, "keep.txt"), "utf8")).toBe("keep\n");

    repl.type("next turn\r");
    at = await repl.until("after the rewind", at);
    expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["first turn", "next turn"]);

    writeFileSync(join(cwd, "a.txt"), "by hand\n");
    repl.type("/undo\r");
    at = await repl.until("changed since shiro's checkpoint", at);
    at = await repl.until("  a.txt\n", at);
    at = await repl.until("`/undo force` overwrites them", at);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("by hand\n");
    repl.type("/undo force\r");
    at = await repl.until("Go ahead?", at);
    repl.type("y\r");
    await repl.until("taken back: 1 path", at);
    expect(treeState(cwd)).toEqual(start);
  } finally {
    repl.kill();
    await repl.exited;
  }
}, 90_000);

test("the guard trusts the checkpoint: rm -rf of a covered folder asks (saying it can be rewound) instead of refusing, and /undo brings it back", async () => {
  const cwd = e2e.dirs.cwd;
  mkdirSync(join(cwd, "build", "deep"), { recursive: true });
  writeFileSync(join(cwd, "build", "deep", "out.txt"), "built\n");
  writeFileSync(join(cwd, "keep.txt"), "keep\n");
  const start = treeState(cwd);
  e2e.fake.script(bash("rm -rf build"), { text: "cleaned" }, bash("git push --force"), { text: "pushed?" });
  const repl = startPty([], { cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
  try {
    let at = await repl.until("› ");
    repl.type("clean the build\r");
    at = await repl.until(
      "The guard plugin asks: this would be refused (recursive or forced delete), but a checkpoint covers it: /undo or shiro rewind takes it back",
      at,
    );
    at = await repl.until("| n deny ", at);
    repl.type("y\r");
    at = await repl.until("cleaned", at);
    expect(existsSync(join(cwd, "build"))).toBe(false);
    repl.type("/undo\r");
    at = await repl.until("Go ahead?", at);
    repl.type("y\r");
    at = await repl.until("taken back", at);
    expect(treeState(cwd)).toEqual(start);
    repl.type("push it\r");
    at = await repl.until("pushed?", at);
    expect(repl.screen().slice(at - 400)).toContain("Blocked by the guard plugin");
  } finally {
    repl.kill();
    await repl.exited;
  }
}, 60_000);

test("a worker subagent's changes are in the parent turn's checkpoint; shiro rewind on a terminal shows the plan and asks", async () => {
  const cwd = e2e.dirs.cwd;
  writeFileSync(join(cwd, "keep.txt"), "keep\n");
  const start = treeState(cwd);
  e2e.fake.script(
    { toolCalls: [{ name: "task", input: { description: "make a file", prompt: "create w.txt", kind: "worker" } }] },
    bash("echo worker > w.txt && echo touched > keep.txt"),
    { text: "made w.txt" },
    { text: "delegated" },
  );
  const repl = startPty(["--yolo"], { cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
  try {
    let at = await repl.until("› ");
    repl.type("delegate it\r");
    at = await repl.until("delegated", at);
    // The checkpoint is recorded as the turn ends: wait for the next prompt before leaving.
    repl.type("/rewind\r");
    await repl.until("  1  delegate it  (2 files changed)", at);
    expect(readFileSync(join(cwd, "w.txt"), "utf8")).toBe("worker\n");
  } finally {
    repl.kill();
    await repl.exited;
  }
  const listed = JSON.parse((await e2e.shiro(["rewind", "--json"])).stdout);
  expect(listed).toHaveLength(1);
  expect(listed[0].files.map((file: { path: string }) => file.path)).toEqual(["keep.txt", "w.txt"]);
  const asking = startPty(["rewind", listed[0].id.slice(0, 12)], { cwd, home: e2e.dirs.home, env: {} });
  try {
    let at = await asking.until("  remove w.txt\n");
    at = await asking.until("Rewind? y yes | n no ", at);
    asking.type("y\r");
    await asking.until("rewound 2 paths", at);
    expect(await asking.exited).toBe(0);
  } finally {
    asking.kill();
  }
  expect(treeState(cwd)).toEqual(start);
}, 60_000);
