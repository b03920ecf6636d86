/**
 * The file tools that read, write and list: read_file, read_many_files, write_file, list_dir, glob.
 * Every path goes through the jail (jail.ts); listing goes through the ignore-aware walker (walk.ts).
 *
 * read_file result: `N: text` lines (1-based), at most `limit` of them from `offset`, then a
 * `... [N more lines; continue with offset=K]` note when the file goes on. Binary files are
 * refused. A file the secrets classifier flags is asked about by the gate before read_file runs.
 * read_many_files result: one `===== <path> =====` block per file, in the order asked, joined by a
 * blank line; a file that cannot be read shows `[unreadable: <message>]` in its block, and one the
 * secrets classifier flags (by name, real path or content) shows `[skipped: …]` unread.
 * write_file result: `Wrote N chars to <path>`, with a warning when a rewrite of similar length
 * (new/old length ratio within [0.5, 1.5]) kept fewer than half the lines: the usual sign of
 * content sent without its newlines.
 * list_dir result: a tree, two spaces of indent per level, directories ending in `/`, files as
 * `name  size` (`512B`, `3K`, `1.4M`); at most LIST_CAP entries, then `... [300-entry limit reached]`.
 * glob result: matching file paths relative to the root, one per line, at most GLOB_CAP.
 */
