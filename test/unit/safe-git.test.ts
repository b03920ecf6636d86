/**
 * The safe git runner (lib/shell/safe-git.ts): every way a repository's config, attributes or
 * git pointers can name a program is planted in a temp repository, then every subcommand shiro
 * runs is run through the runner; the payload (a script that appends to a canary file) must never
 * run. Each plant is first shown to fire under plain git, so the table cannot pass vacuously.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitRefusal, locateRepository, prepareGit, runGitSync } from "../../lib/shell/safe-git.ts";
import { keepsEntry, parseConfigList, programKeys, serializeConfig } from "../../lib/shell/git-config.ts";

let base = "";
let canary = "";
let payload = "";
let globalConfig = "";
const savedGlobal = process.env.GIT_CONFIG_GLOBAL;

// What the runner's tests set up runs with a config of their own, never the host's.
function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  const run = spawnSync("git", ["-c", "commit.gpgsign=false", "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: globalConfig, GIT_CONFIG_NOSYSTEM: "1", ...env },
    encoding: "utf8",
    timeout: 10_000,
  });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${run.stderr}`);
  return run.stdout;
}

/** A repository with one commit of a.txt, then a.txt changed and staged, and b.txt changed unstaged (stat info dirty). */
function makeRepo(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main"]);
  writeFileSync(join(dir, "a.txt"), "one\n");
  writeFileSync(join(dir, "b.txt"), "bee\n");
  git(dir, ["add", "."]);
  git(dir, ["commit", "-q", "-m", "first"]);
  writeFileSync(join(dir, "a.txt"), "one\ntwo\n");
  git(dir, ["add", "a.txt"]);
  writeFileSync(join(dir, "b.txt"), "bee\nsting\n");
  return dir;
}

/** Every subcommand shiro runs, as the git tools and note provenance run them. */
const CALLS: [string, string[]][] = [
  ["status", ["--porcelain=v1", "-z", "--branch", "--", "."]],
  ["diff", ["--no-color", "--", "."]],
  ["diff", ["--staged", "--no-color", "--", "."]],
  ["show", ["--no-color", "HEAD", "--", "."]],
  ["show", ["HEAD:./a.txt"]],
  ["log", ["-n5", "--format=%h %s", "--"]],
  ["blame", ["--", "b.txt"]],
  ["branch", ["--list", "--no-color"]],
  ["rev-parse", ["--verify", "-q", "HEAD"]],
];

function runAll(dir: string): void {
  for (const [subcommand, args] of CALLS) runGitSync(dir, subcommand, args, 10_000);
}

function fired(): boolean {
  const ran = existsSync(canary);
  rmSync(canary, { force: true });
  return ran;
}

const PLANTS: { name: string; plant: (dir: string) => void }[] = [
  { name: "core.fsmonitor", plant: (dir) => git(dir, ["config", "core.fsmonitor", payload]) },
  {
    name: "filter.<x>.clean named by .gitattributes",
    plant: (dir) => {
      writeFileSync(join(dir, ".gitattributes"), "*.txt filter=evil\n");
      git(dir, ["config", "filter.evil.clean", payload]);
    },
  },
  {
    name: "filter.<x>.process",
    plant: (dir) => {
      writeFileSync(join(dir, ".git", "info", "attributes"), "* filter=proc\n");
      git(dir, ["config", "filter.proc.process", payload]);
    },
  },
  {
    name: "diff.<x>.textconv",
    plant: (dir) => {
      writeFileSync(join(dir, ".gitattributes"), "*.txt diff=conv\n");
      git(dir, ["config", "diff.conv.textconv", payload]);
    },
  },
  {
    name: "diff.<x>.command",
    plant: (dir) => {
      writeFileSync(join(dir, ".gitattributes"), "*.txt diff=ext\n");
      git(dir, ["config", "diff.ext.command", payload]);
    },
  },
  { name: "diff.external", plant: (dir) => git(dir, ["config", "diff.external", payload]) },
  {
    name: "log.showSignature with gpg.program, on a signed commit",
    plant: (dir) => {
      const tree = git(dir, ["rev-parse", "HEAD^{tree}"]).trim();
      const parent = git(dir, ["rev-parse", "HEAD"]).trim();
      const signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----";
      const body = `tree ${tree}\nparent ${parent}\nauthor t <t@e> 1700000000 +0000\ncommitter t <t@e> 1700000000 +0000\n${signature}\n\nsigned\n`;
      writeFileSync(join(base, "commit.txt"), body);
      git(dir, ["update-ref", "HEAD", git(dir, ["hash-object", "-w", "-t", "commit", join(base, "commit.txt")]).trim()]);
      git(dir, ["config", "log.showSignature", "true"]);
      git(dir, ["config", "gpg.program", payload]);
    },
  },
  {
    name: "include.path to a file with a fsmonitor",
    plant: (dir) => {
      writeFileSync(join(dir, "included.cfg"), `[core]\n\tfsmonitor = ${payload}\n`);
      git(dir, ["config", "include.path", join(dir, "included.cfg")]);
    },
  },
  {
    name: "config.worktree with extensions.worktreeConfig",
    plant: (dir) => {
      git(dir, ["config", "core.repositoryformatversion", "1"]);
      git(dir, ["config", "extensions.worktreeConfig", "true"]);
      writeFileSync(join(dir, ".git", "config.worktree"), `[core]\n\tfsmonitor = ${payload}\n`);
    },
  },
  {
    name: "the user's global filter driver, named by a committed .gitattributes",
    plant: (dir) => {
      writeFileSync(join(dir, ".gitattributes"), "*.txt filter=lfsish diff=lfsish\n");
      writeFileSync(globalConfig, `[filter "lfsish"]\n\tclean = ${payload}\n\tsmudge = ${payload}\n[diff "lfsish"]\n\ttextconv = ${payload}\n`);
    },
  },
];

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "shiro-safe-git-")));
  canary = join(base, "canary");
  payload = join(base, "payload.sh");
  globalConfig = join(base, "global.gitconfig");
  writeFileSync(globalConfig, "");
  // Appends to the canary, then behaves as cat so git does not hang or fail: textconv gets a file, filters stdin.
  writeFileSync(payload, `#!/bin/sh\necho "$0 $*" >> ${canary}\nif [ -f "$1" ]; then cat "$1"; else cat </dev/stdin 2>/dev/null; fi\nexit 0\n`);
  chmodSync(payload, 0o755);
  process.env.GIT_CONFIG_GLOBAL = globalConfig;
});

