/**
 * One snapshot of the workspace into the shadow repository (checkpoint-git.ts): every file git
 * would see, byte for byte (symlinks as links), as a tree hash, plus what a tree cannot hold —
 * the full permission bits of every file and the empty folders — in one JSON blob beside it.
 *
 * Left out, and reported as not covered: paths `.gitignore` or `.shiroignore` ignore (any folder's,
 * with git's semantics), `.git` and folders holding a repository of their own, and files over the
 * size cap. The shadow index keeps git's stat cache between snapshots, so a snapshot after a few
 * changes costs a walk of the tree and the hashing of what changed, not of everything.
 */
import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { runGit, splitNul, type ShadowRepo } from "./checkpoint-git.ts";
import { readIndexEntries } from "./checkpoint-index.ts";

export interface Snapshot {
  /** The workspace's tree hash. */
  tree: string;
  /** The blob holding `SnapshotMeta`. */
  meta: string;
}

/** What a tree cannot hold. */
export interface SnapshotMeta {
  /** Folders with nothing covered inside, posix paths. */
  dirs: string[];
  /** Permission bits (0o7777) of regular files whose bits differ from `base` (by git's exec bit). */
  modes: Record<string, number>;
  base: { file: number; exec: number };
}

export interface NotCovered {
  path: string;
  why: "ignored" | "over-size-cap" | "repository";
}

export interface CaptureResult {
  snapshot: Snapshot;
  meta: SnapshotMeta;
  /** What this snapshot left out on purpose (over the cap, nested repositories); ignored paths are listed on demand. */
  notCovered: NotCovered[];
}

const _IGNORE_FILES = [".gitignore", ".shiroignore"];
const _STAT_BATCH = 512;
/** Per shadow repository: each file's ctime and permission bits at this process's last snapshot. */
const _permCache = new Map<string, { at: number; entries: Map<string, { ctime: string; mode: number }> }>();

/** Snapshots the workspace of `repo`. Files over `maxFileBytes` are left out. */
export async function captureWorkspace(repo: ShadowRepo, maxFileBytes: number): Promise<CaptureResult> {
  await _syncShiroIgnore(repo);
  let candidates = await _candidates(repo);
  const rulesChanged = candidates.files.some(_isIgnoreFile);
  if (rulesChanged) {
    // An ignore file changed: the rules are rebuilt, and what they now ignore leaves the index.
    await _syncShiroIgnore(
      repo,
      candidates.files.filter((path) => path.endsWith(".shiroignore")),
    );
    candidates = await _candidates(repo);
  }
  // A file that became a folder: git walks the folder only once the file's entry has left the index.
  const becameDirs = candidates.files.filter((path) => _isDir(join(repo.root, path)));
  if (becameDirs.length > 0) {
    await runGit(repo, ["update-index", "-z", "--force-remove", "--stdin"], _nulList(becameDirs));
    candidates = await _candidates(repo);
  }
  const notCovered: NotCovered[] = candidates.repos.map((path) => ({ path, why: "repository" as const }));
  const add: string[] = [];
  const drop: string[] = [];
  for (const path of candidates.files) {
    let size: number;
    try {
      const stat = lstatSync(join(repo.root, path));
      if (stat.isDirectory()) continue;
      size = stat.isFile() ? stat.size : 0;
    } catch {
      add.push(path);
      continue;
    }
    if (size > maxFileBytes) {
      drop.push(path);
      notCovered.push({ path, why: "over-size-cap" });
    } else add.push(path);
  }
  if (rulesChanged) drop.push(...splitNul(await runGit(repo, ["ls-files", "-z", "-c", "-i", "--exclude-standard"])));
  if (add.length > 0) await runGit(repo, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], _nulList(add));
  if (drop.length > 0) await runGit(repo, ["update-index", "-z", "--force-remove", "--stdin"], _nulList(drop));
  const tree = (await runGit(repo, ["write-tree"])).toString("utf8").trim();
  const meta: SnapshotMeta = { dirs: candidates.emptyDirs, ...(await _modes(repo)) };
  const metaBlob = (await runGit(repo, ["hash-object", "-w", "--stdin"], JSON.stringify(meta))).toString("utf8").trim();
  return { snapshot: { tree, meta: metaBlob }, meta, notCovered };
}

