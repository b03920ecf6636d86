/**
 * The file-system half of a rewind (checkpoint-restore.ts plans it): each step puts one path of
 * one folder into its state in the target snapshot — a file's bytes and permission bits (a
 * symlink as a link), a file removed, a folder made, removed or given its bits back.
 *
 * Folder states: `<git mode> <oid> <bits>` for files and links, `dir <bits>` for folders (`dir`
 * alone from snapshots taken before folders' bits were kept, which matches a folder of any bits).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { lstatIfAny, runGit, type ShadowRepo } from "./checkpoint-git.ts";

export interface RewindStep {
  path: string;
  /** What the workspace gets: the file back as it was, the file removed, a folder made or removed, a folder's permission bits. */
  action: "restore" | "remove" | "make-dir" | "remove-dir" | "folder-mode";
}

/** Each path's state, folders with a trailing `/`. */
export type FolderState = Map<string, string>;

/** Whether two states of one path are the same (a folder without known bits matches any bits). */
export function sameState(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return (a === "dir" && b.startsWith("dir")) || (b === "dir" && a.startsWith("dir"));
}

/** Applies `steps` (paths relative to `repo.root`) so each path matches `target`. */
export async function applySteps(repo: ShadowRepo, steps: readonly RewindStep[], target: FolderState): Promise<void> {
  // An added folder the turns removed altogether comes back first.
  if (steps.some((step) => step.action !== "remove" && step.action !== "remove-dir")) mkdirSync(repo.root, { recursive: true });
  const keepDirs = new Set<string>();
  for (const path of target.keys()) {
    const clean = path.endsWith("/") ? path.slice(0, -1) : path;
    for (let dir = path.endsWith("/") ? clean : dirname(clean); dir !== "." && dir !== ""; dir = dirname(dir)) keepDirs.add(dir);
  }
  const byDepth = (a: RewindStep, b: RewindStep) => b.path.split("/").length - a.path.split("/").length;
  const folderBits = (path: string) => _bits(target.get(`${path}/`));
  for (const step of steps.filter((s) => s.action === "remove").sort(byDepth)) {
    rmSync(join(repo.root, step.path), { force: true, recursive: true });
    _removeEmptyParents(repo.root, step.path, keepDirs);
  }
  for (const step of steps.filter((s) => s.action === "remove-dir").sort(byDepth)) {
    _rmdirTree(join(repo.root, step.path));
    _removeEmptyParents(repo.root, step.path, keepDirs);
  }
  const folders = steps.filter((s) => s.action === "folder-mode" || s.action === "make-dir");
  // A folder the turn made read-only is opened for the writes below; its bits are set last.
  for (const step of folders) if (step.action === "folder-mode") _chmod(join(repo.root, step.path), 0o700 | (folderBits(step.path) ?? 0));
  const restores = steps.filter((s) => s.action === "restore");
  const blobs = await _readBlobs(
    repo,
    restores.map((step) => target.get(step.path)!.split(" ")[1]!),
  );
  for (const step of restores) {
    const [mode, oid, bits] = target.get(step.path)!.split(" ");
    const abs = join(repo.root, step.path);
    _clearWay(repo.root, step.path);
    const content = blobs.get(oid!)!;
    if (mode === "120000") {
      rmSync(abs, { force: true, recursive: true });
      symlinkSync(content.toString("utf8"), abs);
      continue;
    }
    const temp = join(dirname(abs), `.shiro-rewind-${process.pid}-${Math.random().toString(36).slice(2)}`);
    writeFileSync(temp, content, { mode: 0o600 });
    chmodSync(temp, Number.parseInt(bits!, 8));
    if (lstatIfAny(abs)?.isDirectory()) rmSync(abs, { recursive: true, force: true });
    renameSync(temp, abs);
  }
  for (const step of steps.filter((s) => s.action === "make-dir")) {
    _clearWay(repo.root, `${step.path}/x`);
    mkdirSync(join(repo.root, step.path), { recursive: true });
  }
  for (const step of [...folders].sort(byDepth)) {
    const bits = folderBits(step.path);
    if (bits !== undefined) _chmod(join(repo.root, step.path), bits);
  }
}

function _bits(state: string | undefined): number | undefined {
  const bits = state?.startsWith("dir ") ? state.slice(4) : undefined;
  return bits === undefined ? undefined : Number.parseInt(bits, 8);
}

function _chmod(abs: string, bits: number): void {
  try {
    chmodSync(abs, bits);
  } catch {
    // gone or not ours: the file steps report what matters
  }
}
function _clearWay(root: string, path: string): void {
  const parts = path.split("/").slice(0, -1);
  let at = root;
  for (const part of parts) {
    at = join(at, part);
    try {
      const stat = lstatSync(at);
      if (stat.isDirectory()) continue;
      unlinkSync(at);
    } catch {
      // missing: made below
    }
    mkdirSync(at);
  }
}

function _removeEmptyParents(root: string, path: string, keep: Set<string>): void {
  for (let dir = dirname(path); dir !== "." && dir !== ""; dir = dirname(dir)) {
    if (keep.has(dir) || !_rmdirIfEmpty(join(root, dir))) return;
  }
}

/** Removes a folder holding nothing but empty folders; anything else in it keeps it. */
function _rmdirTree(abs: string): void {
  try {
    for (const entry of readdirSync(abs, { withFileTypes: true })) if (entry.isDirectory()) _rmdirTree(join(abs, entry.name));
  } catch {
    return;
  }
  _rmdirIfEmpty(abs);
}

function _rmdirIfEmpty(abs: string): boolean {
  try {
    rmdirSync(abs);
    return true;
  } catch {
    return false;
  }
}

/** Blob contents by oid, read in one `cat-file --batch`. */
async function _readBlobs(repo: ShadowRepo, oids: string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  const out = new Map<string, Buffer>();
  if (unique.length === 0) return out;
  const raw = await runGit(repo, ["cat-file", "--batch"], `${unique.join("\n")}\n`);
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf(10, at);
    const [oid, type, size] = raw.subarray(at, end).toString("utf8").split(" ");
    if (type !== "blob") throw new Error(`the checkpoint store is missing object ${oid}`);
    const length = Number(size);
    out.set(oid!, raw.subarray(end + 1, end + 1 + length));
    at = end + 1 + length + 1;
  }
  return out;
}
