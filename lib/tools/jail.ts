/**
 * The path jail: every path a tool touches goes through `resolveInWorkspace` first.
 *
 * A path is inside the workspace when both its lexical form and its real form (every symlink
 * along it resolved) stay under the root. For a path that does not exist yet, the real form is
 * the nearest existing ancestor's real path plus the rest, so a write through a symlinked
 * directory that points outside is refused before anything is created. Not a sandbox: bash can
 * still reach anything the user can.
 *
 * Checking a path and then opening it leaves a gap: a symlink swapped in between would be
 * followed. `openInWorkspace` closes it by checking what was actually opened: on Linux the path
 * the kernel reports for the descriptor (/proc/self/fd/N), elsewhere the descriptor's device and
 * inode against the path resolved again after the open. Reads and writes of file contents go
 * through it; nothing is read or written before that check passes.
 *
 * Nothing of a git dir is written by a tool: `resolveForWrite` (every path a tool creates, changes,
 * moves or deletes) and the write open refuse a path inside `.git` in any spelling, one that
 * leads there through a symlink, one inside a folder git takes for a git dir, and `.git` itself
 * (lib/shell/git-layout.ts; docs/security.md). Git runs what it finds there, outside any sandbox.
 *
 * A workspace may be widened by folders beside it (`--add-dir`, lib/platform/workspace-dirs.ts): a path inside
 * one of them passes the same two checks against that folder. Registered once per process, by
 * the session that owns the root; every tool keeps passing only the root.
 */
import { constants, type Dirent, fstatSync, lstatSync, readdirSync, readlinkSync, realpathSync, statSync, unlinkSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { workspaceExtraDirs } from "../platform/workspace-dirs.ts";
import { gitControlEntry, gitDirSegment, isGitDirName, looksLikeGitDir } from "../shell/git-layout.ts";
import type { WorkspaceFiles } from "./types.ts";
import { isInside } from "../platform/path-inside.ts";
import { fsPromises, nodeOs } from "../platform/runtime.ts";

const _MAX_LINK_HOPS = 40;
/** Real paths of folders whose files may be read, never written, from outside the workspace. */
const _readOnlyRoots = new Set<string>();

/**
 * Lets reads through `openInWorkspace(…, "read")` reach files under `dirs` though they lie outside
 * the workspace: the folders of loaded skills (a user-level `~/.claude/skills/x/`), whose bodies
 * refer to files beside them. Only those folders, only for reading; writes and every other
 * resolution stay jailed. Lasts for the process.
 */
export function allowReadOnly(dirs: Iterable<string>): void {
  for (const dir of dirs) _readOnlyRoots.add(_realPath(resolve(dir)));
}

function _inReadOnlyRoot(real: string): boolean {
  for (const dir of _readOnlyRoots) if (isInside(dir, real)) return true;
  return false;
}

function _readOnlyTarget(root: string, p: string): string | undefined {
  if (_readOnlyRoots.size === 0 || p.includes("\0")) return undefined;
  const target = /^~(?:[/\\]|$)/.test(p) ? resolve(nodeOs().homedir(), p.slice(2)) : resolve(resolve(root), p);
  return _inReadOnlyRoot(_realPath(target)) ? target : undefined;
}

/** The workspace roots a path under `root` may lie in: the root, then each added folder. */
function _roots(root: string): string[] {
  return [resolve(root), ...workspaceExtraDirs(root)];
}

/**
 * Absolute path of `p` (relative to `root`, absolute, or `~`-based as a shell reads it). Throws
 * `Path escapes workspace: <p>`, or `Invalid path "<p>": it contains a NUL byte.`
 */
export function resolveInWorkspace(root: string, p: string): string {
  if (p.includes("\0")) throw new Error(`Invalid path ${JSON.stringify(p)}: it contains a NUL byte.`);
  const rootAbs = resolve(root);
  // A model writing `~/x` means the home folder; read literally it would create a `~` folder here.
  const target = /^~(?:[/\\]|$)/.test(p) ? resolve(nodeOs().homedir(), p.slice(2)) : resolve(rootAbs, p);
  const escapes = () => new Error(`Path escapes workspace: ${p}`);
  const real = _realPath(target);
  for (const base of _roots(rootAbs)) if (isInside(base, target) && isInside(_realPath(base), real)) return target;
  throw escapes();
}

/**
 * Absolute path of `p` for a call that creates, changes, moves or deletes it: `resolveInWorkspace`,
 * then refused with one line when it lies in a git dir or is `.git` itself (`gitDirRefusal`).
 */
export function resolveForWrite(root: string, p: string): string {
  const abs = resolveInWorkspace(root, p);
  const refusal = _gitRefusal(root, p, abs);
  if (refusal !== undefined) throw new Error(refusal);
  return abs;
}

/**
 * The one-line refusal of a write to `p` that would change a git dir, or undefined. Never throws:
 * a path outside the workspace is `resolveInWorkspace`'s to refuse. What counts:
 * - a segment below the workspace root spelling `.git` (lib/shell/git-layout.ts `isGitDirName`:
 *   `.GIT`, `.git.`, `git~1`…), after `.`, `..`, doubled and trailing slashes are resolved;
 * - the same in the real path, so a symlink (to a file, or a folder such as `g -> .git`) that
 *   leads into a git dir counts;
 * - the path itself or a folder above it, up to the workspace root, that git takes for a git dir
 *   by what it holds (a bare repository, a `gitdir:` file's target, `.git/modules/x`).
 */
export function gitDirRefusal(root: string, p: string): string | undefined {
  let abs: string;
  try {
    abs = resolveInWorkspace(root, p);
  } catch {
    return undefined;
  }
  return _gitRefusal(root, p, abs);
}

/**
 * Refuses moving folder `abs` (shown as `shown`) when it carries a git dir: an entry spelling
 * `.git` or a folder git takes for one, anywhere under it (symlinks not followed). A folder past
 * `cap` entries is refused too, since it could not be checked whole.
 */
export function assertCarriesNoGitDir(abs: string, shown: string, cap: number): void {
  let seen = 0;
  const queue = [abs];
  for (let next = 0; next < queue.length; next++) {
    const dir = queue[next]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const inside = `${shown.replace(/[/\\]+$/, "")}/${relative(abs, path).split(sep).join("/")}`;
      if (++seen > cap)
        throw new Error(`Refusing to move ${shown}: it holds more than ${cap} entries, too many to check that none is a git dir. Move it with bash.`);
      if (isGitDirName(entry.name) || (entry.isDirectory() && looksLikeGitDir(path)))
        throw new Error(`Refusing to move ${shown}: it holds the git dir ${inside}, ${_GIT_RULE}`);
      if (entry.isDirectory()) queue.push(path);
    }
  }
}

