import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { createGitTools, gitTools } from "../../lib/tools/git.ts";
import { EMPTY_REPLY_MESSAGE, NOTHING_STAGED_MESSAGE, extractCommitSubject } from "../../lib/tools/git-run.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import { errorOf, runTool } from "./tools-workspace.ts";

const AUTHOR = { name: "Ada Lovelace", email: "ada@example.com" };
let base = "";

// Setup commands ignore the user's git config; the tools under test run with the real environment.
function git(cwd: string, args: string[], date = "2024-01-02T03:04:05Z"): string {
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: AUTHOR.name,
    GIT_AUTHOR_EMAIL: AUTHOR.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: AUTHOR.name,
    GIT_COMMITTER_EMAIL: AUTHOR.email,
    GIT_COMMITTER_DATE: date,
  };
  const run = spawnSync("git", ["-c", "commit.gpgsign=false", ...args], { cwd, env, encoding: "utf8", timeout: 10_000 });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${run.stderr}`);
  return run.stdout;
}

function makeDir(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir);
  return dir;
}

/** An empty repository on branch main. */
function makeRepo(name: string): string {
  const dir = makeDir(name);
  git(dir, ["init", "-q", "-b", "main"]);
  return dir;
}

/** A repository with two commits: `First` (a.txt, c.txt, e.txt) and `Second` (changes a.txt). */
function makeHistory(name: string): { dir: string; first: string; second: string } {
  const dir = makeRepo(name);
  writeFileSync(join(dir, "a.txt"), "one\n");
  writeFileSync(join(dir, "c.txt"), "see\n");
  writeFileSync(join(dir, "e.txt"), "moved\n");
  git(dir, ["add", "."]);
  git(dir, ["commit", "-q", "-m", "First"]);
  writeFileSync(join(dir, "a.txt"), "one\ntwo\n");
  git(dir, ["commit", "-q", "-am", "Second"], "2024-01-03T03:04:05Z");
  return { dir, first: git(dir, ["rev-parse", "--short", "HEAD~1"]).trim(), second: git(dir, ["rev-parse", "--short", "HEAD"]).trim() };
}

function tool(name: string, tools: ToolDefinition[] = gitTools): ToolDefinition {
  const found = tools.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

function run(name: string, root: string, input: Record<string, unknown> = {}, tools?: ToolDefinition[]): Promise<string> {
  return runTool(tool(name, tools), input, root);
}

/** Blob hashes in `index a..b` lines depend on git's abbreviation length; the rest is exact. */
function maskIndex(diff: string): string {
  return diff.replace(/^index [0-9a-f]+\.\.[0-9a-f]+/gm, "index X..Y");
}

// The tools pass the process environment to git; pin it so the user's git config cannot shape
// output and no repository above the temp folder is found.
const PINNED_ENV = { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const savedEnv: Record<string, string | undefined> = {};

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "shiro-git-")));
  for (const [key, value] of Object.entries({ ...PINNED_ENV, GIT_CEILING_DIRECTORIES: base })) {
    savedEnv[key] = process.env[key];
    process.env[key] = value;
  }
});

afterAll(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  rmSync(base, { recursive: true, force: true });
});

describe("git tool definitions", () => {
  test("six read-only tools, plus git_commit_message when complete is given", () => {
    const names = ["git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch"];
    expect(gitTools.map((t) => [t.name, t.set, t.effect, t.decision])).toEqual(names.map((n) => [n, "git", "read", "allow"]));
    const withMessage = createGitTools({ complete: async () => "x" });
    expect(withMessage.map((t) => t.name)).toEqual([...names, "git_commit_message"]);
    expect(tool("git_commit_message", withMessage).effect).toBe("read");
  });

  test("paths name the path or the path of REF:PATH; git_show's subject is its ref", () => {
    expect(tool("git_diff").paths?.({ path: "src/a.ts" }, "/ws")).toEqual(["src/a.ts"]);
    expect(tool("git_diff").paths?.({}, "/ws")).toEqual([]);
    expect(tool("git_log").paths?.({ path: "b" }, "/ws")).toEqual(["b"]);
    expect(tool("git_show").subjects?.({ ref: "HEAD~1" })).toEqual(["HEAD~1"]);
    expect(tool("git_show").paths?.({ ref: "HEAD~1" }, "/ws")).toEqual([]);
    expect(tool("git_show").paths?.({ ref: "HEAD~1:src/x.ts" }, "/ws")).toEqual(["src/x.ts"]);
    expect(tool("git_blame").paths?.({ path: "c" }, "/ws")).toEqual(["c"]);
  });
});

describe("git_status", () => {
  test("clean and unborn repositories", async () => {
    const empty = makeRepo("status-empty");
    expect(await run("git_status", empty)).toBe("On main, working tree clean.");
    const { dir } = makeHistory("status-clean");
    expect(await run("git_status", dir)).toBe("On main, working tree clean.");
  });

  test("labels staged, unstaged, renamed and untracked paths", async () => {
    const { dir } = makeHistory("status-changes");
    writeFileSync(join(dir, "a.txt"), "changed\n");
    writeFileSync(join(dir, "b.txt"), "new\n");
    writeFileSync(join(dir, "c.txt"), "staged\n");
    git(dir, ["add", "b.txt", "c.txt"]);
    writeFileSync(join(dir, "c.txt"), "staged then changed\n");
    git(dir, ["mv", "e.txt", "f.txt"]);
    writeFileSync(join(dir, "d file.txt"), "untracked\n");
    expect(await run("git_status", dir)).toBe(
      [
        "On main, 5 changed:",
        "a.txt  (modified)",
        "b.txt  (staged added)",
        "c.txt  (staged modified, modified)",
        "e.txt -> f.txt  (staged renamed)",
        "d file.txt  (untracked)",
      ].join("\n"),
    );
  });

  test("shows at most 200 lines and counts the rest", async () => {
    const dir = makeRepo("status-many");
    for (let i = 0; i < 205; i++) writeFileSync(join(dir, `f${String(i).padStart(3, "0")}.txt`), "x");
    const lines = (await run("git_status", dir)).split("\n");
    expect([lines[0], lines[1], lines[200], lines[201], lines.length]).toEqual([
      "On main, 205 changed:",
      "f000.txt  (untracked)",
      "f199.txt  (untracked)",
      "... [5 more]",
      202,
    ]);
  });

  test("outside a repository and without git", async () => {
    const plain = makeDir("not-a-repo");
    expect(await errorOf(run("git_status", plain))).toBe(`${plain} is not a git repository.`);
    // `git diff --staged` outside a repository falls into --no-index mode and prints its usage.
    const all = createGitTools({ complete: async () => "never" });
    const calls: [string, Record<string, unknown>][] = [
      ["git_diff", {}],
      ["git_diff", { staged: true }],
      ["git_log", {}],
      ["git_show", { ref: "HEAD" }],
      ["git_blame", { path: "a.txt" }],
      ["git_branch", {}],
      ["git_commit_message", {}],
    ];
    for (const [name, input] of calls) {
      expect(`${name}: ${await errorOf(run(name, plain, input, all))}`).toBe(`${name}: ${plain} is not a git repository.`);
    }
    const repo = makeRepo("repo-without-git");
    const savedPath = process.env.PATH;
    process.env.PATH = makeDir("empty-bin");
    try {
      expect(await errorOf(run("git_status", repo))).toBe("git is not installed or not on PATH.");
    } finally {
      process.env.PATH = savedPath;
    }
  });
});

describe("git_diff", () => {
  test("working tree and staged diffs, with a path filter", async () => {
    const { dir } = makeHistory("diff");
    writeFileSync(join(dir, "a.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(dir, "c.txt"), "sea\n");
    git(dir, ["add", "c.txt"]);
    expect(maskIndex(await run("git_diff", dir))).toBe(
      "diff --git a/a.txt b/a.txt\nindex X..Y 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\n two\n+three",
    );
    expect(maskIndex(await run("git_diff", dir, { staged: true, path: "c.txt" }))).toBe(
      "diff --git a/c.txt b/c.txt\nindex X..Y 100644\n--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-see\n+sea",
    );
    expect(await run("git_diff", dir, { staged: true, path: "a.txt" })).toBe("Nothing staged.");
  });

  test("empty results", async () => {
    const { dir } = makeHistory("diff-empty");
    expect(await run("git_diff", dir)).toBe("No uncommitted changes.");
    expect(await run("git_diff", dir, { staged: true })).toBe("Nothing staged.");
  });

  test("a path that looks like an option stays a path", async () => {
    const { dir } = makeHistory("diff-inject");
    writeFileSync(join(dir, "a.txt"), "changed\n");
    expect(await run("git_diff", dir, { path: "--output=x" })).toBe("No uncommitted changes.");
    expect(readdirSync(dir).sort()).toEqual([".git", "a.txt", "c.txt", "e.txt"]);
  });
});

describe("git_log", () => {
  test("newest first as hash  date  author  subject", async () => {
    const { dir, first, second } = makeHistory("log");
    expect(await run("git_log", dir)).toBe(`${second}  2024-01-03  Ada Lovelace  Second\n${first}  2024-01-02  Ada Lovelace  First`);
    expect(await run("git_log", dir, { limit: 1 })).toBe(`${second}  2024-01-03  Ada Lovelace  Second`);
    expect(await run("git_log", dir, { path: "c.txt" })).toBe(`${first}  2024-01-02  Ada Lovelace  First`);
  });

  test("no commits", async () => {
    expect(await run("git_log", makeRepo("log-empty"))).toBe("No commits.");
    expect(await run("git_log", makeHistory("log-path").dir, { path: "missing.txt" })).toBe("No commits.");
  });

  test("limit is 1 to 40", () => {
    const issue = (input: unknown) => v.safeParse(tool("git_log").schema, input).issues?.[0]?.message;
    expect([issue({ limit: 0 }), issue({ limit: 41 }), issue({ limit: 40 })]).toEqual(["limit must be at least 1", "limit must be at most 40", undefined]);
  });
});

describe("git_show", () => {
  test("a commit limited to one path", async () => {
    const { dir } = makeHistory("show");
    const full = git(dir, ["rev-parse", "HEAD"]).trim();
    expect(maskIndex(await run("git_show", dir, { ref: "HEAD", path: "a.txt" }))).toBe(
      [
        `commit ${full}`,
        "Author: Ada Lovelace <ada@example.com>",
        "Date:   2024-01-03",
        "",
        "    Second",
        "",
        "diff --git a/a.txt b/a.txt",
        "index X..Y 100644",
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1 +1,2 @@",
        " one",
        "+two",
      ].join("\n"),
    );
    expect(await run("git_show", dir, { ref: "HEAD", path: "c.txt" })).toBe("Nothing to show.");
  });

  test("a ref that looks like an option is refused and writes nothing", async () => {
    const { dir } = makeHistory("show-inject");
    expect(await errorOf(run("git_show", dir, { ref: "--output=pwned" }))).toBe('Refusing ref "--output=pwned": it looks like an option.');
    expect(readdirSync(dir).sort()).toEqual([".git", "a.txt", "c.txt", "e.txt"]);
  });

  test("git errors pass through verbatim", async () => {
    const { dir } = makeHistory("show-bad");
    expect(await errorOf(run("git_show", dir, { ref: "nope" }))).toBe("fatal: bad revision 'nope'");
  });
});

describe("git_blame", () => {
  test("whole file, a range, and a start alone covering 40 lines", async () => {
    const { dir } = makeHistory("blame");
    // Blame prints one more hex digit than --short so a boundary commit's `^` keeps columns aligned.
    const [first, second] = git(dir, ["rev-list", "HEAD"]).trim().split("\n").reverse();
    expect(await run("git_blame", dir, { path: "a.txt" })).toBe(
      `^${first!.slice(0, 7)} (Ada Lovelace 2024-01-02 1) one\n${second!.slice(0, 8)} (Ada Lovelace 2024-01-03 2) two`,
    );
    expect(await run("git_blame", dir, { path: "a.txt", startLine: 2, endLine: 2 })).toBe(`${second!.slice(0, 8)} (Ada Lovelace 2024-01-03 2) two`);
    writeFileSync(join(dir, "long.txt"), Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    git(dir, ["add", "long.txt"]);
    git(dir, ["commit", "-q", "-m", "Long"]);
    const lines = (await run("git_blame", dir, { path: "long.txt", startLine: 5 })).split("\n");
    expect([lines.length, lines[0]!.endsWith(" 5) line 5"), lines[39]!.endsWith("44) line 44")]).toEqual([40, true, true]);
  });

  test("empty file, reversed range and option-like paths", async () => {
    const { dir } = makeHistory("blame-edge");
    writeFileSync(join(dir, "empty.txt"), "");
    git(dir, ["add", "empty.txt"]);
    git(dir, ["commit", "-q", "-m", "Empty"]);
    expect(await run("git_blame", dir, { path: "empty.txt" })).toBe("No blame output.");
    expect(await errorOf(run("git_blame", dir, { path: "a.txt", startLine: 3, endLine: 2 }))).toBe("endLine 2 is before startLine 3.");
    expect(await errorOf(run("git_blame", dir, { path: "--output=x" }))).toBe("fatal: no such path '--output=x' in HEAD");
    expect(readdirSync(dir).sort()).toEqual([".git", "a.txt", "c.txt", "e.txt", "empty.txt"]);
  });
});

describe("git_branch", () => {
  test("most recent first with the current branch marked", async () => {
    const { dir, first } = makeHistory("branch");
    git(dir, ["branch", "feature", first]);
    expect(await run("git_branch", dir)).toBe("* main  2024-01-03  Second\n  feature  2024-01-02  First");
  });

  test("no branches yet", async () => {
    expect(await run("git_branch", makeRepo("branch-empty"))).toBe("No branches yet.");
  });
});

describe("git_commit_message", () => {
  function withFake(reply: string) {
    const calls: { system: string; prompt: string }[] = [];
    const tools = createGitTools({
      complete: async (system, prompt) => {
        calls.push({ system, prompt });
        return reply;
      },
    });
    return { calls, tools };
  }

  test("sends the staged diff and recent subjects, returns one clean line", async () => {
    const { dir } = makeHistory("message");
    writeFileSync(join(dir, "b.txt"), "bee\n");
    git(dir, ["add", "b.txt"]);
    const { calls, tools } = withFake('```\n"Add b.txt with a bee"\n```\n');
    expect(await run("git_commit_message", dir, {}, tools)).toBe("Add b.txt with a bee");
    const diff = git(dir, ["diff", "--staged", "--no-color"]);
    expect(calls.length).toBe(1);
    expect(calls[0]!.prompt).toBe(`Recent commit subjects, newest first:\n- Second\n- First\n\nStaged diff:\n${diff.trimEnd()}`);
    expect(calls[0]!.system).toContain("72 characters");
    expect(readdirSync(dir).sort()).toEqual([".git", "a.txt", "b.txt", "c.txt", "e.txt"]);
    expect(git(dir, ["rev-list", "--count", "HEAD"]).trim()).toBe("2");
  });

  test("a large diff is cut at 24000 chars in an unborn repository", async () => {
    const dir = makeRepo("message-big");
    writeFileSync(join(dir, "big.txt"), "x".repeat(30_000) + "\n");
    git(dir, ["add", "big.txt"]);
    const { calls, tools } = withFake("Add big file");
    expect(await run("git_commit_message", dir, {}, tools)).toBe("Add big file");
    const diff = git(dir, ["diff", "--staged", "--no-color"]);
    expect(calls[0]!.prompt).toBe(
      `Recent commit subjects, newest first:\n(no commits yet)\n\nStaged diff:\n${diff.slice(0, 24_000)}\n[diff cut at 24000 chars]`,
    );
  });

  test("nothing staged is returned, not thrown, and the model is not called", async () => {
    const { dir } = makeHistory("message-none");
    writeFileSync(join(dir, "a.txt"), "unstaged\n");
    const { calls, tools } = withFake("never");
    expect(await run("git_commit_message", dir, {}, tools)).toBe(NOTHING_STAGED_MESSAGE);
    expect(calls).toEqual([]);
  });

  test("an empty reply throws", async () => {
    const { dir } = makeHistory("message-empty");
    writeFileSync(join(dir, "b.txt"), "bee\n");
    git(dir, ["add", "b.txt"]);
    const { tools } = withFake("\n```\n```\n  ");
    expect(await errorOf(run("git_commit_message", dir, {}, tools))).toBe(EMPTY_REPLY_MESSAGE);
  });

  test("extractCommitSubject keeps the first line, unquoted, at most 72 chars", () => {
    expect(extractCommitSubject("'Fix the parser'\n\nLonger body")).toBe("Fix the parser");
    expect(extractCommitSubject("```text\n`docs: tidy`\n```")).toBe("docs: tidy");
    expect(extractCommitSubject("word ".repeat(20))).toBe("word ".repeat(14).trimEnd());
    expect(extractCommitSubject("x".repeat(80))).toBe("x".repeat(72));
    expect(extractCommitSubject("   ")).toBe("");
  });
});
