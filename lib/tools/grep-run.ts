/**
 * The search grep (grep.ts) runs when called, loaded at its first call: ripgrep when on PATH,
 * else the ignore-aware walker, with results as grep.ts describes them.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { classifySecretFile } from "../secrets/classify.ts";
import { readWorkspaceFile } from "./file-read.ts";
import type { ToolContext } from "./types.ts";
import { compileGlob, createIgnoreFilter, regexErrorReason, walkWorkspace } from "./walk.ts";

export const GREP_HIT_CAP = 200;
export const GREP_LINE_CHARS = 300;
export const RG_TIMEOUT_MS = 60_000;

/** A call's arguments, as the declaration's schema (grep.ts) produces them. */
export interface GrepArgs {
  pattern: string;
  include: string;
  ignoreCase?: boolean;
  includeIgnored?: boolean;
}

export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

interface _Search {
  root: string;
  pattern: string;
  include: string;
  matchesInclude: (path: string) => boolean;
  ignoreCase?: boolean;
  includeIgnored?: boolean;
  signal: AbortSignal;
  /** Workspace paths already judged by the secrets classifier: true when left out. */
  secrets: Map<string, boolean>;
}

/** True when the file at workspace path `path` is left out as a possible secret (judged once per search). */
function _isSkippedSecret(search: _Search, path: string): boolean {
  let skipped = search.secrets.get(path);
  if (skipped === undefined) {
    skipped = classifySecretFile(join(search.root, path), search.root) !== undefined;
    search.secrets.set(path, skipped);
  }
  return skipped;
}

function _withSkipNote(result: string, search: _Search): string {
  const skipped = [...search.secrets]
    .filter(([, left]) => left)
    .map(([path]) => path)
    .sort();
  if (skipped.length === 0) return result;
  const shown = skipped.length > 10 ? `${skipped.slice(0, 10).join(", ")}, …` : skipped.join(", ");
  return `${result}\n[skipped ${skipped.length} file${skipped.length === 1 ? "" : "s"} that may hold secrets: ${shown}]`;
}

/** grep. */
export async function grepFiles(input: GrepArgs, ctx: ToolContext): Promise<string> {
  const compiled = compileSearchRegex(input.pattern, input.ignoreCase);
  const included = compileGlob(input.include);
  // A file a grep rule denies (`"grep": {"secrets/*": "deny"}`) is left out like one outside the include glob.
  const matchesInclude = (path: string) => included(path) && !ctx.deniesPath?.(path);
  const search: _Search = { ...input, root: ctx.root, matchesInclude, signal: ctx.signal, secrets: new Map() };
  const rg = findRipgrep();
  const hits = rg ? await _searchWithRipgrep(rg, search) : undefined;
  if (hits) return _withSkipNote(formatHits(await _confirmHits(search, hits)), search);
  // A pattern JavaScript rejects may still be one rg accepts (`(?i)x`, `[[:alpha:]]`); only a
  // pattern neither accepts is an error.
  if (compiled instanceof Error) throw compiled;
  search.secrets.clear();
  return _withSkipNote(formatHits(await _searchWithWalker({ ...search, regex: compiled })), search);
}

/** `path:line: text` lines, the hit-limit note when there are more than GREP_HIT_CAP, or `No matches.` */
export function formatHits(hits: GrepHit[]): string {
  if (hits.length === 0) return "No matches.";
  const lines = hits.slice(0, GREP_HIT_CAP).map((hit) => {
    const text = hit.text.trim();
    return `${hit.path}:${hit.line}: ${text.length > GREP_LINE_CHARS ? `${text.slice(0, GREP_LINE_CHARS)}…` : text}`;
  });
  if (hits.length > GREP_HIT_CAP) lines.push(`... [hit limit ${GREP_HIT_CAP}]`);
  return lines.join("\n");
}

/**
 * The pattern as a JavaScript RegExp, Unicode-aware like rg's (`\p{L}`, astral characters) when
 * the `u` flag accepts it, else without `u`; an `Invalid regex: <reason>` Error when neither does.
 */
export function compileSearchRegex(pattern: string, ignoreCase = false): RegExp | Error {
  const flags = ignoreCase ? "i" : "";
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    // Falls through: `u` rejects some patterns plain regexes take, e.g. a lone `{` or `\-`.
  }
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    return new Error(`Invalid regex: ${regexErrorReason(error)}`);
  }
}

/** The `rg` executable on PATH, or undefined. */
export function findRipgrep(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = process.platform === "win32" ? "rg.exe" : "rg";
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this PATH entry.
    }
  }
  return undefined;
}

/**
 * rg opens files itself, so a file swapped for a link after it was listed would be followed.
 * Each file rg found is read again through the jail's checked open; a hit whose line is not there
 * (or whose file escapes, vanished or may hold secrets) is dropped.
 */
async function _confirmHits(search: _Search, hits: GrepHit[]): Promise<GrepHit[]> {
  const lines = new Map<string, string[] | undefined>();
  for (const path of new Set(hits.map((hit) => hit.path))) {
    const read = await readWorkspaceFile(search.root, path).catch(() => undefined);
    if (read?.secret) search.secrets.set(path, true);
    lines.set(
      path,
      read && !read.secret
        ? new TextDecoder()
            .decode(read.bytes)
            .split("\n")
            .map((line) => line.replace(/\r$/, ""))
        : undefined,
    );
  }
  return hits.filter((hit) => lines.get(hit.path)?.[hit.line - 1] === hit.text);
}

