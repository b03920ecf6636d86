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
 * A workspace may be widened by folders beside it (`--add-dir`, lib/platform/workspace-dirs.ts): a path inside
 * one of them passes the same two checks against that folder. Registered once per process, by
 * the session that owns the root; every tool keeps passing only the root.
 */
import { constants, fstatSync, lstatSync, readlinkSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { lstat, open, type FileHandle } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { workspaceExtraDirs } from "../platform/workspace-dirs.ts";
import type { WorkspaceFiles } from "./types.ts";

const _MAX_LINK_HOPS = 40;

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
  const target = /^~(?:[/\\]|$)/.test(p) ? resolve(homedir(), p.slice(2)) : resolve(rootAbs, p);
  const escapes = () => new Error(`Path escapes workspace: ${p}`);
  const real = _realPath(target);
  for (const base of _roots(rootAbs)) if (_isInside(base, target) && _isInside(_realPath(base), real)) return target;
  throw escapes();
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
  const abs = resolveInWorkspace(root, p);
  const existed = mode === "write" && (await lstat(abs).catch(() => undefined)) !== undefined;
  // A new file is created exclusively: a symlink swapped in at its name makes the open fail, and
  // a file that lands outside through a swapped folder is known to be ours to remove.
  const flags = mode === "read" ? constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) : constants.O_WRONLY | (existed ? 0 : constants.O_CREAT | constants.O_EXCL);
  const handle = await open(abs, flags, createMode);
  const opened = _openedPath(handle.fd, abs);
  if (opened !== undefined && _roots(root).some((base) => _isInside(_realPath(base), opened))) return { handle, abs, real: opened };
  await handle.close();
  if (mode === "write" && !existed && opened !== undefined) {
    try {
      unlinkSync(opened);
    } catch {
      // Already gone.
    }
  }
  throw new Error(`Path escapes workspace: ${p}`);
}

/**
 * Replaces the contents of `p` (created when missing, with `createMode` when given) through
 * `openInWorkspace`: nothing is written before the check passes.
 */
export async function writeInWorkspace(root: string, p: string, content: string | Uint8Array, createMode?: number, files?: WorkspaceFiles): Promise<void> {
  // Through the editor, text only: the path is resolved inside the workspace (real path too) first.
  if (files && typeof content === "string") return files.write(resolveInWorkspace(root, p), content);
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

function _isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  if (rel === "") return true;
  if (isAbsolute(rel)) return false;
  return rel !== ".." && !rel.startsWith(`..${sep}`);
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
