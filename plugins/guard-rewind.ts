/**
 * Which guard refusals a checkpoint can undo. A command line the guard refuses is *rewindable*
 * when every rule it matches only changes files (a recursive or forced `rm`, `find … -delete`,
 * `git restore`/`git checkout` of work-tree paths), and every path it names stays inside the
 * workspace, is not ignored (`.gitignore`, `.shiroignore`, `.git`, `node_modules`), holds no
 * file over the checkpoint size cap, and is not reached through a symlink that leaves the
 * workspace. A line that changes folder (`cd`), points git elsewhere (`-C`, `--git-dir`), runs
 * privileged, or names a path through an expansion is never rewindable. Everything else the
 * guard refuses — pushes, history, devices, `git clean`, the whole machine — stays refused.
 */
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { readCommand, type ReadCommand } from "../lib/shell/read.ts";
import { createIgnoreFilter, type IgnoreFilter } from "../lib/tools/walk.ts";
import type { CommandReading } from "../lib/shell/read.ts";

/** The part of a guard rule (plugins/guard.ts) this reads. */
interface _Rule {
  why: string;
  matches(line: { source: string; reading: CommandReading }): boolean;
}

/** The guard rules whose effects are workspace files only. */
export const REWINDABLE_RULES: ReadonlySet<string> = new Set(["recursive or forced delete", "deletes files found by find", "discards uncommitted work"]);

/** git subcommands that change more than work-tree files (the index, HEAD, refs, remotes, ignored files). */
const _GIT_BEYOND_FILES = new Set([
  "reset",
  "switch",
  "clean",
  "push",
  "branch",
  "rebase",
  "stash",
  "update-ref",
  "reflog",
  "gc",
  "prune",
  "filter-branch",
  "commit",
]);

const _FEEDERS = new Set(["xargs", "parallel"]);
const _UNREAD_DELETERS = new Set(["shred", "fd", "fdfind", "unlink", "rmdir", "srm", "wipe"]);

