/**
 * The permission bits of every regular file in the shadow index, for a snapshot's meta blob:
 * stored as exceptions to the commonest bits of plain and of executable files.
 *
 * A file git saw unchanged (`git diff-files` compares the change time, which every `chmod` moves)
 * keeps the bits the last snapshot recorded, so only the files a snapshot touched are `lstat`ed —
 * and those whose recorded change time is not older than the second the last snapshot started
 * looking: git compares change times to the second, so a `chmod` in that second could hide.
 * Without a last snapshot every file is `lstat`ed, in batches on the thread pool. Folders are few
 * and a `chmod` on one moves nothing git looks at, so every folder is `lstat`ed every time.
 */
import type { Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { lstatIfAny, runGit, splitNul, type ShadowRepo } from "./checkpoint-git.ts";
import type { IndexEntry } from "./checkpoint-index.ts";
import type { LastSnapshot } from "./checkpoint-last.ts";

export interface ModeBits {
  /** Permission bits (0o7777) of regular files whose bits differ from `base` (by git's exec bit). */
  modes: Record<string, number>;
  base: { file: number; exec: number };
  /**
   * Permission bits of every folder holding a covered file, and of every empty one (not the
   * workspace itself). Absent in snapshots taken before folders' bits were kept.
   */
  dirModes?: Record<string, number>;
}

export interface ModeScanOptions {
  /** The last snapshot, when it describes the index as it was before this snapshot touched it. */
  last: LastSnapshot | undefined;
  /** Paths this snapshot found changed, new or deleted. */
  touched: ReadonlySet<string>;
  /** The second this snapshot started looking. */
  lookedAt: number;
  /** Folders with nothing covered inside. */
  emptyDirs: readonly string[];
}

const _STAT_BATCH = 512;

/** The bits of the indexed files (`entries`, or git's listing when the index could not be read). */
export async function scanModes(repo: ShadowRepo, entries: IndexEntry[] | undefined, options: ModeScanOptions): Promise<ModeBits> {
  const files = entries ? _regular(entries) : await _listed(repo);
  const previous = options.last ? (JSON.parse(options.last.metaJson) as ModeBits) : undefined;
  const settledBefore = options.last?.at ?? 0;
  // One slot per file: its bits, or -1 until it is lstat'ed (and when it is gone).
  const bits = new Array<number>(files.length);
  const unknown: number[] = [];
  files.forEach((file, i) => {
    const known = previous !== undefined && file.ctimeSec !== undefined && file.ctimeSec < settledBefore && !options.touched.has(file.path);
    if (known) bits[i] = previous.modes[file.path] ?? (file.exec ? previous.base.exec : previous.base.file);
    else {
      bits[i] = -1;
      unknown.push(i);
    }
  });
  const stats = await _lstatAll(
    repo.root,
    unknown.map((i) => files[i]!.path),
  );
  unknown.forEach((i, j) => {
    const stat = stats[j];
    if (stat) bits[i] = stat.mode & 0o7777;
  });
  const counts = { file: new Map<number, number>(), exec: new Map<number, number>() };
  files.forEach((file, i) => {
    if (bits[i]! < 0) return;
    const count = file.exec ? counts.exec : counts.file;
    count.set(bits[i]!, (count.get(bits[i]!) ?? 0) + 1);
  });
  const base = { file: _commonest(counts.file, 0o644), exec: _commonest(counts.exec, 0o755) };
  const modes: Record<string, number> = {};
  files.forEach((file, i) => {
    if (bits[i]! >= 0 && bits[i] !== (file.exec ? base.exec : base.file)) modes[file.path] = bits[i]!;
  });
  const dirModes: Record<string, number> = {};
  for (const folder of _folders(files, options.emptyDirs)) {
    const stat = lstatIfAny(join(repo.root, folder));
    if (stat?.isDirectory()) dirModes[folder] = stat.mode & 0o7777;
  }
  return { modes, base, dirModes };
}

/** Every folder above a file, and the empty ones, sorted. */
function _folders(files: readonly _File[], emptyDirs: readonly string[]): string[] {
  const out = new Set<string>();
  let last = "";
  for (const { path } of files) {
    const end = path.lastIndexOf("/");
    if (end <= 0) continue;
    // The index is sorted, so a folder's files come one after another.
    if (end === last.length && path.startsWith(last)) continue;
    last = path.slice(0, end);
    for (let at = end; at > 0; at = path.lastIndexOf("/", at - 1)) {
      const folder = path.slice(0, at);
      if (out.has(folder)) break;
      out.add(folder);
    }
  }
  for (const dir of emptyDirs) for (let at = dir; at !== "" && !out.has(at); at = at.slice(0, Math.max(0, at.lastIndexOf("/")))) out.add(at);
  return [...out].sort();
}

/** A few paths are `lstat`ed at once (an await costs more than they do); many in batches on the thread pool. */
async function _lstatAll(root: string, paths: readonly string[]): Promise<(Stats | undefined)[]> {
  if (paths.length <= _STAT_BATCH) return paths.map((path) => lstatIfAny(join(root, path)));
  const out: (Stats | undefined)[] = [];
  for (let i = 0; i < paths.length; i += _STAT_BATCH) {
    const batch = paths.slice(i, i + _STAT_BATCH);
    out.push(...(await Promise.all(batch.map((path) => lstat(join(root, path)).catch(() => undefined)))));
  }
  return out;
}

interface _File {
  path: string;
  exec: boolean;
  ctimeSec?: number;
}

function _regular(entries: IndexEntry[]): _File[] {
  const out: _File[] = [];
  for (const entry of entries) {
    if (entry.mode !== 0o100644 && entry.mode !== 0o100755) continue;
    out.push({ path: entry.path, exec: entry.mode === 0o100755, ctimeSec: entry.ctimeSec });
  }
  return out;
}

async function _listed(repo: ShadowRepo): Promise<_File[]> {
  const out: _File[] = [];
  for (const entry of splitNul(await runGit(repo, ["ls-files", "-z", "-s"]))) {
    const gitMode = entry.slice(0, 6);
    if (gitMode === "100644" || gitMode === "100755") out.push({ path: entry.slice(entry.indexOf("\t") + 1), exec: gitMode === "100755" });
  }
  return out;
}

function _commonest(counts: Map<number, number>, fallback: number): number {
  let best = fallback;
  let most = 0;
  for (const [mode, count] of counts) if (count > most) [best, most] = [mode, count];
  return best;
}
