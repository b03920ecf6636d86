/**
 * The git tools stay inside the workspace when it is a subfolder of its repository: paths,
 * `REF:PATH` in every form git reads, and diffs without a path. And diff sections about possible
 * secrets are withheld.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGitTools } from "../../lib/tools/git.ts";
import { splitRefPath } from "../../lib/approval/write-paths.ts";
import { scopeRefPath, withholdSecretDiffs } from "../../lib/tools/git-scope.ts";
import { errorOf, runTool } from "./tools-workspace.ts";

let repo = "";
let ws = "";
const prompts: string[] = [];
const tools = createGitTools({
  complete: async (_system, prompt) => {
    prompts.push(prompt);
    return "Change things";
  },
});
const run = (name: string, input: Record<string, unknown>) => runTool(tools.find((tool) => tool.name === name)!, input, ws);

function git(cwd: string, ...args: string[]): void {
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
  };
  const result = spawnSync("git", ["-c", "commit.gpgsign=false", ...args], { cwd, env, encoding: "utf8", timeout: 10_000 });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

beforeAll(() => {
  repo = realpathSync(mkdtempSync(join(tmpdir(), "shiro-git-scope-")));
  ws = join(repo, "ws");
  mkdirSync(ws);
  writeFileSync(join(repo, "outside.txt"), "outside-content\n");
  writeFileSync(join(ws, "inside.txt"), "inside-content\n");
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "seed");
  writeFileSync(join(repo, "outside.txt"), "outside-changed\n");
  writeFileSync(join(ws, "inside.txt"), "inside-changed\n");
  git(repo, "add", "-A");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe("REF:PATH", () => {
  test("split where git splits it", () => {
    expect(splitRefPath("HEAD:a/b.ts")).toEqual({ rev: "HEAD", path: "a/b.ts" });
    expect(splitRefPath(":0:a.ts")).toEqual({ rev: ":0", path: "a.ts" });
    expect(splitRefPath(":a.ts")).toEqual({ rev: "", path: "a.ts" });
    expect(splitRefPath(":/fix: bug")).toEqual({ rev: ":/fix: bug" });
    expect(splitRefPath("HEAD^{/fix: x}:a.ts")).toEqual({ rev: "HEAD^{/fix: x}", path: "a.ts" });
    expect(splitRefPath("HEAD~2")).toEqual({ rev: "HEAD~2" });
  });

  test("read from the repository top, or from the workspace after ./ and ../", () => {
    expect(scopeRefPath("ws/a.ts", "ws/")).toBe("a.ts");
    expect(scopeRefPath("./a.ts", "ws/")).toBe("a.ts");
    expect(scopeRefPath("ws", "ws/")).toBe(".");
    expect(scopeRefPath("a.ts", "")).toBe("a.ts");
    for (const [path, prefix] of [
      ["../x", "ws/"],
      ["outside.txt", "ws/"],
      ["", "ws/"],
      ["..", ""],
      ["ws/../outside.txt", "ws/"],
      ["wsx/a", "ws/"],
      ["./../ws2/a", "ws/"],
    ]) {
      expect(() => scopeRefPath(path!, prefix!)).toThrow("Path escapes workspace");
    }
  });
});

describe("a workspace inside a larger repository", () => {
  test("git_show and git_blame refuse REF:PATH and paths outside it", async () => {
    for (const ref of ["HEAD:../outside.txt", "HEAD:outside.txt", "HEAD:", ":../outside.txt", ":0:outside.txt", "HEAD:ws/../outside.txt"]) {
      expect([ref, (await errorOf(run("git_show", { ref }))).slice(0, 22)]).toEqual([ref, "Path escapes workspace"]);
    }
    for (const name of ["git_blame", "git_log", "git_diff"]) {
      expect([name, await errorOf(run(name, { path: "../outside.txt" }))]).toEqual([name, "Path escapes workspace: ../outside.txt"]);
    }
    expect(await errorOf(run("git_show", { ref: "HEAD", path: "../outside.txt" }))).toBe("Path escapes workspace: ../outside.txt");
  });

  test("inside paths work in every spelling", async () => {
    for (const ref of ["HEAD:ws/inside.txt", "HEAD:./inside.txt", `HEAD:${"./"}../ws/inside.txt`])
      expect(await run("git_show", { ref })).toBe("inside-content");
    expect(await run("git_blame", { path: "./inside.txt" })).toContain("inside-changed");
  });

  test("diffs, commits and status without a path show only the workspace", async () => {
    const shown = await run("git_show", { ref: "HEAD" });
    expect(shown).toContain("inside-content");
    expect(shown).not.toContain("outside");
    const staged = await run("git_diff", { staged: true });
    expect(staged).toContain("inside-changed");
    expect(staged).not.toContain("outside");
    expect(await run("git_status", {})).not.toContain("outside");
    await run("git_commit_message", {});
    expect(prompts.at(-1)).toContain("inside-changed");
    expect(prompts.at(-1)).not.toContain("outside");
  });
});

describe("withholdSecretDiffs", () => {
  const diff = [
    "commit abc",
    "",
    "    msg",
    "",
    "diff --git a/src/a.ts b/src/a.ts",
    "--- a/src/a.ts",
    "+++ b/src/a.ts",
    "@@ -1 +1 @@",
    "-a",
    "+b",
    "diff --git a/config/.env b/config/.env",
    "--- a/config/.env",
    "+++ b/config/.env",
    "@@ -1 +1 @@",
    "-T=1",
    "+T=2",
    "diff --git a/notes.txt b/notes.txt",
    "+-----BEGIN RSA PRIVATE KEY-----",
    "+abc",
    "",
  ].join("\n");

  test("replaces sections about secrets by name or shape, keeps the rest", () => {
    expect(withholdSecretDiffs(diff)).toBe(
      [
        "commit abc",
        "",
        "    msg",
        "",
        "diff --git a/src/a.ts b/src/a.ts",
        "--- a/src/a.ts",
        "+++ b/src/a.ts",
        "@@ -1 +1 @@",
        "-a",
        "+b",
        "diff --git a/config/.env b/config/.env",
        "[withheld: config/.env may hold secrets (an env file). Ask the user, or name it in git_show REF:PATH, which asks them.]",
        "diff --git a/notes.txt b/notes.txt",
        "[withheld: notes.txt may hold secrets (a private key). Ask the user, or name it in git_show REF:PATH, which asks them.]",
        "",
      ].join("\n"),
    );
  });

  test("a path the call named (the gate asked about it) is shown", () => {
    expect(withholdSecretDiffs(diff, ["config/.env"])).toContain("+T=2");
    expect(withholdSecretDiffs(diff, [".env"])).toContain("+T=2");
    expect(withholdSecretDiffs(diff, ["g/.env"])).not.toContain("+T=2");
  });
});
