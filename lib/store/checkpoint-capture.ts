/**
 * One snapshot of the workspace into the shadow repository (checkpoint-git.ts): every file git
 * would see, byte for byte (symlinks as links), as a tree hash, plus what a tree cannot hold —
 * the full permission bits of every file and the empty folders — in one JSON blob beside it.
 *
 * Left out, and reported as not covered: paths `.gitignore` or `.shiroignore` ignore (any folder's,
 * with git's semantics), `.git` and folders holding a repository of their own, and files over the
 * size cap.
 *
 * Cost: the shadow index keeps git's stat cache between snapshots, so a snapshot is one stat pass
 * over the index (`git diff-files`, which also names files whose change time alone moved, as a
 * `chmod` does) and one walk for new files (`git ls-files -o`), run side by side, then the hashing
 * of what changed. The permission bits come from the last snapshot (checkpoint-last.ts) for every
 * file git saw unchanged; only the others are `lstat`ed. Nothing changed since the last snapshot:
 * no git process writes anything, and its tree and meta blob are reused.
 */
import { lstatSync, readdirSync, readFileSync, writeFileSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { lstatIfAny, runGit, splitNul, type ShadowRepo } from "./checkpoint-git.ts";
import { readIndexChecksum, readIndexFile, type IndexFile } from "./checkpoint-index.ts";
import { readLastSnapshot, writeLastSnapshot } from "./checkpoint-last.ts";
import { scanModes, type ModeBits } from "./checkpoint-modes.ts";

export interface Snapshot {
  /** The workspace's tree hash. */
  tree: string;
  /** The blob holding `SnapshotMeta`. */
  meta: string;
}

/** What a tree cannot hold: the permission bits (`modes`, `base`) and the empty folders. */
export interface SnapshotMeta extends ModeBits {
  /** Folders with nothing covered inside, posix paths. */
  dirs: string[];
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

/** Snapshots the workspace of `repo`. Files over `maxFileBytes` are left out. */
export async function captureWorkspace(repo: ShadowRepo, maxFileBytes: number): Promise<CaptureResult> {
  if (!lstatIfAny(repo.root)?.isDirectory()) return _emptySnapshot(repo);
  const lookedAt = Math.floor(Date.now() / 1000);
  const index = readIndexFile(repo.indexFile);
  const last = index && readLastSnapshot(repo, index.checksum);
  await _syncShiroIgnore(repo, index);
  let candidates = await _candidates(repo);
  const rulesChanged = candidates.files.some(_isIgnoreFile);
  if (rulesChanged) {
    // An ignore file changed: the rules are rebuilt, and what they now ignore leaves the index.
    await _syncShiroIgnore(
      repo,
      index,
      candidates.files.filter((path) => path.endsWith(".shiroignore")),
    );
    candidates = await _candidates(repo);
  }
  // A file that became a folder: git walks the folder only once the file's entry has left the index.
  const becameDirs = candidates.files.filter((path) => lstatIfAny(join(repo.root, path))?.isDirectory());
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
  const indexChanged = add.length > 0 || drop.length > 0 || becameDirs.length > 0 || !last;
  if (add.length > 0) await runGit(repo, ["update-index", "-z", "--add", "--remove", "--replace", "--stdin"], _nulList(add));
  if (drop.length > 0) await runGit(repo, ["update-index", "-z", "--force-remove", "--stdin"], _nulList(drop));
  if (candidates.filled.length > 0) {
    const nested = await _nestedEmptyDirs(repo, candidates.filled, add);
    candidates.emptyDirs = [...candidates.emptyDirs, ...nested.emptyDirs].sort();
    for (const path of nested.repos) if (!candidates.repos.includes(path)) notCovered.push({ path, why: "repository" });
  }
  // The tree is written while the permission bits are gathered: write-tree changes no entry, only the tree cache.
  const treeWritten = !indexChanged && last ? Promise.resolve(last.tree) : runGit(repo, ["write-tree"]).then((out) => out.toString("utf8").trim());
  treeWritten.catch(() => undefined);
  const now = indexChanged ? readIndexFile(repo.indexFile) : index;
  const scanned = await scanModes(repo, now?.entries, { last: now && last, touched: new Set(candidates.files), lookedAt, emptyDirs: candidates.emptyDirs });
  const meta: SnapshotMeta = { dirs: candidates.emptyDirs, ...scanned };
  const metaJson = JSON.stringify(meta);
  const [tree, metaBlob] = await Promise.all([
    treeWritten,
    last && last.metaJson === metaJson ? last.meta : runGit(repo, ["hash-object", "-w", "--stdin"], metaJson).then((out) => out.toString("utf8").trim()),
  ]);
  // write-tree may rewrite the index (its tree cache): the checksum to remember is the one after it.
  const checksum = indexChanged ? readIndexChecksum(repo.indexFile) : index?.checksum;
  // Nothing new: the old record stays (its older second only widens the next permission recheck).
  const same = last !== undefined && last.index === checksum && last.tree === tree && last.meta === metaBlob;
  if (checksum && !same) writeLastSnapshot(repo, { index: checksum, at: lookedAt, tree, meta: metaBlob, metaJson });
  return { snapshot: { tree, meta: metaBlob }, meta, notCovered };
}

/** The snapshot of a folder that is gone (an added folder a turn removed): nothing in it; the index is left as it was. */
async function _emptySnapshot(repo: ShadowRepo): Promise<CaptureResult> {
  const meta: SnapshotMeta = { dirs: [], modes: {}, base: { file: 0o644, exec: 0o755 }, dirModes: {} };
  const [tree, blob] = await Promise.all([runGit(repo, ["mktree"], ""), runGit(repo, ["hash-object", "-w", "--stdin"], JSON.stringify(meta))]);
  return { snapshot: { tree: tree.toString("utf8").trim(), meta: blob.toString("utf8").trim() }, meta, notCovered: [] };
}

/** The meta blob of a snapshot. */
export async function readSnapshotMeta(repo: ShadowRepo, snapshot: Snapshot): Promise<SnapshotMeta> {
  const text = (await runGit(repo, ["cat-file", "blob", snapshot.meta])).toString("utf8");
  return JSON.parse(text) as SnapshotMeta;
}

/** Ignored paths of the workspace as it is now, folders collapsed (what `shiro rewind` lists as not covered). */
export async function listIgnored(repo: ShadowRepo, limit = 50): Promise<string[]> {
  await _syncShiroIgnore(repo, readIndexFile(repo.indexFile));
  const found = splitNul(await runGit(repo, ["ls-files", "-z", "-o", "-i", "--directory", "--exclude-standard"]));
  // A folder is listed once: not again with the files inside it.
  const folders = found.filter((path) => path.endsWith("/"));
  return found.filter((path) => path.endsWith("/") || !folders.some((folder) => path.startsWith(folder))).slice(0, limit);
}

interface _Candidates {
  /** Files whose index entry may be stale (changed, deleted, a moved change time) and new files (not ignored). */
  files: string[];
  emptyDirs: string[];
  repos: string[];
  /** Folders new to the index that hold new files: the empty folders among theirs are known once those files are in it. */
  filled: string[];
}

async function _candidates(repo: ShadowRepo): Promise<_Candidates> {
  // One stat pass over the index and one walk for new files, side by side: both only read the index.
  const [stale, others] = await Promise.all([
    runGit(repo, ["diff-files", "-z", "--raw", "--no-renames"]),
    runGit(repo, ["ls-files", "-z", "-o", "--directory", "--exclude-standard"]),
  ]);
  const files = new Set<string>();
  const raw = splitNul(stale);
  for (let i = 0; i + 1 < raw.length; i += 2) files.add(raw[i + 1]!);
  const folded: string[] = [];
  for (const path of splitNul(others)) {
    if (path.endsWith("/")) folded.push(path);
    else files.add(path);
  }
  const inside = await _unfold(repo, folded);
  for (const path of inside.files) files.add(path);
  return { files: [...files], emptyDirs: inside.emptyDirs.sort(), repos: inside.repos, filled: inside.filled };
}

/**
 * The empty folders inside `filled` folders, once their files (`files`) are in the index: git folds
 * a folder with no indexed file into one entry, so before that it names neither those files'
 * folders nor the empty ones beside them. Only the folders holding those files are read; git lists
 * the filled folders again only when one of them holds a folder no such file is in.
 */
async function _nestedEmptyDirs(repo: ShadowRepo, filled: readonly string[], files: readonly string[]): Promise<{ emptyDirs: string[]; repos: string[] }> {
  if (!_holdsOtherFolders(repo.root, filled, files)) return { emptyDirs: [], repos: [] };
  const folded: string[] = [];
  for (let i = 0; i < filled.length; i += 500) {
    const chunk = filled.slice(i, i + 500).map((dir) => _literal(`${dir}/`));
    for (const path of splitNul(await runGit(repo, ["ls-files", "-z", "-o", "--directory", "--exclude-standard", "--", ...chunk])))
      if (path.endsWith("/")) folded.push(path);
  }
  const inside = await _unfold(repo, folded);
  return { emptyDirs: inside.emptyDirs, repos: inside.repos };
}

/** Whether a folder on the way to one of `files` inside `filled` holds a folder none of them is in. */
function _holdsOtherFolders(root: string, filled: readonly string[], files: readonly string[]): boolean {
  const onPath = new Set<string>(filled);
  for (const path of files) {
    const above: string[] = [];
    let at = path.lastIndexOf("/");
    for (; at > 0 && !onPath.has(path.slice(0, at)); at = path.lastIndexOf("/", at - 1)) above.push(path.slice(0, at));
    // Only a file inside a filled folder (its walk up met one) counts.
    if (at > 0) for (const dir of above) onPath.add(dir);
  }
  for (const dir of onPath) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return true;
    }
    if (entries.some((entry) => entry.isDirectory() && !onPath.has(`${dir}/${entry.name}`))) return true;
  }
  return false;
}

