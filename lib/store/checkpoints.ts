/**
 * A workspace's checkpoints: the state of the workspace just before a turn's first change and
 * just after the turn, as two snapshots in the shadow repository (checkpoint-git.ts,
 * checkpoint-capture.ts), and one record per turn that changed anything.
 *
 * File: `checkpoints/<hash16>/checkpoints.json`, `{version: 1, root, checkpoints: [...]}` oldest
 * first, replaced atomically under its lock. The records are what keeps objects alive: each
 * names its four objects (both trees and both meta blobs), and a prune keeps every object a
 * record names (and what a turn in flight holds by `holds/<id>`, two object ids) and drops the
 * rest, so what a pruned record alone used goes with it. (Earlier versions held each record's
 * objects by a ref, `refs/checkpoints/<id>`; a prune deletes those with their records.)
 * A record marked `undone` was taken back (`shiro rewind`, `/undo`); `/redo` clears the mark.
 */
import * as v from "valibot";
import { uuidv7 } from "../platform/ids.ts";
import { pathHash16, paths } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";
import { withLock } from "../state-file/file-lock.ts";
import { openShadowRepo, runGit, splitNul, type ShadowRepo } from "./checkpoint-git.ts";
import { captureWorkspace, type CaptureResult, type NotCovered, type Snapshot, type SnapshotMeta } from "./checkpoint-capture.ts";
import { forgetLastSnapshot } from "./checkpoint-last.ts";
import type { CheckpointSettings } from "./checkpoint-settings.ts";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export { DEFAULT_KEEP_DAYS, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_PER_PROJECT, type CheckpointSettings } from "./checkpoint-settings.ts";

const _SnapshotSchema = v.object({ tree: v.string(), meta: v.string() });

export const FILE_CHANGES = ["added", "modified", "deleted", "mode", "type"] as const;

const _FileSchema = v.object({
  path: v.string(),
  change: v.picklist(FILE_CHANGES),
  added: v.optional(v.number()),
  removed: v.optional(v.number()),
  binary: v.optional(v.boolean()),
});

const _RecordSchema = v.object({
  id: v.string(),
  at: v.string(),
  sessionId: v.string(),
  runId: v.string(),
  prompt: v.string(),
  /** Messages the session held before this turn's prompt: `--conversation` cuts there. */
  messageIndex: v.number(),
  before: _SnapshotSchema,
  after: _SnapshotSchema,
  files: v.array(_FileSchema),
  notCovered: v.array(v.object({ path: v.string(), why: v.picklist(["ignored", "over-size-cap", "repository"]) })),
  undone: v.optional(v.string()),
  /** The `--add-dir` folders this turn changed, each snapshotted in its own shadow repository; their `files` are absolute paths. */
  dirs: v.optional(v.array(v.object({ dir: v.string(), before: _SnapshotSchema, after: _SnapshotSchema }))),
});

const _FileSchemaDoc = v.object({ version: v.literal(1), root: v.string(), checkpoints: v.array(_RecordSchema) });

export type CheckpointRecord = v.InferOutput<typeof _RecordSchema>;
export type CheckpointFile = v.InferOutput<typeof _FileSchema>;
type _Doc = v.InferOutput<typeof _FileSchemaDoc>;

/** What a turn knows about itself when its checkpoint is recorded. */
export interface TurnIdentity {
  sessionId: string;
  runId: string;
  prompt: string;
  messageIndex: number;
}

export function checkpointsFile(root: string): string {
  return join(paths.checkpointsDir(root), "checkpoints.json");
}

/** The shadow repository of a workspace, created on first use. */
export function openCheckpointRepo(root: string): Promise<ShadowRepo> {
  return openShadowRepo(root, paths.checkpointsDir(root));
}

/**
 * The shadow repository of an `--add-dir` folder of the workspace `root`, created on first use:
 * `checkpoints/<hash16 of root>/dirs/<hash16 of dir>/` (its `git/`, `index` and `last.json`), so
 * the workspace's checkpoints hold every folder they cover in one store.
 */
export function openFolderRepo(root: string, dir: string): Promise<ShadowRepo> {
  return openShadowRepo(dir, join(paths.checkpointsDir(root), "dirs", pathHash16(dir)));
}

/** Runs `fn` holding the workspace's checkpoint lock (one capture or rewind at a time). */
export function withCheckpointLock<T>(root: string, fn: () => Promise<T>): Promise<T> {
  return withLock(join(paths.checkpointsDir(root), "workspace"), fn, { timeoutMs: 60_000 });
}

/** Runs `fn` holding the snapshot lock of one shadow repository (the workspace's is `withCheckpointLock`'s). */
export function withRepoLock<T>(repo: ShadowRepo, fn: () => Promise<T>): Promise<T> {
  return withLock(join(repo.dir, "workspace"), fn, { timeoutMs: 60_000 });
}

