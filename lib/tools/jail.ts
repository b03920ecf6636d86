/**
 * The path jail: every path a tool touches goes through `resolveInWorkspace` first.
 *
 * A path is inside the workspace when both its lexical form and its real form (every symlink
 * along it resolved) stay under the root. For a path that does not exist yet, the real form is
 * the nearest existing ancestor's real path plus the rest, so a write through a symlinked
 * directory that points outside is refused before anything is created. Not a sandbox: bash can
 * still reach anything the user can.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

const _MAX_LINK_HOPS = 40;

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
  if (!_isInside(rootAbs, target)) throw escapes();
  const rootReal = _realPath(rootAbs);
  if (!_isInside(rootReal, _realPath(target))) throw escapes();
  return target;
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
