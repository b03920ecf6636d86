/**
 * Writes under a symlink race: a background process flips links between the workspace and a
 * folder outside it while write_file, edit_file and apply_patch write through them; the outside
 * files keep their bytes, no file appears outside, and no outside bytes are copied in.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { editFileTool } from "../../lib/tools/edit.ts";
import { writeFileTool } from "../../lib/tools/fs.ts";
import { applyPatchTool } from "../../lib/tools/patch.ts";
import { makeWorkspace, runTool } from "./tools-workspace.ts";

const SWAPPER = resolve(import.meta.dir, "..", "fixtures", "swap-symlink.ts");
const ROUNDS = 150;
const ws = makeWorkspace({ "inside.txt": "x\n", "sub/keep.txt": "k\n" }, "shiro-race-ws-");
const outside = makeWorkspace({ "target.txt": "untouched x\n" }, "shiro-race-out-");
afterAll(() => {
  ws.remove();
  outside.remove();
});

/** Runs `work` while `link` flips between `a` and `b`; returns how many swaps happened. */
async function whileSwapping(link: string, a: string, b: string, work: () => Promise<void>): Promise<number> {
  symlinkSync(a, link);
  const swapper = spawn(process.execPath, [SWAPPER, link, a, b, "60000"], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  swapper.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const exited = new Promise<void>((done) => swapper.on("close", () => done()));
  await new Promise<void>((started) => swapper.stdout.once("data", () => started()));
  try {
    await work();
  } finally {
    swapper.stdin.end();
    const killer = setTimeout(() => swapper.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(killer);
  }
  return Number(out.trim().split("\n").at(-1));
}

/** What one round does through `link`: write the file, edit what was written, patch what was edited. */
const round = (i: number, link: string) =>
  [
    () => runTool(writeFileTool, { path: link, content: `round ${i} A\n` }, ws.root),
    () => runTool(editFileTool, { path: link, oldString: "A", newString: "B" }, ws.root),
    () => runTool(applyPatchTool, { patch: `*** Begin Patch\n*** Update File: ${link}\n@@\n-round ${i} B\n+round ${i} C\n*** End Patch` }, ws.root),
  ] as const;

/** The failures a step may meet only because an earlier step of its round did not write. */
const KNOCK_ON = [/^oldString not found in /, /: the - lines do not match the file\. Nothing was written\.$/];

describe("writes under a symlink race", () => {
  test("each step of a round writes through a link that stays inside (so the race is what refuses them)", async () => {
    symlinkSync(join(ws.root, "inside.txt"), join(ws.root, "steady"));
    for (const step of round(0, "steady")) await step();
    expect(readFileSync(join(ws.root, "inside.txt"), "utf8")).toBe("round 0 C\n");
  });

  test(`${ROUNDS} rounds of write_file, edit_file and apply_patch through a flipping link leave the outside untouched`, async () => {
    const outcomes = { written: 0, refused: 0, other: [] as string[] };
    /** Runs one round's steps; a step fails only by the jail's refusal, or by a knock-on of one. */
    const attemptRound = async (steps: readonly (() => Promise<string>)[]) => {
      let allWrote = true;
      for (const step of steps) {
        try {
          await step();
          outcomes.written++;
        } catch (error) {
          const message = (error as Error).message;
          if (message.includes("Path escapes workspace")) outcomes.refused++;
          else if (!allWrote && KNOCK_ON.some((pattern) => pattern.test(message))) outcomes.refused++;
          else outcomes.other.push(message);
          allWrote = false;
        }
      }
    };
    const swaps = await whileSwapping(join(ws.root, "link"), join(ws.root, "inside.txt"), join(outside.root, "target.txt"), async () => {
      for (let i = 0; i < ROUNDS; i++) await attemptRound(round(i, "link"));
    });
    // A folder link, flipped the same way, under a file that does not exist yet.
    const folderSwaps = await whileSwapping(join(ws.root, "dir"), join(ws.root, "sub"), outside.root, async () => {
      for (let i = 0; i < ROUNDS; i++) await attemptRound([() => runTool(writeFileTool, { path: `dir/new-${i}.txt`, content: "n\n" }, ws.root)]);
    });
    expect(readFileSync(join(outside.root, "target.txt"), "utf8")).toBe("untouched x\n");
    expect(readdirSync(outside.root).sort()).toEqual(["target.txt"]);
    // Nor did outside bytes come in: no edit or roll-back copied what a link showed outside.
    expect(readFileSync(join(ws.root, "inside.txt"), "utf8")).not.toContain("untouched");
    expect(swaps).toBeGreaterThan(ROUNDS);
    expect(folderSwaps).toBeGreaterThan(ROUNDS);
    // Which attempts land inside and which are refused depends on timing; a failure of any other
    // kind (a bad input, a full disk, a permission) fails here.
    expect(outcomes.other).toEqual([]);
    expect(outcomes.written + outcomes.refused).toBe(ROUNDS * 4);
  }, 120_000);
});