/**
 * Takes one snapshot under the lock. With `hold`, its tree and meta blob are held by the file
 * `holds/<id>` (the two object ids) until the turn's checkpoint is recorded or the snapshot is
 * released (a turn's "before" snapshot): a prune keeps what a hold names.
 */
export async function snapshotWorkspace(
  repo: ShadowRepo,
  settings: Pick<CheckpointSettings, "maxFileBytes">,
  hold = false,
): Promise<CaptureResult & { hold?: string }> {
  return withRepoLock(repo, async () => {
    const taken = await captureWorkspace(repo, settings.maxFileBytes);
    if (!hold) return taken;
    const id = uuidv7();
    mkdirSync(join(repo.dir, "holds"), { recursive: true, mode: 0o700 });
    writeFileSync(_holdFile(repo, id), `${taken.snapshot.tree} ${taken.snapshot.meta}\n`, { mode: 0o600 });
    return { ...taken, hold: id };
  });
}

/** Lets go of whichever of these snapshots are held (their checkpoint holds what it needs by now, or they changed nothing). */
export function releaseSnapshots(repo: ShadowRepo, ...snapshots: { hold?: string }[]): void {
  for (const { hold } of snapshots) if (hold) rmSync(_holdFile(repo, hold), { force: true });
}

/** This workspace's checkpoints, oldest first (empty when there are none or the file is unreadable). */
export function listCheckpoints(root: string): CheckpointRecord[] {
  const read = readJson(checkpointsFile(root), { schema: _FileSchemaDoc });
  return read.status === "ok" ? read.value.checkpoints : [];
}

/** An added folder's two snapshots of a turn, in its own shadow repository. */
export interface FolderCapture {
  dir: string;
  repo: ShadowRepo;
  before: CaptureResult & { hold?: string };
  after: CaptureResult & { hold?: string };
}

/**
 * Records a turn's checkpoint when `after` differs from `before` in the workspace or in any added
 * folder of `folders`; returns it, or undefined when the turn changed nothing (nothing is kept
 * then). Held snapshots are released either way, once the record (which a prune keeps) names
 * them. Prunes by age and count afterwards.
 */
export async function recordCheckpoint(
  repo: ShadowRepo,
  turn: TurnIdentity,
  before: CaptureResult & { hold?: string },
  after: CaptureResult & { hold?: string },
  settings: CheckpointSettings,
  folders: readonly FolderCapture[] = [],
): Promise<CheckpointRecord | undefined> {
  const files = await diffSnapshots(repo, before, after);
  const notCovered = _mergeNotCovered(before.notCovered, after.notCovered);
  const changedFolders: FolderCapture[] = [];
  for (const folder of folders) {
    const changed = await diffSnapshots(folder.repo, folder.before, folder.after);
    if (changed.length === 0) {
      releaseSnapshots(folder.repo, folder.before, folder.after);
      continue;
    }
    changedFolders.push(folder);
    files.push(...changed.map((file) => ({ ...file, path: `${folder.dir}/${file.path}` })));
    for (const left of _mergeNotCovered(folder.before.notCovered, folder.after.notCovered)) notCovered.push({ ...left, path: `${folder.dir}/${left.path}` });
  }
  if (files.length === 0) {
    releaseSnapshots(repo, before, after);
    return undefined;
  }
  const record: CheckpointRecord = {
    id: uuidv7(),
    at: new Date().toISOString(),
    sessionId: turn.sessionId,
    runId: turn.runId,
    prompt: turn.prompt.slice(0, 200),
    messageIndex: turn.messageIndex,
    before: before.snapshot,
    after: after.snapshot,
    files,
    notCovered,
    ...(changedFolders.length > 0
      ? { dirs: changedFolders.map((folder) => ({ dir: folder.dir, before: folder.before.snapshot, after: folder.after.snapshot })) }
      : {}),
  };
  // Once the record names its snapshots, the holds can go: a prune keeps what a record names.
  const written = _update(repo.root, (checkpoints) => [...checkpoints, record]);
  releaseSnapshots(repo, before, after);
  for (const folder of changedFolders) releaseSnapshots(folder.repo, folder.before, folder.after);
  await pruneCheckpoints(repo, settings, Date.now(), written);
  return record;
}

/** Sets or clears the `undone` mark of these records. */
export function markUndone(root: string, ids: readonly string[], undone: boolean): void {
  const at = new Date().toISOString();
  _update(root, (checkpoints) =>
    checkpoints.map((record) => {
      if (!ids.includes(record.id)) return record;
      const { undone: _, ...rest } = record;
      return undone ? { ...rest, undone: at } : rest;
    }),
  );
}

