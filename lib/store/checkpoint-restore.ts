/**
 * Taking checkpoints back and putting them back: `shiro rewind`, `/undo`, `/redo`, `/rewind`.
 *
 * A rewind to checkpoint K takes back K and every later checkpoint still in force, newest last
 * in the chain: each path any of them changed goes back to its state before K, byte for byte and
 * mode for mode (symlinks as links, folders' bits too); what they created is removed, what they
 * deleted comes back, folders included. A redo puts the oldest taken-back checkpoint (newer than
 * every one in force) forward again. Nothing outside the paths the chain changed is touched.
 * The `--add-dir` folders a checkpoint covered (its `dirs`) go back with the workspace, each from
 * its own shadow repository; their paths are shown absolute.
 *
 * Before anything is written, each such path is compared with the state the chain left it in
 * (after the last turn, and between turns); a path someone else changed is a hand edit, and the
 * plan carries it so the caller can refuse (and write nothing, in any folder) unless forced.
 */
import { UserError } from "../platform/errors.ts";
import { runGit, splitNul, type ShadowRepo } from "./checkpoint-git.ts";
import { applySteps, sameState, type FolderState, type RewindStep } from "./checkpoint-apply.ts";
import { captureWorkspace, readSnapshotMeta, type Snapshot, type SnapshotMeta } from "./checkpoint-capture.ts";
import { listCheckpoints, markUndone, openFolderRepo, withRepoLock, type CheckpointRecord } from "./checkpoints.ts";

export type { RewindStep } from "./checkpoint-apply.ts";

