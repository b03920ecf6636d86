/**
 * What a git dir holds, as one table, and how `.git` may be spelled. Git runs programs that its
 * git dir names (hooks, `core.fsmonitor`, filters, diff drivers) and follows pointers found there
 * (`commondir`, a `gitdir:` file), so whatever can write those can make the user's own `git commit`
 * run a program later, outside every sandbox. Two writers are held back by this module:
 * - sandboxed commands (lib/sandbox/git-mounts.ts for bubblewrap, lib/sandbox/seatbelt.ts for
 *   macOS) get `GIT_CONTROL_ENTRIES` read-only in every git dir, and the git dir itself cannot be
 *   renamed; the `GIT_STATE_ENTRIES` stay writable because git's own commands write them;
 * - shiro's file tools (lib/tools/jail.ts) write nothing in a git dir at all: no tool of theirs
 *   has a reason to, so control and state alike are refused, and so is `.git` itself.
 * docs/security.md shows the table; a change here changes both.
 */
import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";

export interface GitDirEntry {
  /** The entry's name directly in a git dir. */
  name: string;
  kind: "file" | "folder";
  /** What git does with it: why a write there matters. */
  why: string;
}

/** The name git looks for in every folder from the working folder up. */
export const GIT_DIR_NAME = ".git";

/** Entries that name programs git runs or send git somewhere else: never writable from the sandbox. */
export const GIT_CONTROL_ENTRIES: readonly GitDirEntry[] = [
  { name: "config", kind: "file", why: "keys that name programs (core.fsmonitor, filters, diff drivers, hooksPath) and includes" },
  { name: "config.worktree", kind: "file", why: "the same keys, per worktree" },
  { name: "commondir", kind: "file", why: "sends git to another git dir and its config" },
  { name: "hooks", kind: "folder", why: "programs git runs on commit, checkout, merge, push" },
  { name: "info", kind: "folder", why: "attributes that choose filters and diff drivers, excludes" },
  { name: "worktrees", kind: "folder", why: "linked worktrees' git dirs, each with its own config and commondir" },
  { name: "remotes", kind: "folder", why: "old-style remote definitions" },
  { name: "branches", kind: "folder", why: "old-style remote shorthands" },
];

/** Entries git's own commands write (commit, branch, checkout, fetch, rebase): writable from the sandbox, never from file tools. */
export const GIT_STATE_ENTRIES: readonly string[] = [
  "objects",
  "refs",
  "logs",
  "packed-refs",
  "index",
  "HEAD",
  "ORIG_HEAD",
  "FETCH_HEAD",
  "MERGE_*",
  "COMMIT_EDITMSG",
  "shallow",
  "*.lock",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
  "modules",
];

/** The control entry a git dir's entry `name` is (matched as git's own file system would: any case), or undefined. */
export function gitControlEntry(name: string): GitDirEntry | undefined {
  const folded = name.toLowerCase();
  return GIT_CONTROL_ENTRIES.find((entry) => entry.name === folded);
}

/** Format characters (zero-width, bidi, BOM) that HFS+ ignores in names, as git's own `.git` check does. */
const _IGNORED = /\p{Cf}/gu;

/**
 * True when a path segment `name` is `.git` to some file system or to git itself: any case
 * (`.GIT` on macOS and Windows), with ignored format characters (`.g\u200Cit` on HFS+), trailing
 * dots or spaces, or an NTFS stream suffix (`.git.`, `.git ::$INDEX_ALLOCATION`), or the NTFS short
 * name `git~1`. Fails closed: a Linux file named `.GIT` is refused too.
 */
export function isGitDirName(name: string): boolean {
  const folded = name.replace(_IGNORED, "").toLowerCase();
  if (/^git~\d+$/.test(folded)) return true;
  const stem = folded.replace(/:.*$/, "").replace(/[. ]+$/, "");
  return stem === GIT_DIR_NAME;
}

/** The index of the first of `segments` that spells `.git` (isGitDirName), or -1. */
export function gitDirSegment(segments: readonly string[]): number {
  return segments.findIndex((segment) => isGitDirName(segment));
}

/**
 * True when folder `dir` is a git dir by what it holds, whatever its name (a bare repository, the
 * target of a `gitdir:` file, `.git/modules/x`): git's own test, a `HEAD` beside an `objects`
 * folder, or a `commondir` file beside a `HEAD`.
 */
export function looksLikeGitDir(dir: string): boolean {
  try {
    const head = lstatSync(join(dir, "HEAD"), { throwIfNoEntry: false });
    if (!head || head.isDirectory()) return false;
    if (lstatSync(join(dir, "commondir"), { throwIfNoEntry: false })) return true;
    return statSync(join(dir, "objects")).isDirectory();
  } catch {
    // Not a folder, or one shiro cannot read: git cannot use it as a git dir either.
    return false;
  }
}
