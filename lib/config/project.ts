/**
 * Which project a directory belongs to. Project memory is keyed by this root, so a note made in
 * `src/` is found again from the repository's top folder.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The nearest ancestor of `cwd` (itself included) holding a `.git` entry, else `cwd` itself. */
export function findProjectRoot(cwd: string = process.cwd()): string {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return start;
  }
}
