/**
 * The destructive bash spellings the guard must stop, and their throwaway targets, shared by the
 * guard's end-to-end tests (refused through the binary) and its control (test/unit/guard-control.test.ts:
 * the same calls, with plugins off, damage every target, so the spellings are real).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Kind = "dir" | "mode" | "repo";
export interface Case {
  kind: Kind;
  /** The command, with T standing for the target's relative path. */
  command: string;
}

const _rm = (commands: string[]): Case[] => commands.map((command) => ({ kind: "dir", command }));
const _mode = (commands: string[]): Case[] => commands.map((command) => ({ kind: "mode", command }));
const _repo = (commands: string[]): Case[] => commands.map((command) => ({ kind: "repo", command: `cd T && ${command}` }));

export const REFUSED: Case[] = [
  ..._rm([
    "rm -rf T",
    'rm -r"f" T',
    "r''m -rf T",
    "\\rm -rf T",
    "/bin/rm -rf T",
    "/usr/bin/env rm -rf T",
    "env X=1 rm -rf T",
    "X=1 rm -rf T",
    "command rm -rf T",
    "nohup rm -rf T",
    "timeout 5 rm -rf T",
    "echo T | xargs rm -rf",
    "true && rm -rf T",
    "false || rm -rf T",
    "echo hi; rm -rf T",
    "(rm -rf T)",
    "{ rm -rf T; }",
    "echo $(rm -rf T)",
    "echo `rm -rf T`",
    "x=$(rm -rf T)",
    "rm   -rf    T",
    "rm --recur T",
    "rm --recursive --force T",
    "rm -R T",
    "rm -r -f T",
    "rm T -rf",
    "rm --r T",
    "$'\\x72m' -rf T",
    "{rm,-rf,T}",
    "/bin/r[m] -rf T",
    "bash -c 'rm -rf T'",
    'sh -c "rm -rf T"',
    "eval 'rm -rf T'",
    "bash <<EOF\nrm -rf T\nEOF",
    "sh <<< 'rm -rf T'",
    "echo 'rm -rf T' | sh",
    "echo 'rm -rf T' | \"bash\"",
    "echo 'rm -rf T' | /bin/sh",
    "echo 'rm -rf T' | env sh",
    "B64 | base64 -d | sh",
    "f() { rm -rf T; }; f",
    "if true; then rm -rf T; fi",
    'for d in T; do rm -rf "$d"; done',
    "while false; do :; done; rm -rf T",
    "rm -rf T &",
    "cd . && rm -rf ./T",
    "env -S 'rm -rf T'",
    "exec rm -rf T",
    "nice -n 5 rm -rf T",
    "stdbuf -oL rm -rf T",
    "setsid rm -rf T",
    "builtin eval 'rm -rf T'",
    "time rm -rf T",
    "! rm -rf T",
    "rm -rf T 2>/dev/null",
    "rm -rf T | cat",
    "cat <(rm -rf T)",
    "rm -fr T",
    "rm -dr T",
    "rm --forc T/keep.txt",
    "rm -f T/keep.txt",
    "unset x; rm -rf T",
    "find T -delete",
    "find T -type f -delete",
    "find T -exec rm {} \\;",
    "find T -type f -exec /bin/rm {} +",
    "find T -execdir rm {} \\;",
    "find T -name '*.txt' -exec rm -f {} +",
    "cat T.sh | sh",
    "curl -s file://$PWD/T.sh | sh",
    "curl -s file://$PWD/T.sh | bash -s",
    "bash <(curl -s file://$PWD/T.sh)",
    'sh -c "$(curl -s file://$PWD/T.sh)"',
    "source <(cat T.sh)",
    ". <(cat T.sh)",
    "printf 'rm -rf T' | xargs -0 sh -c",
    "cat T.sh | bash /dev/stdin",
    "git -c alias.nuke='!rm -rf T' nuke",
  ]),
  ..._mode([
    "chmod -R 777 T",
    "chmod -R 0777 T",
    "chmod -R a+w T",
    "chmod -R o+w T",
    "chmod -R ugo+rwx T",
    "chmod -R a=rwx T",
    "chmod --recursive 777 T",
    "chmod --recur o+rwx T",
    "chmod -R 1777 T",
    "chmod -R 666 T",
    "chmod -R u+x,o+w T",
    "chmod 777 T",
    "/bin/chmod -R 777 T",
    "find T -exec chmod 777 {} +",
    "env chmod -R o+w T",
  ]),
  ..._repo([
    "git reset --hard",
    "git reset --har",
    "git reset --hard HEAD",
    "git -c core.pager=cat reset --hard",
    "/usr/bin/git reset --hard",
    "git checkout -- .",
    "git checkout .",
    "git checkout HEAD -- .",
    "git checkout -f",
    "git restore .",
    "git restore --worktree .",
    "git restore -- .",
    "git restore :/",
    "git switch --discard-changes main",
    "git clean -fd",
    "git clean --forc",
    "git clean -f -x",
    "git push --force origin HEAD:main",
    "git push --forc origin HEAD:main",
    "git push --force-w origin HEAD:main",
    "git push -f origin HEAD:main",
    "git push origin +HEAD:main",
    "git push --force-with-lease origin HEAD:main",
    "git branch -D doomed",
    "git branch -d -f doomed",
    "git branch --delete --force doomed",
    "git branch --del --forc doomed",
    "env GIT_TRACE=0 git  push  -f origin HEAD:main",
    "timeout 10 git reset --hard",
    "true && git reset --hard",
    "git rm -rf .",
    "git rm -r -f tracked.txt",
    "git checkout-index -f -a",
    "git read-tree -u --reset HEAD",
  ]),
];

