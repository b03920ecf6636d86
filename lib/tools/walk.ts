/**
 * Ignore-aware walking of the workspace, shared by list_dir, glob and grep.
 *
 * Rules: `.git` and `node_modules` are always skipped. Unless `includeIgnored` is set, the
 * `.gitignore` and `.shiroignore` of every directory apply to the paths below it, with git's
 * semantics: `!` negation (last match wins, a deeper file wins over a shallower one), a trailing
 * `/` for directories only, a leading or inner `/` anchoring the pattern to its file's directory,
 * `*`, `?` and `**`. Nothing below an ignored directory can be re-included. Symlinked directories
 * are listed as directories but never descended. Paths are posix and relative to the root.
 */
import { readFileSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";

export const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);
export const IGNORE_FILES = [".gitignore", ".shiroignore"] as const;

export interface WalkEntry {
  /** Posix path relative to the workspace root. */
  path: string;
  name: string;
  /** 1 for the direct children of the start directory. */
  depth: number;
  /** True for directories, symlinked ones included. */
  dir: boolean;
  symlink: boolean;
}

export interface WalkOptions {
  /** Where to start, relative to the root (default: the root). Rules above it still apply. */
  dir?: string;
  includeIgnored?: boolean;
  /** Deepest level listed; directories at this level are listed but not entered. */
  maxDepth?: number;
  /** Stop after this many entries. */
  limit?: number;
  signal?: AbortSignal;
}

/**
 * Answers "is this root-relative path ignored?". Each directory's ignore files are read once,
 * synchronously (they are small), so a caller filtering a stream can decide on the spot.
 */
export interface IgnoreFilter {
  isIgnored(path: string, isDir: boolean): boolean;
}

export function createIgnoreFilter(root: string, options: { includeIgnored?: boolean } = {}): IgnoreFilter {
  const rulesByDir = new Map<string, Ignore | undefined>();
  const ignoreCase = process.platform === "darwin" || process.platform === "win32";

  const rulesFor = (dir: string): Ignore | undefined => {
    if (rulesByDir.has(dir)) return rulesByDir.get(dir);
    const inherited = dir === "" ? undefined : rulesFor(_parentOf(dir));
    const rules = _loadRules(root, dir, inherited, ignoreCase);
    rulesByDir.set(dir, rules);
    return rules;
  };

  return {
    isIgnored(path, isDir) {
      if (path.split("/").some((part) => ALWAYS_SKIPPED.has(part))) return true;
      if (options.includeIgnored) return false;
      const rules = rulesFor(_parentOf(path));
      return rules ? rules.ignores(isDir ? `${path}/` : path) : false;
    },
  };
}

/** Entries under `options.dir` in depth-first order, each directory's entries sorted by name. */
export async function* walkWorkspace(root: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const filter = createIgnoreFilter(root, { includeIgnored: options.includeIgnored });
  const start = options.dir === undefined || options.dir === "." ? "" : options.dir.replace(/\/+$/, "");
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;

  async function* walkDir(rel: string, depth: number): AsyncGenerator<WalkEntry> {
    const abs = join(root, rel);
    let names: { name: string; isDir: boolean; symlink: boolean }[];
    try {
      const dirents = await readdir(abs, { withFileTypes: true });
      names = await Promise.all(
        dirents.map(async (d) => {
          const symlink = d.isSymbolicLink();
          const isDir = d.isDirectory() || (symlink && (await _pointsToDir(join(abs, d.name))));
          return { name: d.name, isDir, symlink };
        }),
      );
    } catch {
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const { name, isDir, symlink } of names) {
      if (remaining <= 0 || options.signal?.aborted) return;
      if (ALWAYS_SKIPPED.has(name)) continue;
      const path = rel === "" ? name : `${rel}/${name}`;
      if (filter.isIgnored(path, isDir)) continue;
      remaining--;
      yield { path, name, depth, dir: isDir, symlink };
      if (isDir && !symlink && (options.maxDepth === undefined || depth < options.maxDepth)) {
        yield* walkDir(path, depth + 1);
      }
    }
  }

  yield* walkDir(start, 1);
}

