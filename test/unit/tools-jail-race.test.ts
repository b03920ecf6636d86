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

describe("writes under a symlink race", () => {
  test(`${ROUNDS} rounds of write_file, edit_file and apply_patch through a flipping link leave the outside untouched`, async () => {
    const outcomes = { written: 0, refused: 0, other: [] as string[] };
    const attempt = async (run: Promise<string>) => {
      try {
        await run;
        outcomes.written++;
      } catch (error) {
        const message = (error as Error).message;
        if (message.startsWith("Path escapes workspace") || message.includes("Path escapes workspace")) outcomes.refused++;
        else outcomes.other.push(message);
      }
    };
    const swaps = await whileSwapping(join(ws.root, "link"), join(ws.root, "inside.txt"), join(outside.root, "target.txt"), async () => {
      for (let i = 0; i < ROUNDS; i++) {
        await attempt(runTool(writeFileTool, { path: "link", content: `written ${i} x\n` }, ws.root));
        await attempt(runTool(editFileTool, { path: "link", oldString: "x", newString: "x" + "" + " " }, ws.root));
        await attempt(runTool(applyPatchTool, { patch: `*** Begin Patch\n*** Update File: link\n@@\n-${"written"}\n+written\n*** End Patch` }, ws.root));
      }
    });
    // A folder link, flipped the same way, under a file that does not exist yet.
    const folderSwaps = await whileSwapping(join(ws.root, "dir"), join(ws.root, "sub"), outside.root, async () => {
      for (let i = 0; i < ROUNDS; i++) await attempt(runTool(writeFileTool, { path: `dir/new-${i}.txt`, content: "n\n" }, ws.root));
    });
    expect(readFileSync(join(outside.root, "target.txt"), "utf8")).toBe("untouched x\n");
    expect(readdirSync(outside.root).sort()).toEqual(["target.txt"]);
    // Nor did outside bytes come in: no edit or roll-back copied what a link showed outside.
    expect(readFileSync(join(ws.root, "inside.txt"), "utf8")).not.toContain("untouched");
    expect(swaps).toBeGreaterThan(ROUNDS);
    expect(folderSwaps).toBeGreaterThan(ROUNDS);
    // Which attempts land inside and which are refused depends on timing; what must hold is above.
    expect(outcomes.written + outcomes.refused + outcomes.other.length).toBe(ROUNDS * 4);
  }, 120_000);
});