/**
 * Drops records older than `keepDays`, then the oldest beyond `maxPerProject`, their refs, and
 * the objects nothing else holds. Undone records past the newest kept one go too (nothing can redo them).
 * `all` is the records as last written, when the caller has just written them (else they are read).
 */
export async function pruneCheckpoints(
  repo: ShadowRepo,
  settings: Pick<CheckpointSettings, "keepDays" | "maxPerProject">,
  now = Date.now(),
  all: readonly CheckpointRecord[] = listCheckpoints(repo.root),
): Promise<string[]> {
  const cutoff = now - settings.keepDays * 86_400_000;
  const young = all.filter((record) => Date.parse(record.at) >= cutoff);
  const kept = young.slice(Math.max(0, young.length - settings.maxPerProject));
  const keptIds = new Set(kept.map((record) => record.id));
  const dropped = all.filter((record) => !keptIds.has(record.id)).map((record) => record.id);
  if (dropped.length === 0) return [];
  _update(repo.root, (checkpoints) => checkpoints.filter((record) => !dropped.includes(record.id)));
  // Under the lock no capture is half-written; a turn in flight holds its snapshots by hold files.
  await withCheckpointLock(repo.root, () => _dropRefs(repo, dropped, cutoff, (record) => [record.before, record.after]));
  const byFolder = new Map<string, string[]>();
  for (const record of all) if (!keptIds.has(record.id)) for (const { dir } of record.dirs ?? []) byFolder.set(dir, [...(byFolder.get(dir) ?? []), record.id]);
  for (const [dir, ids] of byFolder) {
    const folder = await openFolderRepo(repo.root, dir);
    const named = (record: CheckpointRecord) => (record.dirs ?? []).filter((entry) => entry.dir === dir).flatMap((entry) => [entry.before, entry.after]);
    await withRepoLock(folder, () => _dropRefs(folder, ids, cutoff, named, repo.root));
  }
  return dropped;
}

/**
 * Drops what only pruned checkpoints held: the refs earlier versions held them by, stale holds
 * (and pending refs of earlier versions), then every object that no ref, live hold or remaining
 * record of `root` names (`named` picks a record's snapshots in this repository). The holds are
 * read before the records: a turn writes its record before it lets go of its holds.
 */
async function _dropRefs(
  repo: ShadowRepo,
  ids: readonly string[],
  cutoff: number,
  named: (record: CheckpointRecord) => Snapshot[],
  root = repo.root,
): Promise<void> {
  const stale = splitNul(await runGit(repo, ["for-each-ref", "--format=%(refname)%00", "refs/pending/"]))
    .map((ref) => ref.trim())
    .filter((ref) => ref !== "" && _uuidTime(ref.slice("refs/pending/".length)) < cutoff);
  const deletions = [...ids.map((id) => `refs/checkpoints/${id}`), ...stale].map((ref) => `delete ${ref}\n`).join("");
  await runGit(repo, ["update-ref", "--stdin"], deletions);
  const kept = new Set<string>();
  for (const hold of _holds(repo)) {
    if (_uuidTime(hold) < cutoff) rmSync(_holdFile(repo, hold), { force: true });
    else for (const oid of _readHold(repo, hold)) kept.add(oid);
  }
  const records = readJson(checkpointsFile(root), { schema: _FileSchemaDoc });
  // Records that cannot be read name nothing for sure: then nothing is pruned.
  if (records.status !== "ok") return;
  for (const record of records.value.checkpoints) for (const snapshot of named(record)) kept.add(snapshot.tree).add(snapshot.meta);
  forgetLastSnapshot(repo);
  await runGit(repo, ["prune", "--expire=now", "--", ...kept]);
}

function _holdFile(repo: ShadowRepo, id: string): string {
  return join(repo.dir, "holds", id);
}

function _holds(repo: ShadowRepo): string[] {
  try {
    return readdirSync(join(repo.dir, "holds")).filter((name) => /^[0-9a-f-]{36}$/.test(name));
  } catch {
    return [];
  }
}

/** The object ids a hold names (none when it is gone or not two ids). */
function _readHold(repo: ShadowRepo, id: string): string[] {
  try {
    const oids = readFileSync(_holdFile(repo, id), "utf8").trim().split(" ");
    return oids.length === 2 && oids.every((oid) => /^[0-9a-f]{40,64}$/.test(oid)) ? oids : [];
  } catch {
    return [];
  }
}

