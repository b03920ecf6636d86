/** The jail's read-only allowance for loaded skills' folders: those files read, nothing written, nothing beside them reached. */
import { afterAll, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { allowReadOnly } from "../../lib/tools/jail.ts";
import { readFileTool, writeFileTool } from "../../lib/tools/fs.ts";
import { errorOf, makeWorkspace, runTool } from "./tools-workspace.ts";

const ws = makeWorkspace({ "a.txt": "a\n" });
const skills = makeWorkspace({ "pdf/SKILL.md": "skill\n", "pdf/reference.md": "the reference\n", "other/secret.md": "not loaded\n" }, "shiro-skills-");
symlinkSync(join(skills.root, "other", "secret.md"), join(skills.root, "pdf", "link-out.md"));
afterAll(() => {
  ws.remove();
  skills.remove();
});

test("a loaded skill's folder is readable from the workspace, by absolute path; writes there and reads beside it stay refused", async () => {
  const folder = join(skills.root, "pdf");
  expect(await errorOf(runTool(readFileTool, { path: join(folder, "reference.md") }, ws.root))).toBe(`Path escapes workspace: ${join(folder, "reference.md")}`);
  allowReadOnly([folder]);
  expect(await runTool(readFileTool, { path: join(folder, "reference.md") }, ws.root)).toContain("the reference");
  expect(await errorOf(runTool(writeFileTool, { path: join(folder, "reference.md"), content: "x" }, ws.root))).toBe(
    `Path escapes workspace: ${join(folder, "reference.md")}`,
  );
  expect(await errorOf(runTool(writeFileTool, { path: join(folder, "new.md"), content: "x" }, ws.root))).toBe(
    `Path escapes workspace: ${join(folder, "new.md")}`,
  );
  expect(await errorOf(runTool(readFileTool, { path: join(skills.root, "other", "secret.md") }, ws.root))).toBe(
    `Path escapes workspace: ${join(skills.root, "other", "secret.md")}`,
  );
  // A link inside the allowed folder that points beside it is judged by what it points at.
  expect(await errorOf(runTool(readFileTool, { path: join(folder, "link-out.md") }, ws.root))).toBe(`Path escapes workspace: ${join(folder, "link-out.md")}`);
  expect(skills.read("pdf/reference.md")).toBe("the reference\n");
});
