/**
 * File tools never write a git dir, through the binary under `-p --yolo` (and again with
 * `--no-plugins`, so the `protect` plugin is not what stops them): a table of spellings of git
 * control paths, each given to every write tool the way a prompt-injected model would, against a
 * real repository with a nested repository, a `gitdir:` file and symlinks into `.git`. Every call
 * gets the one-line refusal, the repository is byte-identical afterwards, and the user's own
 * `git commit` runs no planted hook (a canary outside the workspace stays absent).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { treeState } from "./_tree-state.ts";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

const git = (cwd: string, ...args: string[]) =>
  spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    timeout: 20_000,
  });

/** The spellings of a git control path a model may give (relative to the workspace). */
const HOOK_SPELLINGS = [
  ".git/hooks/pre-commit",
  ".GIT/hooks/pre-commit",
  ".Git/HOOKS/pre-commit",
  ".git/./hooks/pre-commit",
  ".git//hooks/pre-commit",
  "./.git/hooks/pre-commit",
  "src/../.git/hooks/pre-commit",
  ".git/hooks/../hooks/pre-commit",
  "g/hooks/pre-commit",
  "hooks-link/pre-commit",
  "nested/.git/hooks/pre-commit",
  "gd/hooks/pre-commit",
  ".git./hooks/pre-commit",
  "git~1/hooks/pre-commit",
  ".g\u200cit/hooks/pre-commit",
];
const CONFIG_SPELLINGS = [
  ".git/config",
  ".git//config",
  "cfg",
  "g/config",
  "nested/.git/config",
  "gd/config",
  ".git/modules/m/config",
  ".git/config.worktree",
  ".git/commondir",
  ".git/info/attributes",
];
const HOOK = "#!/bin/sh\ntouch CANARY\n";
const CONFIG = "[core]\n\tfsmonitor = touch CANARY\n";

function seedRepository(ws: string): void {
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "src", "a.ts"), "a\n");
  writeFileSync(join(ws, "a.txt"), "text\n");
  git(ws, "init", "-q");
  mkdirSync(join(ws, "nested"));
  git(join(ws, "nested"), "init", "-q");
  mkdirSync(join(ws, "gd"));
  git(join(ws, "gd"), "init", "-q", "--bare");
  mkdirSync(join(ws, "linked"));
  writeFileSync(join(ws, "linked", ".git"), "gitdir: ../gd\n");
  mkdirSync(join(ws, ".git", "modules", "m", "objects"), { recursive: true });
  writeFileSync(join(ws, ".git", "modules", "m", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(ws, ".git", "modules", "m", "config"), "[core]\n");
  symlinkSync(".git", join(ws, "g"));
  symlinkSync(".git/config", join(ws, "cfg"));
  symlinkSync(".git/hooks", join(ws, "hooks-link"));
  git(ws, "add", "src", "a.txt");
  git(ws, "commit", "-q", "-m", "seed");
}

function plantingCalls(canary: string): { name: string; input: unknown }[] {
  const hook = HOOK.replace("CANARY", canary);
  const config = CONFIG.replace("CANARY", canary);
  return [
    ...HOOK_SPELLINGS.map((path) => ({ name: "write_file", input: { path, content: hook } })),
    ...CONFIG_SPELLINGS.map((path) => ({ name: "write_file", input: { path, content: config } })),
    { name: "write_file", input: { path: "linked/.git", content: "gitdir: ../elsewhere\n" } },
    { name: "write_file", input: { path: "fresh/.git", content: "gitdir: ../gd\n" } },
    { name: "edit_file", input: { path: ".git/config", oldString: "[core]", newString: config.trimEnd() } },
    { name: "edit_file", input: { path: "cfg", oldString: "[core]", newString: config.trimEnd() } },
    { name: "multi_edit", input: { path: ".GIT/config", edits: [{ oldString: "[core]", newString: config.trimEnd() }] } },
    { name: "apply_patch", input: { patch: `*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+touch ${canary}\n*** End Patch` } },
    {
      name: "apply_patch",
      input: { patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .git/hooks/post-commit\n@@\n-text\n+#!/bin/sh\n*** End Patch" },
    },
    { name: "apply_patch", input: { patch: "*** Begin Patch\n*** Delete File: .git/HEAD\n*** End Patch" } },
    { name: "move_file", input: { from: "a.txt", to: ".git/hooks/pre-commit" } },
    { name: "move_file", input: { from: ".git", to: "old-git" } },
    { name: "move_file", input: { from: ".git/config", to: "config.bak" } },
    { name: "move_file", input: { from: "nested", to: "nested2" } },
    { name: "move_file", input: { from: "g", to: "g2" } },
    { name: "delete_file", input: { path: ".git/config" } },
    { name: "delete_file", input: { path: ".git/index" } },
    { name: "delete_file", input: { path: "linked/.git" } },
  ];
}

describe("file tools cannot plant anything git runs", () => {
  for (const flags of [["--yolo"], ["--yolo", "--no-plugins"]]) {
    test(`every spelling is refused under ${flags.join(" ")}; the repository is byte-identical and git commit runs nothing`, async () => {
      const ws = e2e.dirs.cwd;
      const outside = mkdtempSync(join(tmpdir(), "shiro-canary-"));
      try {
        seedRepository(ws);
        const canary = join(outside, "planted");
        const calls = plantingCalls(canary);
        const before = treeState(ws, { withGit: true });
        e2e.fake.script({ toolCalls: calls }, { toolCalls: [{ name: "write_file", input: { path: "notes/ok.md", content: "fine\n" } }] }, { text: "done" });
        const result = await e2e.shiro(["-p", "set things up", ...flags], { timeoutMs: 90_000 });
        expect(result.code).toBe(0);

        const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output);
        expect(outputs).toHaveLength(calls.length);
        const unrefused = outputs.flatMap((output, i) =>
          /^Error: Refusing to (?:change|move) .+ file tools never change a git dir \(git runs the hooks and config it finds there\)\. Ask the user to make this change\.$/.test(
            output,
          )
            ? []
            : [{ call: calls[i], output }],
        );
        expect(unrefused).toEqual([]);
        expect(toolResultsOf(e2e.fake.requests[2]!).at(-1)?.output).toBe("Wrote 5 chars to notes/ok.md");

        const after = treeState(ws, { withGit: true }).filter((entry) => !entry.path.startsWith("notes"));
        expect(after).toEqual(before);
        const commit = git(ws, "commit", "-q", "--allow-empty", "-m", "user commit");
        expect(commit.status).toBe(0);
        git(join(ws, "nested"), "commit", "-q", "--allow-empty", "-m", "user commit");
        expect(existsSync(canary)).toBe(false);
      } finally {
        rmSync(outside, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
