/**
 * Taking checkpoints back and putting them back: `shiro rewind`, `/undo`, `/redo`, `/rewind`.
 *
 * A rewind to checkpoint K takes back K and every later checkpoint still in force, newest last
 * in the chain: each path any of them changed goes back to its state before K, byte for byte and
 * mode for mode (symlinks as links); what they created is removed, what they deleted comes back,
 * folders included. A redo puts the oldest taken-back checkpoint (newer than every one in force)
 * forward again. Nothing outside the paths the chain changed is touched.
 *
 * Before anything is written, each such path is compared with the state the chain left it in
 * (after the last turn, and between turns); a path someone else changed is a hand edit, and the
 * plan carries it so the caller can refuse (and write nothing) unless forced.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UserError } from "../platform/errors.ts";
import { runGit, splitNul, type ShadowRepo } from "./checkpoint-git.ts";
import { captureWorkspace, readSnapshotMeta, type Snapshot, type SnapshotMeta } from "./checkpoint-capture.ts";
import { listCheckpoints, markUndone, withCheckpointLock, type CheckpointRecord } from "./checkpoints.ts";

export interface RewindStep {
  path: string;
  /** What the workspace gets: the file back as it was, the file removed, a folder made or removed. */
  action: "restore" | "remove" | "make-dir" | "remove-dir";
}

export interface RewindPlan {
  direction: "undo" | "redo";
  /** The checkpoints this moves, in the order they were made. */
  records: CheckpointRecord[];
  steps: RewindStep[];
  /** Paths changed since shiro left them (by hand, another program, another session). */
  handEdited: string[];
  /** Applies the plan; refuses (throws) over hand edits unless `force`. */
  apply(force: boolean): Promise<void>;
}

/** Thrown by `apply` over hand edits (the caller shows them first from `handEdited`); exit 1. */
export class HandEditError extends UserError {
  constructor(readonly paths: string[]) {
    super(`changed since the checkpoint, so nothing was changed: ${paths.join(", ")}; --force overwrites them`);
  }
}

type _State = Map<string, string>;

/** The plan that takes back `record` and every later checkpoint in force. */
export async function planUndo(repo: ShadowRepo, record: CheckpointRecord, maxFileBytes: number): Promise<RewindPlan> {
  if (record.undone) throw new Error(`checkpoint ${record.id.slice(0, 8)} is already taken back`);
  const chain = listCheckpoints(repo.root).filter((other) => !other.undone && other.at >= record.at && other.id !== record.id);
  return _plan(repo, "undo", [record, ...chain], maxFileBytes);
}

/** The checkpoint a redo puts back, or undefined when there is none. */
export function redoCandidate(root: string): CheckpointRecord | undefined {
  const all = listCheckpoints(root);
  const newestActive = all.filter((record) => !record.undone).at(-1);
  return all.find((record) => record.undone && (!newestActive || record.at > newestActive.at));
}

/** The plan that puts `record` (a taken-back checkpoint) forward again. */
export function planRedo(repo: ShadowRepo, record: CheckpointRecord, maxFileBytes: number): Promise<RewindPlan> {
  return _plan(repo, "redo", [record], maxFileBytes);
}

interface _Computed {
  steps: RewindStep[];
  handEdited: string[];
  target: _State;
}

async function _plan(repo: ShadowRepo, direction: "undo" | "redo", records: CheckpointRecord[], maxFileBytes: number): Promise<RewindPlan> {
  const planned = await withCheckpointLock(repo.root, () => _compute(repo, direction, records, maxFileBytes));
  return {
    direction,
    records,
    steps: planned.steps,
    handEdited: planned.handEdited,
    apply: async (force) => {
      // Checked again under the lock: a file edited while the question was open counts too.
      await withCheckpointLock(repo.root, async () => {
        const fresh = await _compute(repo, direction, records, maxFileBytes);
        if (fresh.handEdited.length > 0 && !force) throw new HandEditError(fresh.handEdited);
        await _apply(repo, fresh.steps, fresh.target);
      });
      markUndone(
        repo.root,
        records.map((record) => record.id),
        direction === "undo",
      );
    },
  };
}