/** What changed between two snapshots, path by path (content, existence, type, permission bits). */
export async function diffSnapshots(repo: ShadowRepo, before: CaptureResult, after: CaptureResult): Promise<CheckpointFile[]> {
  const files = new Map<string, CheckpointFile>();
  if (before.snapshot.tree !== after.snapshot.tree) {
    // One diff: the raw records (":modes oids status", then the path) come first, then "+\t-\tpath".
    const out = splitNul(await runGit(repo, ["diff-tree", "-r", "-z", "--no-renames", "--raw", "--numstat", before.snapshot.tree, after.snapshot.tree]));
    let i = 0;
    for (; i + 1 < out.length && out[i]!.startsWith(":"); i += 2) {
      const [oldMode, newMode, , , status] = out[i]!.slice(1).split(" ");
      const path = out[i + 1]!;
      const change =
        status === "A" ? "added" : status === "D" ? "deleted" : status === "T" ? "type" : oldMode !== newMode && _sameBlob(out[i]!) ? "mode" : "modified";
      files.set(path, { path, change });
    }
    for (; i < out.length; i++) {
      const [added, removed, path] = out[i]!.split("\t");
      const file = path === undefined ? undefined : files.get(path);
      if (!file) continue;
      if (added === "-") file.binary = true;
      else if (file.change !== "mode") Object.assign(file, { added: Number(added), removed: Number(removed) });
    }
  }
  const modeOf = (result: CaptureResult, path: string, exec: boolean) => result.meta.modes[path] ?? (exec ? result.meta.base.exec : result.meta.base.file);
  const sameBase = before.meta.base.file === after.meta.base.file && before.meta.base.exec === after.meta.base.exec;
  if (sameBase) {
    // Unchanged paths differ in permission bits only where one snapshot lists them as exceptions.
    for (const path of new Set([...Object.keys(before.meta.modes), ...Object.keys(after.meta.modes)])) {
      if (files.has(path)) continue;
      const exec = ((before.meta.modes[path] ?? after.meta.modes[path] ?? 0) & 0o100) !== 0;
      if (modeOf(before, path, exec) !== modeOf(after, path, exec)) files.set(path, { path, change: "mode" });
    }
  } else {
    const beforeExec = await _regularFiles(repo, before.snapshot.tree);
    for (const [path, exec] of await _regularFiles(repo, after.snapshot.tree)) {
      if (files.has(path) || !beforeExec.has(path)) continue;
      if (modeOf(before, path, beforeExec.get(path)!) !== modeOf(after, path, exec)) files.set(path, { path, change: "mode" });
    }
  }
  const beforeFolders = before.meta.dirModes ?? {};
  for (const [dir, mode] of Object.entries(after.meta.dirModes ?? {})) {
    const was = beforeFolders[dir];
    if (was !== undefined && was !== mode && !files.has(`${dir}/`)) files.set(`${dir}/`, { path: `${dir}/`, change: "mode" });
  }
  const beforeDirs = new Set(before.meta.dirs);
  const afterDirs = new Set(after.meta.dirs);
  // An empty folder that got files (or lost them) is still there: only one made or removed is listed.
  const had = (meta: SnapshotMeta, dir: string) => meta.dirModes?.[dir] !== undefined;
  for (const dir of afterDirs)
    if (!beforeDirs.has(dir) && !files.has(dir) && !had(before.meta, dir)) files.set(`${dir}/`, { path: `${dir}/`, change: "added" });
  for (const dir of beforeDirs)
    if (!afterDirs.has(dir) && !files.has(dir) && !had(after.meta, dir)) files.set(`${dir}/`, { path: `${dir}/`, change: "deleted" });
  return [...files.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Regular files of a tree and whether each is executable. */
async function _regularFiles(repo: ShadowRepo, tree: string): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  for (const entry of splitNul(await runGit(repo, ["ls-tree", "-r", "-z", "--full-tree", tree]))) {
    const mode = entry.slice(0, 6);
    if (mode === "100644" || mode === "100755") out.set(entry.slice(entry.indexOf("\t") + 1), mode === "100755");
  }
  return out;
}

/** The creation time in a UUIDv7 (ms), or 0 when it is not one. */
function _uuidTime(id: string): number {
  const hex = id.replace(/-/g, "").slice(0, 12);
  return /^[0-9a-f]{12}$/.test(hex) ? Number.parseInt(hex, 16) : 0;
}

function _sameBlob(raw: string): boolean {
  const [, , oldOid, newOid] = raw.slice(1).split(" ");
  return oldOid === newOid;
}

function _mergeNotCovered(a: NotCovered[], b: NotCovered[]): NotCovered[] {
  const seen = new Map<string, NotCovered>();
  for (const entry of [...a, ...b]) seen.set(`${entry.why}:${entry.path}`, entry);
  return [...seen.values()];
}

/** The records as written. */
function _update(root: string, change: (checkpoints: CheckpointRecord[]) => CheckpointRecord[]): CheckpointRecord[] {
  const written = updateJsonSync<_Doc>(checkpointsFile(root), { schema: _FileSchemaDoc, mode: 0o600 }, (current) => ({
    version: 1,
    root,
    checkpoints: change(current?.checkpoints ?? []),
  }));
  return written!.checkpoints;
}