/** What git's folded folder entries (`dir/`) hold: new files, nested repositories, and which of them are empty. */
async function _unfold(repo: ShadowRepo, folded: readonly string[]): Promise<{ files: string[]; emptyDirs: string[]; repos: string[]; filled: string[] }> {
  const files: string[] = [];
  const emptyDirs: string[] = [];
  const repos: string[] = [];
  const filled: string[] = [];
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
      files.push(path);
      const owner = chunk.find((dir) => path.startsWith(dir));
      if (owner && !seen.has(owner)) {
        seen.add(owner);
        filled.push(owner.slice(0, -1));
      }
    }
    for (const dir of chunk) if (!seen.has(dir) && !repos.includes(dir.slice(0, -1))) emptyDirs.push(dir.slice(0, -1));
  }
  return { files, emptyDirs, repos, filled };
}

/**
 * Writes the shadow repository's `info/exclude` from every `.shiroignore` it knows of (the root's
 * verbatim, a nested one's patterns anchored to its folder): those in the index, and `known`.
 */
async function _syncShiroIgnore(repo: ShadowRepo, index: IndexFile | undefined, known: string[] = []): Promise<void> {
  const indexed = index
    ? index.entries.map((entry) => entry.path).filter((path) => path === ".shiroignore" || path.endsWith("/.shiroignore"))
    : splitNul(await runGit(repo, ["ls-files", "-z", "-c", "--", ":(glob)**/.shiroignore"]));
  const files = [...new Set([...known, ...indexed])].sort();
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
  const exclude = join(repo.gitDir, "info", "exclude");
  const content = `${lines.join("\n")}\n`;
  if (_readText(exclude) !== content) writeFileSync(exclude, content, { mode: 0o600 });
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

function _readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
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
