/**
 * What the read, write and list tools of fs.ts do when called, loaded at their first call (a
 * session that never calls them never loads this, the walker or the jail's file reads). Results
 * are as fs.ts describes them.
 */
import { lstat, mkdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { classifySecretPath } from "../secrets/classify.ts";
import { readWorkspaceFile, secretsRefusal } from "./file-read.ts";
import { resolveForWrite, resolveInWorkspace, toWorkspacePath, writeInWorkspace } from "./jail.ts";
import { splitLines } from "./text-lines.ts";
import { GLOB_CAP, LIST_CAP, READ_LIMIT } from "./tool-limits.ts";
import type { ToolContext, WorkspaceFiles } from "./types.ts";
import { compileGlob, walkWorkspace, type WalkEntry } from "./walk.ts";

/** A NUL byte in this many leading bytes marks a file as binary. */
export const BINARY_SNIFF_BYTES = 8192;

/** The arguments of each call, as the declarations' schemas (fs.ts) produce them. */
export interface ReadFileArgs {
  path: string;
  offset: number;
  limit: number;
}
export interface ReadManyArgs {
  files: { path: string; offset?: number; limit?: number }[];
}
export interface WriteFileArgs {
  path: string;
  content: string;
}
export interface ListDirArgs {
  path: string;
  depth: number;
  includeIgnored?: boolean;
}
export interface GlobArgs {
  pattern: string;
  limit: number;
  includeIgnored?: boolean;
}

/** read_file. */
export function readFile(input: ReadFileArgs, ctx: ToolContext): Promise<string> {
  return readNumberedLines(ctx.root, input.path, input.offset, input.limit, ctx.secretsAllowed, ctx.files);
}

/** read_many_files. */
export async function readManyFiles(input: ReadManyArgs, ctx: ToolContext): Promise<string> {
  const blocks = await Promise.all(
    input.files.map(async (file) => {
      let body: string;
      try {
        // The name given is judged before any open; the real name and the content, on what was opened.
        const named = classifySecretPath(resolveInWorkspace(ctx.root, file.path), ctx.root);
        const read = named ? undefined : await readWorkspaceFile(ctx.root, file.path);
        const secret = named ?? read?.secret;
        if (secret || !read)
          return `===== ${file.path} =====\n[skipped: it may hold secrets (${secret}). Ask the user, or read it with read_file, which asks them.]`;
        body = _numberLines(read.bytes, file.path, file.offset ?? 1, file.limit ?? READ_LIMIT);
      } catch (error) {
        body = `[unreadable: ${error instanceof Error ? error.message : String(error)}]`;
      }
      return `===== ${file.path} =====\n${body}`;
    }),
  );
  return blocks.join("\n\n");
}

/** True when `bytes` has a NUL byte in its first BINARY_SNIFF_BYTES. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * The UTF-8 text of `bytes` with any byte-order mark kept, so writing it back changes nothing;
 * undefined when the bytes are not valid UTF-8 (a Latin-1 file, say), which an edit would mangle.
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Reads `p` through the jail as numbered lines. Throws the tool's error strings, and refuses a
 * file that may hold secrets unless `secretsAllowed` (the gate asked, or a rule named it).
 */
export async function readNumberedLines(
  root: string,
  p: string,
  offset: number,
  limit: number,
  secretsAllowed = false,
  files?: WorkspaceFiles,
): Promise<string> {
  const { bytes, secret } = await readWorkspaceFile(root, p, files);
  if (secret && !secretsAllowed) throw secretsRefusal(p, secret);
  return _numberLines(bytes, p, offset, limit);
}

/** `bytes` of `p` as numbered lines from `offset`, at most `limit`; throws for a binary file or an offset past the end. */
function _numberLines(bytes: Uint8Array, p: string, offset: number, limit: number): string {
  if (looksBinary(bytes)) throw new Error(`${p} is a binary file, not text. Use bash if you need to inspect it.`);
  const lines = splitLines(new TextDecoder().decode(bytes));
  if (lines.length === 0) return `${p} is empty.`;
  if (offset > lines.length) throw new Error(`${p} has ${lines.length} lines; offset ${offset} is past the end.`);
  const end = Math.min(lines.length, offset - 1 + limit);
  const shown = lines.slice(offset - 1, end).map((line, i) => `${offset + i}: ${line}`);
  const rest = lines.length - end;
  if (rest > 0) shown.push(`... [${rest} more line${rest === 1 ? "" : "s"}; continue with offset=${end + 1}]`);
  return shown.join("\n");
}

/** write_file. */
export async function writeFile({ path, content }: WriteFileArgs, ctx: ToolContext): Promise<string> {
  const abs = resolveForWrite(ctx.root, path);
  const info = await stat(abs).catch(() => undefined);
  if (info?.isDirectory()) throw new Error(`${path} is a directory.`);
  if (info && !info.isFile()) throw new Error(`${path} is not a regular file.`);
  const previous = info ? new TextDecoder().decode((await readWorkspaceFile(ctx.root, path, ctx.files)).bytes) : undefined;
  await ensureParentDir(abs, path);
  await writeInWorkspace(ctx.root, path, content, undefined, ctx.files);
  return describeWrite(path, content, previous);
}

/** `Wrote N chars to <path>`, or the collapse warning when `content` lost most of `previous`'s lines. */
export function describeWrite(path: string, content: string, previous: string | undefined): string {
  const wrote = `Wrote ${content.length} chars to ${path}`;
  if (previous === undefined || previous.length === 0) return wrote;
  const ratio = content.length / previous.length;
  const before = splitLines(previous).length;
  const after = splitLines(content).length;
  if (ratio < 0.5 || ratio > 1.5 || after >= before / 2) return wrote;
  return `${wrote}, but it collapsed ${before} lines into ${after}. If that was not intended, re-send the content with its original newlines and indentation.`;
}

/** True when something (a file, a folder, a dangling symlink) stands at `abs`. */
export async function pathExists(abs: string): Promise<boolean> {
  return (await lstat(abs).catch(() => undefined)) !== undefined;
}

/** Creates the directories above `abs`; a file standing where a directory must go is an error. */
export async function ensureParentDir(abs: string, shown: string): Promise<string | undefined> {
  try {
    return await mkdir(dirname(abs), { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOTDIR" || (error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Error(`Cannot create ${shown}: a file stands where a parent directory should be.`);
    }
    throw error;
  }
}

/** list_dir. */
export async function listDir({ path, depth, includeIgnored }: ListDirArgs, ctx: ToolContext): Promise<string> {
  const abs = resolveInWorkspace(ctx.root, path);
  if (!(await stat(abs).catch(() => undefined))?.isDirectory()) throw new Error(`Not a directory: ${path}`);
  const entries: WalkEntry[] = [];
  for await (const entry of walkWorkspace(ctx.root, {
    dir: toWorkspacePath(ctx.root, abs),
    includeIgnored,
    maxDepth: depth,
    limit: LIST_CAP + 1,
    signal: ctx.signal,
  })) {
    entries.push(entry);
  }
  if (entries.length === 0) {
    const label = toWorkspacePath(ctx.root, abs) === "." ? "The workspace" : path;
    return `${label} is empty (or everything in it is ignored).`;
  }
  const shown = entries.slice(0, LIST_CAP);
  const lines = await Promise.all(shown.map((entry) => _treeLine(ctx.root, entry)));
  if (entries.length > LIST_CAP) lines.push(`... [${LIST_CAP}-entry limit reached]`);
  return lines.join("\n");
}

/** glob. */
export async function globFiles({ pattern, limit, includeIgnored }: GlobArgs, ctx: ToolContext): Promise<string> {
  const cap = Math.min(limit, GLOB_CAP);
  const matches = compileGlob(pattern);
  const found: string[] = [];
  for await (const entry of walkWorkspace(ctx.root, { includeIgnored, signal: ctx.signal })) {
    if (entry.dir || !matches(entry.path)) continue;
    if (found.length === cap) {
      found.push(`... [${cap}-file limit reached]`);
      break;
    }
    found.push(entry.path);
  }
  return found.length === 0 ? "No files matched." : found.join("\n");
}

/** `512B`, `3K` (rounded), `1.4M` (one decimal). */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)}K`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}M`;
}

async function _treeLine(root: string, entry: WalkEntry): Promise<string> {
  const indent = "  ".repeat(entry.depth - 1);
  const link = entry.symlink ? "  (symlink)" : "";
  if (entry.dir) return `${indent}${entry.name}/${link}`;
  if (entry.symlink) return `${indent}${entry.name}${link}`;
  const info = await lstat(join(root, entry.path)).catch(() => undefined);
  return `${indent}${entry.name}  ${info ? formatSize(info.size) : "?"}`;
}