/**
 * Compiles a glob to a matcher of root-relative posix paths. `*` and `?` stay within one path
 * segment, `**` spans segments, `[abc]`, `[!abc]` and `{a,b}` work as in shells. A pattern with
 * no `/` matches the file name at any depth (`*.ts`); one with a `/` matches from the root.
 * Throws `Invalid glob: <reason>`.
 */
export function compileGlob(pattern: string): (path: string) => boolean {
  const cleaned = pattern.trim().replace(/^\.\//, "").replace(/^\/+/, "");
  let regex: RegExp;
  try {
    regex = new RegExp(`^${_globSource(cleaned)}$`);
  } catch (error) {
    throw new Error(`Invalid glob: ${regexErrorReason(error)}`);
  }
  if (cleaned.includes("/")) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf("/") + 1));
}

/** The engine's reason from a RegExp syntax error, without its `Invalid regular expression: /…/:` lead. */
export function regexErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Invalid regular expression: /, "").replace(/^\/.*\/[a-z]*: /, "");
}

function _loadRules(root: string, dir: string, inherited: Ignore | undefined, ignoreCase: boolean): Ignore | undefined {
  const lines: string[] = [];
  for (const file of IGNORE_FILES) {
    const text = _readOptional(join(root, dir, file));
    for (const line of text.split(/\r?\n/)) {
      const rebased = _rebaseRule(line, dir);
      if (rebased !== undefined) lines.push(rebased);
    }
  }
  if (lines.length === 0) return inherited;
  const rules = ignore({ ignorecase: ignoreCase });
  if (inherited) rules.add(inherited);
  return rules.add(lines);
}

/** Rewrites one ignore-file line of directory `dir` so it matches root-relative paths. */
function _rebaseRule(line: string, dir: string): string | undefined {
  if (line.trim() === "" || line.startsWith("#")) return undefined;
  if (dir === "") return line;
  const negated = line.startsWith("!");
  let body = negated ? line.slice(1) : line;
  const anchored = body.replace(/\/+\s*$/, "").includes("/");
  body = body.replace(/^\/+/, "");
  const prefix = dir.replace(/[\\*?[\]!#]/g, "\\$&");
  return `${negated ? "!" : ""}${prefix}/${anchored ? "" : "**/"}${body}`;
}

function _readOptional(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

async function _pointsToDir(abs: string): Promise<boolean> {
  try {
    return (await stat(abs)).isDirectory();
  } catch {
    return false;
  }
}

function _parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

function _globSource(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        while (glob[i + 1] === "*") i++;
        if (glob[i + 1] === "/") {
          out += "(?:.*/)?";
          i++;
        } else out += ".*";
      } else out += "[^/]*";
    } else if (ch === "?") out += "[^/]";
    else if (ch === "\\" && i + 1 < glob.length) out += _escapeRegex(glob[++i]!);
    else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close < 0) out += "\\[";
      else {
        const negated = glob[i + 1] === "!" || glob[i + 1] === "^";
        const body = glob.slice(negated ? i + 2 : i + 1, close).replace(/\\/g, "\\\\");
        out += `[${negated ? "^" : ""}${body}]`;
        i = close;
      }
    } else if (ch === "{") {
      const close = _matchingBrace(glob, i);
      if (close < 0) out += "\\{";
      else {
        out += `(?:${_splitAlternatives(glob.slice(i + 1, close))
          .map(_globSource)
          .join("|")})`;
        i = close;
      }
    } else out += _escapeRegex(ch);
  }
  return out;
}

function _matchingBrace(glob: string, open: number): number {
  let level = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "{") level++;
    else if (glob[i] === "}" && --level === 0) return i;
  }
  return -1;
}

function _splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let level = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "\\") i++;
    else if (ch === "{") level++;
    else if (ch === "}") level--;
    else if (ch === "," && level === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

function _escapeRegex(ch: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(ch) ? `\\${ch}` : ch;
}