afterAll(() => {
  if (savedGlobal === undefined) delete process.env.GIT_CONFIG_GLOBAL;
  else process.env.GIT_CONFIG_GLOBAL = savedGlobal;
  rmSync(base, { recursive: true, force: true });
});

describe("a planted program never runs through the runner", () => {
  for (const { name, plant } of PLANTS) {
    test(name, () => {
      const dir = makeRepo(name.replace(/\W+/g, "-"));
      plant(dir);
      // The control: plain git runs the payload for at least one of the calls.
      for (const [subcommand, args] of CALLS) {
        spawnSync("git", [subcommand, ...args], { cwd: dir, env: { ...process.env, GIT_PAGER: "", PAGER: "" }, timeout: 10_000, stdio: "ignore" });
      }
      expect(fired()).toBe(true);
      runAll(dir);
      expect(fired()).toBe(false);
      writeFileSync(globalConfig, "");
    });
  }

  test("the output is still right: diffs, blame and status read the real repository", () => {
    const dir = makeRepo("output");
    git(dir, ["config", "core.fsmonitor", payload]);
    expect(runGitSync(dir, "diff", ["--staged", "--", "."], 10_000)).toContain("+two");
    expect(runGitSync(dir, "diff", ["--", "."], 10_000)).toContain("+sting");
    expect(runGitSync(dir, "status", ["--porcelain=v1"], 10_000)).toBe("M  a.txt\n M b.txt\n");
    expect(runGitSync(dir, "log", ["--format=%s"], 10_000)).toBe("first\n");
    expect(runGitSync(dir, "show", ["HEAD:./a.txt"], 10_000)).toBe("one\n");
    expect(fired()).toBe(false);
  });
});

