/**
 * The folders a workspace was widened by (`--add-dir`): registered once per process by the
 * session that owns the root (lib/agent/run-scope.ts), read by the path jail (lib/tools/jail.ts)
 * and the shell sandbox's writable set (lib/sandbox/session.ts), so both widen together.
 */
import { resolve } from "node:path";

const _extraDirs = new Map<string, readonly string[]>();

/** Lets every jail check and sandboxed command under `root` also reach `dirs` (absolute, existing folders). */
export function widenWorkspace(root: string, dirs: readonly string[]): void {
  const key = resolve(root);
  _extraDirs.set(key, [...(_extraDirs.get(key) ?? []), ...dirs.map((dir) => resolve(dir))]);
}

/** The folders `root` was widened by (none unless `widenWorkspace` was called). */
export function workspaceExtraDirs(root: string): readonly string[] {
  return _extraDirs.get(resolve(root)) ?? [];
}