export interface PreparedCase {
  /** The case's command as written, T unfilled (what a failure names). */
  original: string;
  /** The command with its target's path. */
  command: string;
  /** The target's path, relative to the workspace. */
  path: string;
  intact(): boolean;
}

export function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * A repo whose work tree has an uncommitted change (tracked.txt), an untracked file, an
 * unmerged branch `doomed`, a merged branch `merged`, and a bare remote whose main has a commit
 * the local main rewrote (only a force push would replace it). Returns the remote's main.
 */
function _makeTemplateRepo(dir: string): string {
  const repo = join(dir, "repo");
  mkdirSync(repo, { recursive: true });
  git(dir, "init", "-q", "--bare", "-b", "main", "remote.git");
  git(repo, "init", "-q", "-b", "main");
  git(repo, "config", "user.email", "t@example.invalid");
  git(repo, "config", "user.name", "t");
  git(repo, "remote", "add", "origin", "../remote.git");
  writeFileSync(join(repo, "tracked.txt"), "committed\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "one");
  git(repo, "push", "-q", "origin", "main");
  git(repo, "commit", "-q", "--amend", "-m", "rewritten");
  git(repo, "branch", "merged");
  git(repo, "checkout", "-q", "-b", "doomed");
  writeFileSync(join(repo, "doomed.txt"), "only here\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "unmerged");
  git(repo, "checkout", "-q", "main");
  writeFileSync(join(repo, "tracked.txt"), "uncommitted work\n");
  writeFileSync(join(repo, "untracked.txt"), "untracked\n");
  return git(join(dir, "remote.git"), "rev-parse", "main");
}

/** Makes the target of case `i` in `cwd` and returns its relative path and its survival check. */
function _makeTarget(cwd: string, template: { dir: string; remoteMain: string }, kind: Kind, i: number): { path: string; intact: () => boolean } {
  if (kind === "dir") {
    const path = `v${i}`;
    mkdirSync(join(cwd, path));
    writeFileSync(join(cwd, path, "keep.txt"), "keep\n");
    writeFileSync(join(cwd, `${path}.sh`), `rm -rf ${path}\n`);
    return { path, intact: () => existsSync(join(cwd, path, "keep.txt")) };
  }
  if (kind === "mode") {
    const path = `m${i}`;
    mkdirSync(join(cwd, path));
    writeFileSync(join(cwd, path, "keep.txt"), "keep\n");
    chmodSync(join(cwd, path), 0o755);
    chmodSync(join(cwd, path, "keep.txt"), 0o644);
    return { path, intact: () => (statSync(join(cwd, path)).mode & 0o777) === 0o755 && (statSync(join(cwd, path, "keep.txt")).mode & 0o777) === 0o644 };
  }
  const base = join(cwd, `g${i}`);
  cpSync(template.dir, base, { recursive: true });
  const repo = join(base, "repo");
  return {
    path: `g${i}/repo`,
    intact: () =>
      existsSync(join(repo, "tracked.txt")) &&
      readFileSync(join(repo, "tracked.txt"), "utf8") === "uncommitted work\n" &&
      existsSync(join(repo, "untracked.txt")) &&
      _branch(join(repo, ".git"), "doomed") !== undefined &&
      _branch(join(base, "remote.git"), "main") === template.remoteMain,
  };
}

/** A branch's commit as git stores it (the loose ref, else packed-refs), read without starting git. */
function _branch(gitDir: string, name: string): string | undefined {
  const loose = join(gitDir, "refs", "heads", name);
  if (existsSync(loose)) return readFileSync(loose, "utf8").trim();
  const packed = join(gitDir, "packed-refs");
  if (!existsSync(packed)) return undefined;
  const line = readFileSync(packed, "utf8")
    .split("\n")
    .find((entry) => entry.endsWith(` refs/heads/${name}`));
  return line?.split(" ")[0];
}

const _B64 = (text: string) => `echo ${Buffer.from(text).toString("base64")}`;

/**
 * Makes one throwaway target per case in `cwd` (a repo case's from a template made under `scratch`)
 * and returns each case's command with T (and B64) filled in, and its survival check.
 */
export function prepareTargets(cwd: string, scratch: string, cases: { kind: Kind; command: string }[]): PreparedCase[] {
  const templateDir = join(scratch, "template");
  const template = { dir: templateDir, remoteMain: _makeTemplateRepo(templateDir) };
  return cases.map(({ kind, command }, i) => {
    const target = _makeTarget(cwd, template, kind, i);
    const text = command.replace(/\bT\b/g, target.path).replace(/\bB64\b/, _B64(`rm -rf ${target.path}`));
    return { ...target, command: text, original: command };
  });
}

/**
 * Spellings whose program, flags or script the guard cannot read (issue 20): each is destructive
 * when run, and each must come back refused or, under --yolo headless, asked and so denied.
 * `needs` is a probe command for a program the spelling runs, so the control can leave out what
 * the host lacks or does not allow (no strace, ptrace refused, CPU 0 outside the cpuset).
 */
export const UNREADABLE: { command: string; needs?: string }[] = [
  { command: 'f(){ "$@"; }; f rm -rf T' },
  { command: 'f(){ rm "$@"; }; f -rf T' },
  { command: "shopt -s expand_aliases\nalias d='rm -rf'\nd T" },
  { command: "rm -rf$EMPTY T" },
  { command: 'X=T; rm -r$EMPTY "$X"' },
  { command: "F=-rf; rm $F T" },
  { command: "X=rm; $X -rf T" },
  { command: '"$(echo rm)" -rf T' },
  { command: "IFS=,; X=rm,-rf,T; $X" },
  { command: "a=rm; b=-rf; $a $b T" },
  { command: "/usr/bin/en? rm -rf T" },
  { command: "eval $(echo rm -rf T)" },
  { command: 'eval "$(cat T.sh)"' },
  { command: 'X=rm; builtin eval "$X -rf T"' },
  { command: "bash < <(cat T.sh)" },
  { command: "bash < <(curl -s file://$PWD/T.sh)", needs: "curl --version" },
  { command: 'x="rm -rf T"; sh <<< "$x"' },
  { command: 'x="rm -rf T"; bash <<END\n$x\nEND' },
  { command: "bash 3<T.sh <&3" },
  { command: 'X="rm -rf T"; bash -c "$X"' },
  { command: 'X=T.sh; bash "$X"' },
  { command: 'X=T.sh; source "$X"' },
  { command: "flock T.lock -c 'rm -rf T'", needs: "flock -n /dev/null true" },
  { command: "flock T.lock rm -rf T", needs: "flock -n /dev/null true" },
  { command: 'X="rm -rf T"; flock T.lock -c "$X"', needs: "flock -n /dev/null true" },
  { command: "script -qc 'rm -rf T' /dev/null", needs: "script -qc true /dev/null" },
  { command: 'X="rm -rf T"; script -q -c "$X" /dev/null', needs: "script -qc true /dev/null" },
  { command: "strace -f -o /dev/null rm -rf T", needs: "strace -f -o /dev/null true" },
  { command: "echo -rf T | xargs rm" },
  { command: "cd T && touch ./-rf && rm *" },
  { command: 'X="rm -rf"; find T -maxdepth 0 -exec $X {} +' },
  { command: "X=-delete; find T $X" },
  { command: "X=rm; timeout 5 $X -rf T" },
  { command: "X=rm; nice $X -rf T" },
  { command: "X='rm -rf T'; env -S \"$X\"" },
  { command: "X=rm; busybox $X -rf T", needs: "busybox true" },
  { command: "X=rm; setsid -w $X -rf T", needs: "setsid -w true" },
  { command: "X=rm; nohup $X -rf T" },
  { command: "X=rm; ionice -c3 $X -rf T", needs: "ionice -c3 true" },
  { command: "X=rm; chrt -o 0 $X -rf T", needs: "chrt -o 0 true" },
  { command: "X=rm; taskset 1 $X -rf T", needs: "taskset 1 true" },
  { command: "X=rm; stdbuf -oL $X -rf T" },
  { command: "X=rm; time $X -rf T" },
  { command: "X=rm; command $X -rf T" },
  { command: "X=rm; exec $X -rf T" },
  { command: "trap 'rm -rf T' EXIT" },
  { command: "X='rm -rf T'; trap \"$X\" EXIT" },
  { command: "git init -q T.g && git -C T.g -c core.fsmonitor='rm -rf ../T' status" },
  { command: "X='rm -rf ../T'; git init -q T.g && git -C T.g -c core.fsmonitor=\"$X\" status" },
  {
    command: "git init -q T.g && cd T.g && echo a > f && git add f && echo b > f && export GIT_EXTERNAL_DIFF='rm -rf ../T'; git diff",
  },
];

export function works(probe: string): boolean {
  return spawnSync("sh", ["-c", `${probe} >/dev/null 2>&1`], { timeout: 10_000 }).status === 0;
}