describe("git pointers are pinned by shiro", () => {
  test("a commondir in the workspace's own .git is refused, and nothing runs", () => {
    const dir = makeRepo("commondir");
    const copy = join(dir, "elsewhere");
    git(base, ["clone", "-q", "--bare", dir, copy]);
    git(copy, ["config", "core.fsmonitor", payload]);
    writeFileSync(join(dir, ".git", "commondir"), `${copy}\n`);
    expect(() => prepareGit(dir, "status", [])).toThrow(GitRefusal);
    expect(() => runGitSync(dir, "diff", [], 10_000)).toThrow(
      `Refusing to run git: ${join(dir, ".git", "commondir")} sends git to ${copy}; a repository's own .git has no commondir. Remove it if you did not make it.`,
    );
    expect(fired()).toBe(false);
  });

  test("a gitdir: file pointing inside the workspace is refused", () => {
    const dir = makeRepo("gitdir-file");
    const moved = join(dir, "hidden-git");
    spawnSync("mv", [join(dir, ".git"), moved]);
    writeFileSync(join(dir, ".git"), "gitdir: hidden-git\n");
    expect(() => runGitSync(dir, "status", [], 10_000)).toThrow(
      `Refusing to run git: ${join(dir, ".git")} points at ${moved}, a folder inside the workspace that commands can write; remove it or restore .git.`,
    );
  });

  test("a linked worktree, a submodule-style gitdir outside the workspace and a subfolder workspace still work", () => {
    const main = makeRepo("main");
    const linked = join(base, "linked");
    git(main, ["worktree", "add", "-q", linked]);
    git(main, ["config", "core.fsmonitor", payload]);
    expect(locateRepository(linked)).toEqual({ workTree: linked, gitDir: join(main, ".git", "worktrees", "linked"), commonDir: join(main, ".git") });
    expect(runGitSync(linked, "log", ["--format=%s"], 10_000)).toBe("first\n");
    const sub = join(main, "sub");
    mkdirSync(sub);
    writeFileSync(join(sub, "c.txt"), "sea\n");
    expect(runGitSync(sub, "status", ["--porcelain=v1", "--", "."], 10_000)).toBe("?? sub/\n");
    expect(runGitSync(sub, "rev-parse", ["--show-prefix"], 10_000)).toBe("sub/\n");
    expect(fired()).toBe(false);
  });

  test("a submodule whose git dir plants a fsmonitor: status and diff of the superproject do not enter it", () => {
    const inner = makeRepo("inner");
    const outer = makeRepo("outer");
    git(outer, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", inner, "mod"]);
    git(outer, ["commit", "-q", "-m", "add mod"]);
    writeFileSync(join(outer, "mod", "a.txt"), "changed in the submodule\n");
    git(join(outer, "mod"), ["config", "core.fsmonitor", payload]);
    runAll(outer);
    expect(fired()).toBe(false);
  });

  test("outside any repository: the usual message", () => {
    const plain = join(base, "plain");
    mkdirSync(plain);
    expect(() => prepareGit(plain, "status", [])).toThrow(`${plain} is not a git repository.`);
    expect(() => prepareGit(plain, "push", [])).toThrow("shiro does not run git push.");
  });

  test("the private common dir is removed after each call", () => {
    const dir = makeRepo("dispose");
    const call = prepareGit(dir, "status", []);
    const shadow = call.env.GIT_COMMON_DIR!;
    expect(readFileSync(join(shadow, "config"), "utf8")).toContain("repositoryformatversion");
    call.dispose();
    expect(existsSync(shadow)).toBe(false);
  });
});

describe("program-naming keys are named in reports", () => {
  test("a table of spellings", () => {
    const raw = [
      "core.fsmonitor\n/x",
      "core.hookspath\n/x",
      "filter.lfs.clean\nx",
      "filter.a.b.process\nx",
      "diff.tex.textconv\nx",
      "diff.tex.xfuncname\n^x",
      "merge.ours.driver\ntrue",
      "alias.st\n!sh -c x",
      "alias.co\ncheckout",
      "pager.log\nless",
      "includeif.gitdir:/x/.path\n/y",
      "credential.https://h.helper\nstore",
      "gpg.ssh.program\nx",
      "remote.origin.uploadpack\nx",
      "remote.origin.url\nhttps://h/r",
      "user.name\nT",
    ].join("\0");
    expect(programKeys(parseConfigList(raw))).toEqual([
      "core.fsmonitor",
      "core.hookspath",
      "filter.lfs.clean",
      "filter.a.b.process",
      "diff.tex.textconv",
      "merge.ours.driver",
      "alias.st",
      "pager.log",
      "includeif.gitdir:/x/.path",
      "credential.https://h.helper",
      "gpg.ssh.program",
      "remote.origin.uploadpack",
    ]);
  });
});

describe("the repository config is kept only for data keys", () => {
  test("allow-list and round trip", () => {
    const raw = [
      "core.repositoryformatversion\n1",
      "core.fsmonitor\n/x",
      "core.bare",
      "extensions.objectformat\nsha256",
      "extensions.partialclone\norigin",
      'branch.we "ird.merge\nrefs/heads/main',
      "remote.origin.url\next::sh -c x",
      "remote.origin.fetch\n+refs/heads/*:refs/remotes/origin/*",
      "diff.tex.xfuncname\n^\\\\section",
      "diff.tex.textconv\n/x",
      "include.path\n/x",
      "alias.st\n!sh",
    ].join("\0");
    const kept = parseConfigList(raw).filter(keepsEntry);
    expect(kept.map((entry) => [entry.section, entry.subsection, entry.key])).toEqual([
      ["core", undefined, "repositoryformatversion"],
      ["extensions", undefined, "objectformat"],
      ["branch", 'we "ird', "merge"],
      ["remote", "origin", "fetch"],
      ["diff", "tex", "xfuncname"],
    ]);
    const file = join(base, "roundtrip.cfg");
    writeFileSync(file, serializeConfig(kept));
    const back = spawnSync("git", ["config", "--file", file, "--list", "-z"], { encoding: "utf8" }).stdout;
    expect(parseConfigList(back)).toEqual(kept);
  });
});
