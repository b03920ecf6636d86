/**
 * Whether a path is a folder or inside it, by the path's text (no link is followed, nothing is
 * read): `path` relative to `root` is empty, or neither absolute nor climbing out (`..` or
 * `../…`). A name that only starts with two dots (`..foo`) is inside. Relative arguments are
 * resolved against the process's working folder, as `path.relative` does.
 */
import { isAbsolute, relative, sep } from "node:path";

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  if (rel === "") return true;
  return !isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith("../");
}