/** The JavaScript search: at most GREP_HIT_CAP + 1 hits, so the caller can tell there were more. */
async function _searchWithWalker(search: _Search & { regex: RegExp }): Promise<GrepHit[]> {
  const hits: GrepHit[] = [];
  for await (const entry of walkWorkspace(search.root, { includeIgnored: search.includeIgnored, signal: search.signal })) {
    // Like rg: symbolic links are not followed, and a NUL byte anywhere marks a file as binary.
    if (entry.dir || entry.symlink || !search.matchesInclude(entry.path)) continue;
    // Through the jail's checked open: regular files only, and judged by what was opened.
    const read = await readWorkspaceFile(search.root, entry.path).catch(() => undefined);
    if (!read || read.bytes.includes(0)) continue;
    const bytes = read.bytes;
    const lines = new TextDecoder().decode(bytes).split("\n");
    for (const [i, line] of lines.entries()) {
      const text = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (!search.regex.test(text)) continue;
      if (read.secret) {
        search.secrets.set(entry.path, true);
        break;
      }
      hits.push({ path: entry.path, line: i + 1, text });
      if (hits.length > GREP_HIT_CAP) return hits;
    }
  }
  if (search.signal.aborted) throw new Error("grep was interrupted.");
  return hits;
}

/** The ripgrep search, or undefined when rg failed and the walker should answer. */
function _searchWithRipgrep(rg: string, search: _Search): Promise<GrepHit[] | undefined> {
  const args = [
    "--no-config",
    "--line-number",
    "--no-heading",
    "--color",
    "never",
    "--no-require-git",
    // Only .gitignore files inside the workspace, as the walker reads them.
    "--no-ignore-dot",
    "--no-ignore-exclude",
    "--no-ignore-global",
    "--no-ignore-parent",
    "--max-count",
    String(GREP_HIT_CAP + 1),
    "--null",
    "--hidden",
    "--sort",
    "path",
    ...(search.ignoreCase ? ["--ignore-case"] : []),
    ...(search.includeIgnored ? ["--no-ignore"] : []),
    ..._includeArgs(search.include),
    "--glob",
    "!.git",
    "--glob",
    "!node_modules",
    "--regexp",
    search.pattern,
    "--",
    ".",
  ];
  const filter = createIgnoreFilter(search.root, { includeIgnored: search.includeIgnored });
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: search.root, stdio: ["ignore", "pipe", "ignore"] });
    const hits: GrepHit[] = [];
    let pending = "";
    let stopped: "full" | "timeout" | "aborted" | undefined;
    const stop = (why: typeof stopped) => {
      stopped ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("timeout"), RG_TIMEOUT_MS);
    const onAbort = () => stop("aborted");
    search.signal.addEventListener("abort", onAbort, { once: true });
    if (search.signal.aborted) onAbort();

    const take = (record: string) => {
      const hit = _parseRipgrepLine(record);
      if (!hit || filter.isIgnored(hit.path, false) || !search.matchesInclude(hit.path) || _isSkippedSecret(search, hit.path)) return;
      hits.push(hit);
      if (hits.length > GREP_HIT_CAP) stop("full");
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (stopped) return;
      const records = (pending + chunk).split("\n");
      pending = records.pop()!;
      for (const record of records) if (!stopped) take(record);
    });
    child.on("error", () => {
      clearTimeout(timer);
      search.signal.removeEventListener("abort", onAbort);
      resolve(undefined);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      search.signal.removeEventListener("abort", onAbort);
      if (stopped === "aborted") return reject(new Error("grep was interrupted."));
      if (stopped === "timeout") return reject(new Error(`grep timed out after ${RG_TIMEOUT_MS / 1000} s. Narrow the pattern or the include glob.`));
      if (stopped === "full") return resolve(hits);
      if (pending) take(pending);
      resolve(code === 0 || code === 1 ? hits : undefined);
    });
  });
}

/**
 * rg arguments that narrow the search to `include`. Never `--glob`: a `--glob` that matches a
 * directory overrides the ignore files, so `**\/*` would make rg search every ignored tree. A glob
 * on file names (no `/`) becomes a file type, which filters files only; a glob on paths is left
 * to the filter applied to rg's results.
 */
function _includeArgs(include: string): string[] {
  const glob = include.trim();
  if (glob.includes("/") || glob.includes("\\")) return [];
  return ["--type-add", `shiroinclude:${glob}`, "--type", "shiroinclude"];
}

function _parseRipgrepLine(record: string): GrepHit | undefined {
  const nul = record.indexOf("\0");
  if (nul < 0) return undefined;
  const rest = record.slice(nul + 1);
  const colon = rest.indexOf(":");
  const line = Number(rest.slice(0, colon));
  if (colon < 0 || !Number.isInteger(line)) return undefined;
  const path = record.slice(0, nul).replaceAll("\\", "/").replace(/^\.\//, "");
  const text = rest.slice(colon + 1);
  return { path, line, text: text.endsWith("\r") ? text.slice(0, -1) : text };
}