const _GIT_RULE = "and file tools never change a git dir (git runs the hooks and config it finds there). Ask the user to make this change.";

function _gitRefusal(root: string, p: string, abs: string, real = _realPath(abs)): string | undefined {
  const why = _gitReason(root, abs, real);
  return why === undefined ? undefined : `Refusing to change ${p}: ${why}, ${_GIT_RULE}`;
}

/** Why `abs` (already jailed), whose real path is `real`, lies in a git dir, or undefined. */
function _gitReason(root: string, abs: string, real: string): string | undefined {
  const roots = _roots(root);
  const base = roots.find((candidate) => isInside(candidate, abs));
  if (base !== undefined) {
    const lexical = _segments(relative(base, abs));
    const at = gitDirSegment(lexical);
    if (at >= 0)
      return at === lexical.length - 1
        ? `it is ${lexical.join("/")} itself`
        : `it is inside ${lexical.slice(0, at + 1).join("/")}${_entryNote(lexical[at + 1]!)}`;
  }
  const realBase = roots.map((candidate) => _realPath(candidate)).find((candidate) => isInside(candidate, real));
  if (realBase === undefined) return undefined;
  const resolved = _segments(relative(realBase, real));
  if (gitDirSegment(resolved) >= 0) return `it leads to ${resolved.join("/")} through a symlink`;
  for (let dir = real; isInside(realBase, dir); dir = dirname(dir)) {
    if (looksLikeGitDir(dir)) return `${toWorkspacePath(realBase, dir)} is a git dir (it holds HEAD and objects)`;
    if (dir === realBase || dirname(dir) === dir) break;
  }
  return undefined;
}

/** ` (hooks: programs git runs on …)` for a control entry of the git dir (lib/shell/git-layout.ts), else "". */
function _entryNote(name: string): string {
  const entry = gitControlEntry(name);
  return entry ? ` (${entry.name}${entry.kind === "folder" ? "/" : ""}: ${entry.why})` : "";
}

function _segments(rel: string): string[] {
  return rel.split(/[/\\]+/).filter((segment) => segment !== "" && segment !== ".");
}