/** Entries looked at under a folder a command deletes; past this the command is not judged rewindable. */
const _WALK_LIMIT = 20_000;
const _ELSEWHERE = /(?:^|[\s;&|(])(?:cd|pushd|popd|chroot)(?:$|[\s;&|)])|\s-C\s|--git-dir|--work-tree|GIT_DIR|GIT_WORK_TREE|\$\{?HOME|~/;

export interface RewindScope {
  root: string;
  maxFileBytes: number;
}

/** True when the refusal of `command` by `rules` is one a checkpoint of `scope.root` can take back. */
export function isRewindable(command: string, rules: readonly _Rule[], scope: RewindScope): boolean {
  const line = { source: command, reading: readCommand(command) };
  if (!line.reading.parsed || _ELSEWHERE.test(command)) return false;
  const matched = rules.filter((rule) => rule.matches(line));
  if (matched.length === 0 || matched.some((rule) => !REWINDABLE_RULES.has(rule.why))) return false;
  const filter = createIgnoreFilter(scope.root);
  return line.reading.commands.every((command) => _covered(command, scope, filter));
}

function _covered({ peeled }: ReadCommand, scope: RewindScope, filter: IgnoreFilter): boolean {
  // Arguments fed from standard input, or a deleter this does not read, could name anything.
  if (peeled.privileged || peeled.wrappers.some((wrapper) => _FEEDERS.has(wrapper)) || _UNREAD_DELETERS.has(peeled.program)) return false;
  const { program, args, argKnown } = peeled;
  if (program === "rm" || program === "find") {
    const targets = program === "rm" ? args.filter((arg, i) => !arg.startsWith("-") || args.slice(0, i).includes("--")) : _findStarts(args);
    if (targets.length === 0 && program === "find") targets.push(".");
    return args.every((_, i) => argKnown[i]) && targets.every((target) => _pathCovered(target, scope, filter));
  }
  if (program === "git") {
    if (args[0] !== "restore" && args[0] !== "checkout") return !_GIT_BEYOND_FILES.has(args[0] ?? "");
    const end = args.indexOf("--");
    // `git checkout <tree-ish> -- …` and any option (-f, -b, --ours…) reach past the work tree.
    if (args[0] === "checkout" && (args.slice(1, end >= 0 ? end : undefined).some((arg) => arg.startsWith("-") || arg !== ".") || end > 1)) return false;
    if (args.some((arg) => /^--(?:staged|source)/.test(arg) || /^-[a-zA-Z]*[Ss]/.test(arg))) return false;
    const paths = end >= 0 ? args.slice(end + 1) : args.slice(1).filter((arg) => !arg.startsWith("-"));
    // git rewrites tracked work-tree files only: never .git, never ignored files.
    return paths.length > 0 && args.every((_, i) => argKnown[i]) && paths.every((path) => !path.startsWith(":") && _inside(path, scope.root) !== undefined);
  }
  return true;
}

/** `find`'s starting points: the words before the first expression. */
function _findStarts(args: readonly string[]): string[] {
  const starts: string[] = [];
  for (const arg of args) {
    if (arg.startsWith("-") || arg === "(" || arg === "!" || arg === ",") break;
    starts.push(arg);
  }
  return starts;
}

function _pathCovered(target: string, scope: RewindScope, filter: IgnoreFilter): boolean {
  const matches = /[*?[]/.test(target) ? _expand(target, scope.root) : [target];
  return matches !== undefined && matches.every((path) => _entryCovered(path, scope, filter));
}

/** A one-segment glob expanded as bash would (dotfiles only for a leading dot); undefined for deeper globs. */
function _expand(pattern: string, root: string): string[] | undefined {
  const slash = pattern.lastIndexOf("/");
  const dir = slash >= 0 ? pattern.slice(0, slash) : ".";
  const leaf = pattern.slice(slash + 1);
  if (/[*?[]/.test(dir)) return undefined;
  const source = leaf
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\[!/g, "[^");
  let regex: RegExp;
  try {
    regex = new RegExp(`^${source}$`);
  } catch {
    return undefined;
  }
  let names: string[];
  try {
    names = readdirSync(resolve(root, dir));
  } catch {
    return [];
  }
  return names.filter((name) => regex.test(name) && (leaf.startsWith(".") || !name.startsWith("."))).map((name) => (slash >= 0 ? `${dir}/${name}` : name));
}

function _entryCovered(path: string, scope: RewindScope, filter: IgnoreFilter): boolean {
  const rel = _inside(path, scope.root);
  return rel !== undefined && _treeCovered(scope.root, rel, scope.maxFileBytes, filter, { seen: 0 });
}

/** The workspace-relative posix path of `path`, or undefined when it (or the real place a symlink on its way leads to) is outside. */
function _inside(path: string, root: string): string | undefined {
  const abs = resolve(root, path.replace(/\/+$/, "") || ".");
  const rel = relative(root, abs);
  if (rel.startsWith("..") || isAbsolute(rel)) return undefined;
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return rel.split(sep).join("/");
  }
  const realRel = relative(realpathSync(root), real);
  if (realRel.startsWith("..") || isAbsolute(realRel)) return undefined;
  return rel.split(sep).join("/");
}

/** Nothing at or under `rel` is ignored or over the cap (symlinks are not followed). */
function _treeCovered(root: string, rel: string, cap: number, filter: IgnoreFilter, budget: { seen: number }): boolean {
  if (++budget.seen > _WALK_LIMIT) return false;
  let stat;
  try {
    stat = lstatSync(join(root, rel));
  } catch {
    return true;
  }
  if (rel !== "" && filter.isIgnored(rel, stat.isDirectory())) return false;
  if (!stat.isDirectory()) return stat.size <= cap || !stat.isFile();
  const names = readdirSync(join(root, rel));
  if (rel === "" && names.includes(".git")) return false;
  return names.every((name) => _treeCovered(root, rel === "" ? name : `${rel}/${name}`, cap, filter, budget));
}
