/**
 * The file tools that read, write and list: read_file, read_many_files, write_file, list_dir, glob.
 * This module is their declarations; what a call does is fs-run.ts, loaded at the first call. Every
 * path goes through the jail (jail.ts); listing goes through the ignore-aware walker (walk.ts).
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
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import globDescription from "./glob.md" with { type: "text" };
import { fieldPaths } from "../approval/write-paths.ts";
import listDescription from "./list-dir.md" with { type: "text" };
import readManyDescription from "./read-many-files.md" with { type: "text" };
import readDescription from "./read-file.md" with { type: "text" };
import { writeSummary } from "./call-summary.ts";
import { contentPreview } from "./call-preview.ts";
import { GLOB_CAP, LIST_DEPTH, READ_LIMIT, READ_MANY_MAX } from "./tool-limits.ts";
import type { ToolDefinition } from "./types.ts";
import { absolutePath, takeFields } from "./claude-code.ts";
import writeDescription from "./write-file.md" with { type: "text" };

const _LineCount = lazySchema(() => v.pipe(v.number(), v.integer(), v.minValue(1)));

const ReadFileInput = lazySchema(() =>
  v.object({
    path: v.string(),
    offset: v.optional(_LineCount, 1),
    limit: v.optional(_LineCount, READ_LIMIT),
  }),
);
type ReadFileInput = v.InferOutput<typeof ReadFileInput>;

const ReadManyInput = lazySchema(() =>
  v.object({
    files: v.pipe(
      v.array(v.object({ path: v.string(), offset: v.optional(_LineCount), limit: v.optional(_LineCount) })),
      v.minLength(1),
      v.maxLength(READ_MANY_MAX),
    ),
  }),
);
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
  execute: async (input, ctx) => (await import("./fs-run.ts")).readFile(input, ctx),
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
  execute: async (input, ctx) => (await import("./fs-run.ts")).readManyFiles(input, ctx),
};

const WriteFileInput = lazySchema(() => v.object({ path: v.string(), content: v.string() }));
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
  execute: async (input, ctx) => (await import("./fs-run.ts")).writeFile(input, ctx),
};

const ListDirInput = lazySchema(() =>
  v.object({
    path: v.optional(v.string(), "."),
    depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIST_DEPTH.max)), LIST_DEPTH.default),
    includeIgnored: v.optional(v.boolean()),
  }),
);
type ListDirInput = v.InferOutput<typeof ListDirInput>;

const GlobInput = lazySchema(() =>
  v.object({
    pattern: v.string(),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), GLOB_CAP),
    includeIgnored: v.optional(v.boolean()),
  }),
);
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
  execute: async (input, ctx) => (await import("./fs-run.ts")).listDir(input, ctx),
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
  execute: async (input, ctx) => (await import("./fs-run.ts")).globFiles(input, ctx),
};