export interface RewindPlan {
  direction: "undo" | "redo";
  /** The checkpoints this moves, in the order they were made. */
  records: CheckpointRecord[];
  /** Paths relative to the workspace; an added folder's paths absolute. */
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

/** One folder a chain of checkpoints covers: the workspace, or an added folder. */
interface _Folder {
  repo: ShadowRepo;
  /** "" for the workspace; an added folder's absolute path and `/`. */
  prefix: string;
  /** Each record's snapshots of this folder, none when the record does not cover it. */
  pick(record: CheckpointRecord): { before: Snapshot; after: Snapshot } | undefined;
}

interface _Computed {
  folder: _Folder;
  steps: RewindStep[];
  handEdited: string[];
  target: FolderState;
}

async function _plan(repo: ShadowRepo, direction: "undo" | "redo", records: CheckpointRecord[], maxFileBytes: number): Promise<RewindPlan> {
  const folders: _Folder[] = [{ repo, prefix: "", pick: (record) => record }];
  const added = [...new Set(records.flatMap((record) => (record.dirs ?? []).map((entry) => entry.dir)))].sort();
  for (const dir of added)
    folders.push({ repo: await openFolderRepo(repo.root, dir), prefix: `${dir}/`, pick: (record) => record.dirs?.find((entry) => entry.dir === dir) });
  const computeAll = () => Promise.all(folders.map((folder) => _compute(folder, direction, records, maxFileBytes)));
  const planned = await _locked(folders, computeAll);
  const shown = (computed: _Computed[]) => ({
    steps: computed.flatMap((one) => one.steps.map((step) => ({ ...step, path: `${one.folder.prefix}${step.path}` }))),
    handEdited: computed.flatMap((one) => one.handEdited.map((path) => `${one.folder.prefix}${path}`)),
  });
  return {
    direction,
    records,
    ...shown(planned),
    apply: async (force) => {
      // Checked again under the locks: a file edited while the question was open counts too.
      await _locked(folders, async () => {
        const fresh = await computeAll();
        const { handEdited } = shown(fresh);
        if (handEdited.length > 0 && !force) throw new HandEditError(handEdited);
        for (const one of fresh) await applySteps(one.folder.repo, one.steps, one.target);
      });
      markUndone(
        repo.root,
        records.map((record) => record.id),
        direction === "undo",
      );
    },
  };
}

/** Runs `fn` holding every folder's snapshot lock, the workspace's first. */
function _locked<T>(folders: readonly _Folder[], fn: () => Promise<T>): Promise<T> {
  const [first, ...rest] = folders;
  return first ? withRepoLock(first.repo, () => _locked(rest, fn)) : fn();
}

async function _compute(folder: _Folder, direction: "undo" | "redo", all: CheckpointRecord[], maxFileBytes: number): Promise<_Computed> {
  const { repo } = folder;
  const chain = all.map((record) => folder.pick(record)).filter((picked) => picked !== undefined);
  if (chain.length === 0) return { folder, steps: [], handEdited: [], target: new Map() };
  const now = await captureWorkspace(repo, maxFileBytes);
  const states = new Map<string, FolderState>();
  const stateOf = async (snapshot: Snapshot): Promise<FolderState> => {
    const key = `${snapshot.tree}:${snapshot.meta}`;
    if (!states.has(key)) states.set(key, await _stateFrom(repo, snapshot.tree, await readSnapshotMeta(repo, snapshot)));
    return states.get(key)!;
  };
  const nowState = await _stateFrom(repo, now.snapshot.tree, now.meta);
  const befores = await Promise.all(chain.map((picked) => stateOf(picked.before)));
  const afters = await Promise.all(chain.map((picked) => stateOf(picked.after)));
  const affected = new Set<string>();
  for (let i = 0; i < chain.length; i++) for (const path of _differing(befores[i]!, afters[i]!)) affected.add(path);

  const handEdited = new Set<string>();
  const expectedNow = direction === "undo" ? afters.at(-1)! : befores[0]!;
  for (const path of affected) {
    if (!sameState(nowState.get(path), expectedNow.get(path))) handEdited.add(path);
    if (direction === "undo") for (let i = 0; i + 1 < chain.length; i++) if (!sameState(afters[i]!.get(path), befores[i + 1]!.get(path))) handEdited.add(path);
  }
  const target = direction === "undo" ? befores[0]! : afters[0]!;
  const visible = (path: string) => (path.endsWith("/") ? path.slice(0, -1) : path);
  return { folder, steps: [..._steps(affected, nowState, target)], handEdited: [...handEdited].map(visible).sort(), target };
}

/** Each path's state (checkpoint-apply.ts): files with their bits, every folder with its bits. */
async function _stateFrom(repo: ShadowRepo, tree: string, meta: SnapshotMeta): Promise<FolderState> {
  const state: FolderState = new Map();
  for (const entry of splitNul(await runGit(repo, ["ls-tree", "-r", "-z", "--full-tree", tree]))) {
    const tab = entry.indexOf("\t");
    const [mode, , oid] = entry.slice(0, tab).split(" ");
    const path = entry.slice(tab + 1);
    const bits = mode === "100755" ? (meta.modes[path] ?? meta.base.exec) : mode === "100644" ? (meta.modes[path] ?? meta.base.file) : 0;
    state.set(path, `${mode} ${oid} ${bits.toString(8)}`);
  }
  for (const [dir, bits] of Object.entries(meta.dirModes ?? {})) state.set(`${dir}/`, `dir ${bits.toString(8)}`);
  for (const dir of meta.dirs) if (!state.has(`${dir}/`)) state.set(`${dir}/`, "dir");
  return state;
}

function _differing(a: FolderState, b: FolderState): string[] {
  const out: string[] = [];
  for (const [path, value] of a) if (!sameState(b.get(path), value)) out.push(path);
  for (const path of b.keys()) if (!a.has(path)) out.push(path);
  return out;
}

function* _steps(affected: Set<string>, now: FolderState, target: FolderState): Generator<RewindStep> {
  for (const path of [...affected].sort()) {
    const wanted = target.get(path);
    const current = now.get(path);
    if (sameState(current, wanted)) continue;
    if (path.endsWith("/")) yield { path: path.slice(0, -1), action: !wanted ? "remove-dir" : current ? "folder-mode" : "make-dir" };
    else if (wanted) yield { path, action: "restore" };
    else if (current) yield { path, action: "remove" };
  }
}