export interface OpenedFile {
  handle: FileHandle;
  /** The absolute path as resolved by `resolveInWorkspace`. */
  abs: string;
  /** The real path of what was opened (inside the workspace's real root). */
  real: string;
}

/**
 * Opens `p` through the jail, for reading (never blocks on a named pipe) or for writing (created
 * when missing, never truncated here), then checks that what was opened lies inside the
 * workspace. Throws `Path escapes workspace: <p>` (closing the file, and removing it when this
 * call created it outside), or the open's own error (ENOENT, EEXIST when a file appeared at a new
 * path meanwhile) for the caller to word.
 */
export async function openInWorkspace(root: string, p: string, mode: "read" | "write" = "read", createMode?: number): Promise<OpenedFile> {
  let abs: string;
  try {
    abs = resolveInWorkspace(root, p);
  } catch (error) {
    const readable = mode === "read" ? _readOnlyTarget(root, p) : undefined;
    if (readable === undefined) throw error;
    abs = readable;
  }
  if (mode === "write") {
    const refusal = _gitRefusal(root, p, abs);
    if (refusal !== undefined) throw new Error(refusal);
  }
  const existed =
    mode === "write" &&
    (await fsPromises()
      .lstat(abs)
      .catch(() => undefined)) !== undefined;
  // A new file is created exclusively: a symlink swapped in at its name makes the open fail, and
  // a file that lands outside through a swapped folder is known to be ours to remove.
  const flags = mode === "read" ? constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) : constants.O_WRONLY | (existed ? 0 : constants.O_CREAT | constants.O_EXCL);
  const handle = await fsPromises().open(abs, flags, createMode);
  const opened = _openedPath(handle.fd, abs);
  const inside = opened !== undefined && (_roots(root).some((base) => isInside(_realPath(base), opened)) || (mode === "read" && _inReadOnlyRoot(opened)));
  // A link swapped in between the check and the open, into a git dir, is caught here.
  const refusal = inside && mode === "write" ? _gitRefusal(root, p, abs, opened) : undefined;
  if (inside && refusal === undefined) return { handle, abs, real: opened };
  await handle.close();
  if (mode === "write" && !existed && opened !== undefined) {
    try {
      unlinkSync(opened);
    } catch {
      // Already gone.
    }
  }
  throw new Error(refusal ?? `Path escapes workspace: ${p}`);
}

/**
 * Replaces the contents of `p` (created when missing, with `createMode` when given) through
 * `openInWorkspace`: nothing is written before the check passes.
 */
export async function writeInWorkspace(root: string, p: string, content: string | Uint8Array, createMode?: number, files?: WorkspaceFiles): Promise<void> {
  // Through the editor, text only: the path is resolved inside the workspace (real path too) first.
  if (files && typeof content === "string") return files.write(resolveForWrite(root, p), content);
  const { handle } = await openInWorkspace(root, p, "write", createMode);
  try {
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/** Where descriptor `fd` really points; undefined when that cannot be established. */
function _openedPath(fd: number, abs: string): string | undefined {
  if (process.platform === "linux") {
    try {
      const link = readlinkSync(`/proc/self/fd/${fd}`);
      if (link.startsWith("/")) return link;
    } catch {
      // No /proc: fall back to comparing the descriptor with the path resolved again.
    }
  }
  try {
    const real = realpathSync(abs);
    const [held, named] = [fstatSync(fd), statSync(real)];
    return held.dev === named.dev && held.ino === named.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Root-relative posix form of an absolute path inside the workspace (`.` for the root). */
export function toWorkspacePath(root: string, abs: string): string {
  const rel = relative(resolve(root), abs);
  return rel === "" ? "." : rel.split(sep).join("/");
}

/** The real path `p` has or would have: symlinks resolved, dangling ones followed by their text. */
function _realPath(p: string, hops = 0): string {
  try {
    return realpathSync(p);
  } catch {
    // Falls through: `p` or one of its ancestors does not exist, or a link along it dangles.
  }
  if (hops > _MAX_LINK_HOPS) return p;
  let isLink = false;
  try {
    isLink = lstatSync(p).isSymbolicLink();
  } catch {
    isLink = false;
  }
  if (isLink) return _realPath(resolve(dirname(p), readlinkSync(p)), hops + 1);
  const parent = dirname(p);
  if (parent === p) return p;
  return join(_realPath(parent, hops), basename(p));
}