/** The meta blob of a snapshot. */
export async function readSnapshotMeta(repo: ShadowRepo, snapshot: Snapshot): Promise<SnapshotMeta> {
  const text = (await runGit(repo, ["cat-file", "blob", snapshot.meta])).toString("utf8");
  return JSON.parse(text) as SnapshotMeta;
}

/** Ignored paths of the workspace as it is now, folders collapsed (what `shiro rewind` lists as not covered). */
export async function listIgnored(repo: ShadowRepo, limit = 50): Promise<string[]> {
  await _syncShiroIgnore(repo);
  const found = splitNul(await runGit(repo, ["ls-files", "-z", "-o", "-i", "--directory", "--exclude-standard"]));
  // A folder is listed once: not again with the files inside it.
  const folders = found.filter((path) => path.endsWith("/"));
  return found.filter((path) => path.endsWith("/") || !folders.some((folder) => path.startsWith(folder))).slice(0, limit);
}

interface _Candidates {
  /** Files git reports as changed, deleted or new (not ignored). */
  files: string[];
  emptyDirs: string[];
  repos: string[];
}

async function _candidates(repo: ShadowRepo): Promise<_Candidates> {
  const listed = splitNul(await runGit(repo, ["ls-files", "-z", "-m", "-d", "-o", "--directory", "--exclude-standard"]));
  const files = new Set<string>();
  const folded: string[] = [];
  for (const path of listed) {
    if (path.endsWith("/")) folded.push(path);
    else files.add(path);
  }
  const emptyDirs: string[] = [];
  const repos: string[] = [];
  for (let i = 0; i < folded.length; i += 500) {
    const chunk = folded.slice(i, i + 500);
    const inside = splitNul(await runGit(repo, ["ls-files", "-z", "-o", "--exclude-standard", "--", ...chunk.map(_literal)]));
    const seen = new Set<string>();
    for (const path of inside) {
      if (path.endsWith("/")) {
        repos.push(path.slice(0, -1));
        seen.add(path);
        continue;
      }
      files.add(path);
      const owner = chunk.find((dir) => path.startsWith(dir));
      if (owner) seen.add(owner);
    }
    for (const dir of chunk) if (!seen.has(dir) && !repos.includes(dir.slice(0, -1))) emptyDirs.push(dir.slice(0, -1));
  }
  return { files: [...files], emptyDirs: emptyDirs.sort(), repos };
}