import { lstat, mkdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as v from "valibot";
import globDescription from "./glob.md" with { type: "text" };
import { classifySecretPath } from "../secrets/classify.ts";
import { fieldPaths } from "../approval/write-paths.ts";
import { readWorkspaceFile, secretsRefusal } from "./file-read.ts";
import { resolveForWrite, resolveInWorkspace, toWorkspacePath, writeInWorkspace } from "./jail.ts";
import listDescription from "./list-dir.md" with { type: "text" };
import readManyDescription from "./read-many-files.md" with { type: "text" };
import readDescription from "./read-file.md" with { type: "text" };
import { writeSummary } from "./call-summary.ts";
import { contentPreview } from "./call-preview.ts";
import type { ToolDefinition, WorkspaceFiles } from "./types.ts";
import { absolutePath, takeFields } from "./claude-code.ts";
import { compileGlob, walkWorkspace, type WalkEntry } from "./walk.ts";
import writeDescription from "./write-file.md" with { type: "text" };

export const READ_LIMIT = 2000;
export const READ_MANY_MAX = 20;
/** A NUL byte in this many leading bytes marks a file as binary. */
export const BINARY_SNIFF_BYTES = 8192;

const _LineCount = v.pipe(v.number(), v.integer(), v.minValue(1));

const ReadFileInput = v.object({
  path: v.string(),
  offset: v.optional(_LineCount, 1),
  limit: v.optional(_LineCount, READ_LIMIT),
});
type ReadFileInput = v.InferOutput<typeof ReadFileInput>;

const ReadManyInput = v.object({
  files: v.pipe(
    v.array(v.object({ path: v.string(), offset: v.optional(_LineCount), limit: v.optional(_LineCount) })),
    v.minLength(1),
    v.maxLength(READ_MANY_MAX),
  ),
});
type ReadManyInput = v.InferOutput<typeof ReadManyInput>;

function _readManyPaths(input: unknown): string[] {
  const files = input !== null && typeof input === "object" ? (input as { files?: unknown }).files : undefined;
  return Array.isArray(files) ? files.flatMap((file) => fieldPaths("path")(file)) : [];
}

export const readFileTool: ToolDefinition<ReadFileInput> = {
  name: "read_file",
  set: "core",
  description: readDescription,
  schema: ReadFileInput,
  effect: "read",
  paths: fieldPaths("path"),
  pathInput: (path) => ({ path, offset: 1, limit: READ_LIMIT }),
  touches: "reads",
  decision: "allow",
  guidance: "read a file with numbered lines; page long files with offset/limit",
  claudeCode: {
    name: "Read",
    input: (args, root) => ({ file_path: absolutePath(root, args.path), offset: args.offset, limit: args.limit }),
    args: (input) =>
      takeFields(input, [
        ["file_path", "path", "string"],
        ["offset", "offset", "number"],
        ["limit", "limit", "number"],
      ]),
  },
  execute: (input, ctx) => readNumberedLines(ctx.root, input.path, input.offset, input.limit, ctx.secretsAllowed, ctx.files),
};

export const readManyFilesTool: ToolDefinition<ReadManyInput> = {
  name: "read_many_files",
  set: "edit-plus",
  description: readManyDescription,
  schema: ReadManyInput,
  effect: "read",
  paths: _readManyPaths,
  touches: "reads",
  secretPaths: "skip",
  decision: "allow",
  guidance: "read up to 20 files in one call when you already know which you need",
  async execute(input, ctx) {
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
  },
};

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

/** Lines of a text, without their `\n` or `\r\n`; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

const WriteFileInput = v.object({ path: v.string(), content: v.string() });
type WriteFileInput = v.InferOutput<typeof WriteFileInput>;

export const writeFileTool: ToolDefinition<WriteFileInput> = {
  name: "write_file",
  set: "core",
  description: writeDescription,
  schema: WriteFileInput,
  effect: "write",
  paths: fieldPaths("path"),
  summary: writeSummary,
  preview: contentPreview(),
  decision: "ask",
  guidance: "create a file or replace one whole; prefer edit_file for changes",
  claudeCode: {
    name: "Write",
    input: (args, root) => ({ file_path: absolutePath(root, args.path), content: args.content }),
    args: (input) =>
      takeFields(input, [
        ["file_path", "path", "string"],
        ["content", "content", "string"],
      ]),
    response: (output, args, root) => ({ filePath: absolutePath(root, args.path), success: true, output }),
  },
  async execute({ path, content }, ctx) {
    const abs = resolveForWrite(ctx.root, path);
    const info = await stat(abs).catch(() => undefined);
    if (info?.isDirectory()) throw new Error(`${path} is a directory.`);
    if (info && !info.isFile()) throw new Error(`${path} is not a regular file.`);
    const previous = info ? new TextDecoder().decode((await readWorkspaceFile(ctx.root, path, ctx.files)).bytes) : undefined;
    await ensureParentDir(abs, path);
    await writeInWorkspace(ctx.root, path, content, undefined, ctx.files);
    return describeWrite(path, content, previous);
  },
};

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

export const LIST_CAP = 300;
export const LIST_DEPTH = { default: 2, max: 6 } as const;
export const GLOB_CAP = 200;

const ListDirInput = v.object({
  path: v.optional(v.string(), "."),
  depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIST_DEPTH.max)), LIST_DEPTH.default),
  includeIgnored: v.optional(v.boolean()),
});
type ListDirInput = v.InferOutput<typeof ListDirInput>;

const GlobInput = v.object({
  pattern: v.string(),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), GLOB_CAP),
  includeIgnored: v.optional(v.boolean()),
});
type GlobInput = v.InferOutput<typeof GlobInput>;

export const listDirTool: ToolDefinition<ListDirInput> = {
  name: "list_dir",
  set: "edit-plus",
  description: listDescription,
  schema: ListDirInput,
  effect: "read",
  paths: (input) => (fieldPaths("path")(input)[0] === undefined ? ["."] : fieldPaths("path")(input)),
  decision: "allow",
  guidance: "see a folder's tree with sizes (ignore-aware)",
  async execute({ path, depth, includeIgnored }, ctx) {
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
  },
};

export const globTool: ToolDefinition<GlobInput> = {
  name: "glob",
  set: "core",
  description: globDescription,
  schema: GlobInput,
  effect: "read",
  action: "search",
  decision: "allow",
  guidance: "find files by name pattern",
  claudeCode: {
    name: "Glob",
    input: (args, root) => ({ pattern: args.pattern, path: root }),
    args: (input) => takeFields(input, [["pattern", "pattern", "string"]]),
  },
  subjects: (input) => [input.pattern],
  async execute({ pattern, limit, includeIgnored }, ctx) {
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
  },
};

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
