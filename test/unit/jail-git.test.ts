/**
 * File tools never write a git dir: the jail's rule (lib/tools/jail.ts over lib/shell/git-layout.ts)
 * as a table of spellings, each write tool refused with nothing on disk changed, a folder move
 * that carries a git dir, and the gate's refusal of a made-up write tool's declared path.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fieldPaths } from "../../lib/approval/write-paths.ts";
import { parsePermissionRules } from "../../lib/approval/rules.ts";
import { createGate } from "../../lib/extensions/gate.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import { isGitDirName } from "../../lib/shell/git-layout.ts";
import { deleteFileTool, editFileTool, moveFileTool, multiEditTool } from "../../lib/tools/edit.ts";
import { writeFileTool } from "../../lib/tools/fs.ts";
import { gitDirRefusal, resolveForWrite, writeInWorkspace } from "../../lib/tools/jail.ts";
import { applyPatchTool } from "../../lib/tools/patch.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import * as v from "valibot";
import { errorOf, makeWorkspace, runTool } from "./tools-workspace.ts";

const ws = makeWorkspace({
  ".git/HEAD": "ref: refs/heads/main\n",
  ".git/config": "[core]\n\tbare = false\n",
  ".git/hooks/pre-commit.sample": "#!/bin/sh\n",
  ".git/objects/info/packs": "",
  ".git/modules/x/HEAD": "ref: refs/heads/main\n",
  ".git/modules/x/config": "[core]\n",
  ".git/modules/x/objects/info/packs": "",
  "vendor/lib/.git/HEAD": "ref: refs/heads/main\n",
  "vendor/lib/.git/config": "[core]\n",
  "vendor/lib/.git/objects/info/packs": "",
  "sub/.git": "gitdir: ../gd\n",
  "gd/HEAD": "ref: refs/heads/main\n",
  "gd/objects/info/packs": "",
  "gd/config": "[core]\n",
  "bare-repo/HEAD": "ref: refs/heads/main\n",
  "bare-repo/objects/info/packs": "",
  "src/a.ts": "a\n",
  "a.txt": "text\n",
});
symlinkSync(join(ws.root, ".git"), join(ws.root, "g"));
symlinkSync(join(ws.root, ".git", "config"), join(ws.root, "cfg"));
symlinkSync(join(ws.root, ".git", "hooks"), join(ws.root, "hooks-link"));
mkdirSync(join(ws.root, "empty"));

afterAll(() => ws.remove());

const REFUSED = [
  ".git/config",
  ".git/hooks/pre-commit",
  ".GIT/config",
  ".Git/hooks/post-checkout",
  ".git/./hooks/pre-commit",
  ".git//config",
  "./.git/config",
  "sub/../.git/hooks/pre-commit",
  "src/../.git/config",
  ".git/",
  ".git",
  ".git/hooks/",
  ".git.",
  ".git /config",
  ".git::$INDEX_ALLOCATION/config",
  "git~1/config",
  "GIT~1/hooks/pre-commit",
  ".g\u200cit/config",
  "\u200e.git/config",
  ".git\\config",
  ".git/info/attributes",
  ".git/commondir",
  ".git/config.worktree",
  ".git/worktrees/w/commondir",
  ".git/objects/ab/cdef",
  ".git/refs/heads/main",
  ".git/HEAD",
  ".git/index",
  ".git/modules/x/config",
  "vendor/lib/.git/config",
  "vendor/lib/.git",
  "sub/.git",
  "new/place/.git",
  "gd/config",
  "gd/hooks/post-checkout",
  "bare-repo/hooks/pre-receive",
  "g/config",
  "g/hooks/pre-commit",
  "g",
  "cfg",
  "hooks-link/pre-commit",
];
const PASSED = [
  "src/a.ts",
  ".github/workflows/ci.yml",
  ".gitignore",
  ".gitattributes",
  ".gitmodules",
  ".git-blame-ignore-revs",
  "my.git.txt",
  "git/config",
  "docs/.git-notes.md",
  "empty/x",
  "vendor/lib/README.md",
  "sub/file.txt",
];

describe("which paths are a git dir's", () => {
  test("every spelling of a git dir path is refused with one line; look-alikes pass", () => {
    const refused = REFUSED.map((path) => [path, gitDirRefusal(ws.root, path)?.startsWith(`Refusing to change ${path}: `) ?? false]);
    expect(refused.filter(([, yes]) => !yes)).toEqual([]);
    expect(REFUSED.flatMap((path) => (gitDirRefusal(ws.root, path)?.includes("\n") ? [path] : []))).toEqual([]);
    expect(PASSED.map((path) => [path, gitDirRefusal(ws.root, path)])).toEqual(PASSED.map((path) => [path, undefined]));
    expect(gitDirRefusal(ws.root, join(ws.root, ".git", "config"))).toContain("it is inside .git");
    expect(gitDirRefusal(ws.root, "../outside/.git/config")).toBeUndefined();
  });

  test("the wording names what was found", () => {
    expect(gitDirRefusal(ws.root, ".git/hooks/pre-commit")).toBe(
      "Refusing to change .git/hooks/pre-commit: it is inside .git (hooks/: programs git runs on commit, checkout, merge, push), and file tools never change a git dir (git runs the hooks and config it finds there). Ask the user to make this change.",
    );
    expect(gitDirRefusal(ws.root, "sub/.git")).toStartWith("Refusing to change sub/.git: it is sub/.git itself,");
    expect(gitDirRefusal(ws.root, "g/config")).toStartWith("Refusing to change g/config: it leads to .git/config through a symlink,");
    expect(gitDirRefusal(ws.root, "gd/hooks/x")).toStartWith("Refusing to change gd/hooks/x: gd is a git dir (it holds HEAD and objects),");
    expect(() => resolveForWrite(ws.root, ".GIT/CONFIG")).toThrow("Refusing to change .GIT/CONFIG: it is inside .GIT (config: keys that name programs");
    expect(gitDirRefusal(ws.root, ".git/objects/ab/cd")).toStartWith("Refusing to change .git/objects/ab/cd: it is inside .git, and");
    expect(resolveForWrite(ws.root, "src/a.ts")).toBe(join(ws.root, "src/a.ts"));
  });

  test("isGitDirName: the names git itself treats as .git", () => {
    const names = [
      ".git",
      ".GIT",
      ".gIt",
      ".git.",
      ".git..",
      ".git ",
      ".git . ",
      ".git:stream",
      ".git::$INDEX_ALLOCATION",
      "git~1",
      "GIT~2",
      ".g\u200dit",
      "\ufeff.git",
    ];
    expect(names.filter((name) => !isGitDirName(name))).toEqual([]);
    const not = [".gitignore", ".git-x", "git", ".gi", "..git", "x.git", ".git~1", ".github", "git~"];
    expect(not.filter((name) => isGitDirName(name))).toEqual([]);
  });
});

describe("every write tool refuses a git dir and leaves the bytes as they were", () => {
  const calls: [ToolDefinition<any>, unknown][] = [
    [writeFileTool, { path: ".git/hooks/pre-commit", content: "#!/bin/sh\ntouch /tmp/pwned\n" }],
    [writeFileTool, { path: ".GIT/config", content: "[core]\n\tfsmonitor = touch /tmp/pwned\n" }],
    [writeFileTool, { path: "sub/.git", content: "gitdir: ../elsewhere\n" }],
    [writeFileTool, { path: "fresh/.git", content: "gitdir: ../gd\n" }],
    [writeFileTool, { path: "g/hooks/post-checkout", content: "#!/bin/sh\n" }],
    [editFileTool, { path: ".git/config", oldString: "bare = false", newString: "fsmonitor = touch /tmp/pwned" }],
    [editFileTool, { path: "cfg", oldString: "bare = false", newString: "fsmonitor = x" }],
    [multiEditTool, { path: "vendor/lib/.git/config", edits: [{ oldString: "[core]", newString: "[core]\n\tfsmonitor = x" }] }],
    [applyPatchTool, { patch: "*** Begin Patch\n*** Add File: .git/hooks/pre-push\n+#!/bin/sh\n*** End Patch" }],
    [applyPatchTool, { patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .git/hooks/pre-commit\n@@\n-text\n+#!/bin/sh\n*** End Patch" }],
    [applyPatchTool, { patch: "*** Begin Patch\n*** Delete File: .git/HEAD\n*** End Patch" }],
    [moveFileTool, { from: "a.txt", to: ".git/hooks/pre-commit" }],
    [moveFileTool, { from: ".git", to: "old-git" }],
    [moveFileTool, { from: ".git/config", to: "config.bak" }],
    [moveFileTool, { from: "vendor", to: "vendor2" }],
    [moveFileTool, { from: "gd", to: "gd2" }],
    [deleteFileTool, { path: ".git/config" }],
    [deleteFileTool, { path: "sub/.git" }],
    [deleteFileTool, { path: ".git/modules/x/config" }],
  ];
  for (const [tool, input] of calls) {
    test(`${tool.name} ${JSON.stringify(input).slice(0, 90)}`, async () => {
      const before = ws.snapshot();
      const message = await errorOf(runTool(tool, input, ws.root));
      expect(message).toMatch(/^Refusing to (?:change|move) \S+: .+ file tools never change a git dir .+$/);
      expect(message).not.toContain("\n");
      expect(ws.snapshot()).toEqual(before);
    });
  }

  test("writeInWorkspace (the write every tool ends in) refuses on its own, and ordinary writes still work", async () => {
    expect(await errorOf(writeInWorkspace(ws.root, ".git/hooks/pre-commit", "x"))).toStartWith("Refusing to change .git/hooks/pre-commit:");
    const written: string[] = [];
    const files = { read: async () => undefined, write: async (path: string) => void written.push(path) };
    expect(await errorOf(writeInWorkspace(ws.root, ".git/config", "x", undefined, files as never))).toStartWith("Refusing to change .git/config:");
    expect(written).toEqual([]);
    expect(await runTool(writeFileTool, { path: "notes/new.md", content: "hi\n" }, ws.root)).toBe("Wrote 3 chars to notes/new.md");
    expect(await runTool(moveFileTool, { from: "notes", to: "notes2" }, ws.root)).toBe("Moved notes to notes2");
  });
});

describe("the gate refuses a declared git dir path of any write tool", () => {
  const scribble: ToolDefinition<{ target: string }> = {
    name: "scribble",
    description: "made up",
    schema: v.object({ target: v.string() }),
    effect: "write",
    paths: fieldPaths("target"),
    decision: "allow",
    execute: async () => "written",
  };
  const gate = createGate({
    rules: parsePermissionRules({}),
    plugins: createPluginHost({ cwd: ws.root, writeStderr: () => {} }),
    yolo: true,
    decide: async () => "once",
  });

  test("under --yolo and an allow declaration, with no plugins", async () => {
    const check = (target: string) => gate.check({ callId: "c", tool: scribble as ToolDefinition, name: "scribble", input: { target }, cwd: ws.root });
    expect(await check(".GIT/hooks/pre-commit")).toEqual({ allowed: false, by: "rule", reason: gitDirRefusal(ws.root, ".GIT/hooks/pre-commit")! });
    expect(await check("hooks-link/x")).toMatchObject({ allowed: false, by: "rule" });
    expect(await check("src/b.ts")).toEqual({ allowed: true });
  });
});
