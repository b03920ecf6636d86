/**
 * What a writable sandbox keeps read-only so that nothing it writes is run later by git outside
 * it (by shiro or by the user's own `git status`, `git commit`).
 *
 * For every git dir in the workspace (its `.git`, nested repositories' `.git`, submodules' git
 * dirs under `.git/modules/`, a worktree's git dir that a `gitdir:` file inside the workspace
 * leads to):
 * - the git dir is bound onto itself, so it is a mount point: `rename(2)` or `rmdir(2)` of it
 *   fails with EBUSY, and it cannot be swapped for a planted one;
 * - its control entries (`GIT_CONTROL_ENTRIES` of lib/shell/git-layout.ts: `config`,
 *   `config.worktree`, `commondir`, `hooks`, `info`, `worktrees`, `remotes`, `branches`) are bound
 *   read-only where they exist, and `hooks` is created empty first where it does not, so a
 *   repository without hooks cannot get one;
 * - everything else stays writable, as git's own commands need (`GIT_STATE_ENTRIES`: objects,
 *   refs, logs, the index, HEAD, the lock files git writes beside them, rebase and merge state).
 * Every `gitdir:` file in the workspace is bound read-only onto itself.
 *
 * Nested repositories and `gitdir:` files are found once per session (`scanWorkspaceGit`, a
 * walk bounded by `SCAN_DIRECTORY_CAP` folders); the workspace's own `.git` is looked at again
 * for every command. A `commondir` can still be created where none was (a mount needs something
 * to mount on): `removePlantedCommondirs` takes it away after each command.
 */
import { type Dirent, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { GIT_CONTROL_ENTRIES } from "../shell/git-layout.ts";
import { configProgramKeys } from "../shell/safe-git.ts";

/** Folders the session-start walk reads at most; what lies past them is not protected (docs/security.md says so). */
export const SCAN_DIRECTORY_CAP = 20_000;

const _READ_ONLY = GIT_CONTROL_ENTRIES.map((entry) => entry.name);

/** The git dirs and `gitdir:` files found in a workspace, as real paths. */
export interface WorkspaceGit {
  gitDirs: string[];
  gitFiles: string[];
  /** Git dirs that had no `commondir` when found. */
  withoutCommondir: string[];
}

/** Walks `root` once for `.git` folders and files (not into `.git` folders, not through symlinks). */
export function scanWorkspaceGit(root: string): WorkspaceGit {
  const real = _real(root);
  const found: WorkspaceGit = { gitDirs: [], gitFiles: [], withoutCommondir: [] };
  const queue = [real];
  for (let next = 0; next < queue.length && next < SCAN_DIRECTORY_CAP; next++) {
    const dir = queue[next]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      // Some file systems do not report the type in the listing.
      const known = entry.isFile() || entry.isDirectory() || entry.isSymbolicLink() ? entry : lstatSync(path, { throwIfNoEntry: false });
      if (!known || known.isSymbolicLink()) continue;
      if (entry.name === ".git") _add(found, real, path, known.isDirectory());
      else if (known.isDirectory()) queue.push(path);
    }
  }
  return found;
}

/**
 * The bwrap arguments that protect the git dirs of the workspace at `real` (seen in the sandbox
 * at each of `views`): `scan` from the session start plus what `.git` is now. Creates a missing
 * `hooks` folder in each git dir it protects.
 */
export function gitProtectionArgs(real: string, views: readonly string[], scan?: WorkspaceGit): string[] {
  const now: WorkspaceGit = { gitDirs: [], gitFiles: [], withoutCommondir: [] };
  const top = join(real, ".git");
  const stat = lstatSync(top, { throwIfNoEntry: false });
  if (stat && !stat.isSymbolicLink()) _add(now, real, top, stat.isDirectory());
  else if (stat && _inside(real, _real(top)) && _isDir(top)) now.gitDirs.push(_real(top));
  const gitDirs = _unique([...now.gitDirs, ...(scan?.gitDirs ?? [])]).filter((dir) => _isDir(dir));
  const gitFiles = _unique([...now.gitFiles, ...(scan?.gitFiles ?? [])]).filter((file) => existsSync(file));
  const mounts: { path: string; writable: boolean }[] = [];
  for (const dir of _unique(gitDirs.flatMap((gitDir) => [gitDir, ..._moduleGitDirs(gitDir)]))) {
    mounts.push({ path: dir, writable: true });
    _ensureHooks(dir);
    for (const name of _READ_ONLY) if (existsSync(join(dir, name))) mounts.push({ path: join(dir, name), writable: false });
  }
  for (const file of gitFiles) mounts.push({ path: file, writable: false });
  const args: string[] = [];
  for (const view of views) {
    for (const mount of mounts) {
      const at = view === real ? mount.path : join(view, relative(real, mount.path));
      args.push(mount.writable ? "--bind" : "--ro-bind", mount.path, at);
    }
  }
  return args;
}