async function _compute(repo: ShadowRepo, direction: "undo" | "redo", records: CheckpointRecord[], maxFileBytes: number): Promise<_Computed> {
  const now = await captureWorkspace(repo, maxFileBytes);
  const states = new Map<string, _State>();
  const stateOf = async (snapshot: Snapshot): Promise<_State> => {
    const key = `${snapshot.tree}:${snapshot.meta}`;
    if (!states.has(key)) states.set(key, await _readState(repo, snapshot));
    return states.get(key)!;
  };
  const nowState = await _stateFrom(repo, now.snapshot.tree, now.meta);
  const befores = await Promise.all(records.map((record) => stateOf(record.before)));
  const afters = await Promise.all(records.map((record) => stateOf(record.after)));
  const affected = new Set<string>();
  for (let i = 0; i < records.length; i++) for (const path of _differing(befores[i]!, afters[i]!)) affected.add(path);

  const handEdited = new Set<string>();
  const expectedNow = direction === "undo" ? afters.at(-1)! : befores[0]!;
  for (const path of affected) {
    if (nowState.get(path) !== expectedNow.get(path)) handEdited.add(path);
    if (direction === "undo") for (let i = 0; i + 1 < records.length; i++) if (afters[i]!.get(path) !== befores[i + 1]!.get(path)) handEdited.add(path);
  }
  const target = direction === "undo" ? befores[0]! : afters[0]!;
  const visible = (path: string) => (path.endsWith("/") ? path.slice(0, -1) : path);
  return { steps: [..._steps(affected, nowState, target)], handEdited: [...handEdited].map(visible).sort(), target };
}

/** Each path's state: `<git mode> <oid> <permission bits>` for files, `dir` for folders kept empty. */
async function _readState(repo: ShadowRepo, snapshot: Snapshot): Promise<_State> {
  return _stateFrom(repo, snapshot.tree, await readSnapshotMeta(repo, snapshot));
}

async function _stateFrom(repo: ShadowRepo, tree: string, meta: SnapshotMeta): Promise<_State> {
  const state: _State = new Map();
  for (const entry of splitNul(await runGit(repo, ["ls-tree", "-r", "-z", "--full-tree", tree]))) {
    const tab = entry.indexOf("\t");
    const [mode, , oid] = entry.slice(0, tab).split(" ");
    const path = entry.slice(tab + 1);
    const bits = mode === "100755" ? (meta.modes[path] ?? meta.base.exec) : mode === "100644" ? (meta.modes[path] ?? meta.base.file) : 0;
    state.set(path, `${mode} ${oid} ${bits.toString(8)}`);
  }
  for (const dir of meta.dirs) state.set(`${dir}/`, "dir");
  return state;
}

function _differing(a: _State, b: _State): string[] {
  const out: string[] = [];
  for (const [path, value] of a) if (b.get(path) !== value) out.push(path);
  for (const path of b.keys()) if (!a.has(path)) out.push(path);
  return out;
}

function* _steps(affected: Set<string>, now: _State, target: _State): Generator<RewindStep> {
  for (const path of [...affected].sort()) {
    const wanted = target.get(path);
    if (now.get(path) === wanted) continue;
    const dir = path.endsWith("/");
    if (dir) yield { path: path.slice(0, -1), action: wanted ? "make-dir" : "remove-dir" };
    else if (wanted) yield { path, action: "restore" };
    else if (now.has(path)) yield { path, action: "remove" };
  }
}

async function _apply(repo: ShadowRepo, steps: RewindStep[], target: _State): Promise<void> {
  const keepDirs = new Set<string>();
  for (const path of target.keys()) {
    const clean = path.endsWith("/") ? path.slice(0, -1) : path;
    for (let dir = path.endsWith("/") ? clean : dirname(clean); dir !== "." && dir !== ""; dir = dirname(dir)) keepDirs.add(dir);
  }
  const byDepth = (a: RewindStep, b: RewindStep) => b.path.split("/").length - a.path.split("/").length;
  for (const step of steps.filter((s) => s.action === "remove").sort(byDepth)) {
    rmSync(join(repo.root, step.path), { force: true, recursive: true });
    _removeEmptyParents(repo.root, step.path, keepDirs);
  }
  for (const step of steps.filter((s) => s.action === "remove-dir").sort(byDepth)) {
    _rmdirTree(join(repo.root, step.path));
    _removeEmptyParents(repo.root, step.path, keepDirs);
  }
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
    if (_isDir(abs)) rmSync(abs, { recursive: true, force: true });
    renameSync(temp, abs);
  }
  for (const step of steps.filter((s) => s.action === "make-dir")) {
    _clearWay(repo.root, `${step.path}/x`);
    mkdirSync(join(repo.root, step.path), { recursive: true });
  }
}

/** Makes the parent folders of `path`; a file or link standing where a folder must be is removed. */
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

function _isDir(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory();
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