/** Permission bits of every indexed regular file, stored as exceptions to the commonest pair. */
async function _modes(repo: ShadowRepo): Promise<Pick<SnapshotMeta, "modes" | "base">> {
  // Refreshed, the index holds every file's ctime; a file whose ctime is the one the last snapshot
  // saw has the same permission bits (chmod moves ctime), so only the others are lstat'ed. git
  // compares ctime to the second: a ctime in the second of the last look (or later) is racy and
  // looked at again.
  const lookedAt = Math.floor(Date.now() / 1000);
  await runGit(repo, ["update-index", "-q", "--refresh"]).catch(() => undefined);
  const indexed = readIndexEntries(repo.indexFile);
  const files: { path: string; exec: boolean; ctime?: string }[] = [];
  if (indexed) {
    for (const entry of indexed)
      if (entry.mode === 0o100644 || entry.mode === 0o100755) files.push({ path: entry.path, exec: entry.mode === 0o100755, ctime: entry.ctime });
  } else {
    for (const entry of splitNul(await runGit(repo, ["ls-files", "-z", "-s"]))) {
      const gitMode = entry.slice(0, 6);
      if (gitMode === "100644" || gitMode === "100755") files.push({ path: entry.slice(entry.indexOf("\t") + 1), exec: gitMode === "100755" });
    }
  }
  const seen = _permCache.get(repo.dir);
  const next = new Map<string, { ctime: string; mode: number }>();
  const settled = (ctime: string) => seen !== undefined && Number(ctime.slice(0, ctime.indexOf("."))) < seen.at;
  const bits = new Map<string, { exec: boolean; mode: number }>();
  const counts = { file: new Map<number, number>(), exec: new Map<number, number>() };
  const record = (path: string, exec: boolean, mode: number, ctime: string | undefined) => {
    bits.set(path, { exec, mode });
    if (ctime) next.set(path, { ctime, mode });
    const count = exec ? counts.exec : counts.file;
    count.set(mode, (count.get(mode) ?? 0) + 1);
  };
  const unknown = files.filter(({ path, exec, ctime }) => {
    const cached = ctime && settled(ctime) ? seen?.entries.get(path) : undefined;
    if (cached && cached.ctime === ctime) record(path, exec, cached.mode, ctime);
    return !(cached && cached.ctime === ctime);
  });
  // Batches of lstat calls run on the thread pool at once: a fraction of one-by-one on a big tree.
  for (let i = 0; i < unknown.length; i += _STAT_BATCH) {
    const batch = unknown.slice(i, i + _STAT_BATCH);
    const stats = await Promise.all(batch.map(({ path }) => lstat(join(repo.root, path)).catch(() => undefined)));
    batch.forEach(({ path, exec, ctime }, j) => {
      const stat = stats[j];
      if (stat) record(path, exec, stat.mode & 0o7777, ctime);
    });
  }
  _permCache.set(repo.dir, { at: lookedAt, entries: next });
  const base = { file: _commonest(counts.file, 0o644), exec: _commonest(counts.exec, 0o755) };
  const modes: Record<string, number> = {};
  for (const [path, { exec, mode }] of bits) if (mode !== (exec ? base.exec : base.file)) modes[path] = mode;
  return { modes, base };
}

function _commonest(counts: Map<number, number>, fallback: number): number {
  let best = fallback;
  let most = 0;
  for (const [mode, count] of counts) if (count > most) [best, most] = [mode, count];
  return best;
}

/**
 * Writes the shadow repository's `info/exclude` from every `.shiroignore` it knows of (the root's
 * verbatim, a nested one's patterns anchored to its folder); returns the files it read.
 */
async function _syncShiroIgnore(repo: ShadowRepo, known?: string[]): Promise<string[]> {
  const indexed = splitNul(await runGit(repo, ["ls-files", "-z", "-c", "--", ":(glob)**/.shiroignore"]));
  const files = [...new Set([...(known ?? []), ...indexed])].sort();
  const lines: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(repo.root, file), "utf8");
    } catch {
      continue;
    }
    const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/")) : "";
    for (const line of text.split(/\r?\n/)) {
      const translated = dir === "" ? line : _anchorPattern(line, dir);
      if (translated !== undefined) lines.push(translated);
    }
  }
  writeFileSync(join(repo.gitDir, "info", "exclude"), `${lines.join("\n")}\n`, { mode: 0o600 });
  return files;
}

/** A nested ignore file's pattern, rewritten to mean the same from the root. */
function _anchorPattern(line: string, dir: string): string | undefined {
  if (line.trim() === "" || line.startsWith("#")) return undefined;
  const negated = line.startsWith("!");
  const body = negated ? line.slice(1) : line;
  const inner = body.replace(/\/+$/, "");
  const anchored = inner.includes("/");
  const prefix = `/${dir.replace(/[\\*?[\]!# ]/g, "\\$&")}/`;
  return `${negated ? "!" : ""}${prefix}${anchored ? body.replace(/^\//, "") : `**/${body}`}`;
}

function _isDir(abs: string): boolean {
  try {
    return lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

function _isIgnoreFile(path: string): boolean {
  return _IGNORE_FILES.includes(path.slice(path.lastIndexOf("/") + 1));
}

/** A pathspec that means exactly this path (no glob magic). */
function _literal(path: string): string {
  return `:(literal)${path}`;
}

function _nulList(paths: readonly string[]): string {
  return `${paths.join("\0")}\0`;
}