/**
 * Removes a `commondir` that appeared, since the scan, in a git dir that had none (a repository's
 * own git dir never has one; it would send the user's git to a planted config). Returns the paths
 * removed, for the one-line warning the caller shows.
 */
export function removePlantedCommondirs(real: string, scan: WorkspaceGit): string[] {
  const removed: string[] = [];
  const top = join(real, ".git");
  const dirs = _unique([...scan.withoutCommondir, ...(_isDir(top) && !scan.gitDirs.includes(top) ? [top] : [])]);
  for (const dir of _unique(dirs.flatMap((gitDir) => [gitDir, ..._moduleGitDirs(gitDir)]))) {
    const planted = join(dir, "commondir");
    if (scan.gitDirs.includes(dir) && !scan.withoutCommondir.includes(dir)) continue;
    if (!lstatSync(planted, { throwIfNoEntry: false })) continue;
    rmSync(planted, { recursive: true, force: true });
    removed.push(planted);
  }
  return removed;
}

/**
 * What a `.git` made in the workspace during the session (none was there when it was scanned)
 * holds that the user's own git would run: hooks (not `*.sample`) and config keys that name a
 * program. A sentence for the command's result, or undefined when it holds none.
 */
export function describeNewRepository(real: string, scan: WorkspaceGit): string | undefined {
  const top = join(real, ".git");
  if (scan.gitDirs.includes(top) || scan.gitFiles.includes(top) || !_isDir(top)) return undefined;
  const hooks = _list(join(top, "hooks")).filter((name) => !name.endsWith(".sample"));
  const keys = configProgramKeys(join(top, "config"));
  const found = [...(hooks.length ? [`hooks (${hooks.join(", ")})`] : []), ...(keys.length ? [`config that runs programs (${keys.join(", ")})`] : [])];
  if (!found.length) return undefined;
  return `${top} was created in this session and holds ${found.join(" and ")}: your own git would run them there (shiro's git tools do not); check them before using git in this folder`;
}

function _add(found: WorkspaceGit, real: string, path: string, isDir: boolean): void {
  if (isDir) {
    found.gitDirs.push(path);
    if (!existsSync(join(path, "commondir"))) found.withoutCommondir.push(path);
    return;
  }
  found.gitFiles.push(path);
  const target = _gitFileTarget(path);
  if (target && _inside(real, target) && _isDir(target)) {
    found.gitDirs.push(target);
    if (!existsSync(join(target, "commondir"))) found.withoutCommondir.push(target);
  }
}

/** Submodules' git dirs under `gitDir/modules/` (a name may hold slashes), each also searched for its own modules. */
function _moduleGitDirs(gitDir: string, depth = 0): string[] {
  const modules = join(gitDir, "modules");
  if (depth > 4 || !_isDir(modules)) return [];
  const out: string[] = [];
  const visit = (dir: string, level: number) => {
    if (level > 6) return;
    for (const name of _list(dir)) {
      const path = join(dir, name);
      if (!_isDir(path) || lstatSync(path).isSymbolicLink()) continue;
      if (existsSync(join(path, "HEAD"))) out.push(path, ..._moduleGitDirs(path, depth + 1));
      else visit(path, level + 1);
    }
  };
  visit(modules, 0);
  return out;
}

function _ensureHooks(gitDir: string): void {
  try {
    if (!existsSync(join(gitDir, "hooks"))) mkdirSync(join(gitDir, "hooks"), { mode: 0o755 });
  } catch {
    // A git dir shiro cannot write to cannot be written from the sandbox either.
  }
}

function _gitFileTarget(path: string): string | undefined {
  try {
    const match = /^gitdir: (.+)$/m.exec(readFileSync(path, "utf8"));
    return match ? _real(resolve(dirname(path), match[1]!.trim())) : undefined;
  } catch {
    return undefined;
  }
}

function _inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function _isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function _list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function _unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

function _real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
