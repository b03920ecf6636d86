/**
 * edit_file, multi_edit, move_file and delete_file.
 *
 * Edits match `oldString` byte for byte, except that on a file with CRLF line endings an LF-only
 * `oldString`/`newString` pair is matched and written with CRLF. An edit must match exactly once
 * unless `replaceAll` is set. multi_edit applies its edits in order to an in-memory copy and
 * writes once: if any edit fails, the file is left untouched.
 */
import { copyFile, lstat, realpath, rename, unlink } from "node:fs/promises";
import { sep } from "node:path";
import * as v from "valibot";
import deleteDescription from "./delete-file.md" with { type: "text" };
import editDescription from "./edit-file.md" with { type: "text" };
import { decodeUtf8, ensureParentDir, looksBinary, pathExists } from "./fs.ts";
import { FOLDER_EXPAND_CAP, fieldPaths, movePaths } from "../approval/write-paths.ts";
import { readWorkspaceFile } from "./file-read.ts";
import { assertCarriesNoGitDir, resolveForWrite, writeInWorkspace } from "./jail.ts";
import moveDescription from "./move-file.md" with { type: "text" };
import multiEditDescription from "./multi-edit.md" with { type: "text" };
import { editSummary } from "./call-summary.ts";
import { editsPreview } from "./call-preview.ts";
import type { ToolDefinition, WorkspaceFiles } from "./types.ts";
import { absolutePath, takeFields } from "./claude-code.ts";

const EditFileInput = v.object({
  path: v.string(),
  oldString: v.string(),
  newString: v.string(),
  replaceAll: v.optional(v.boolean()),
});
type EditFileInput = v.InferOutput<typeof EditFileInput>;

const MultiEditInput = v.object({
  path: v.string(),
  edits: v.pipe(v.array(v.object({ oldString: v.string(), newString: v.string(), replaceAll: v.optional(v.boolean()) })), v.minLength(1)),
});
type MultiEditInput = v.InferOutput<typeof MultiEditInput>;

const MoveFileInput = v.object({ from: v.string(), to: v.string() });
type MoveFileInput = v.InferOutput<typeof MoveFileInput>;

const DeleteFileInput = v.object({ path: v.string() });
type DeleteFileInput = v.InferOutput<typeof DeleteFileInput>;

export const editFileTool: ToolDefinition<EditFileInput> = {
  name: "edit_file",
  set: "core",
  description: editDescription,
  schema: EditFileInput,
  effect: "write",
  paths: fieldPaths("path"),
  summary: editSummary,
  preview: editsPreview,
  decision: "ask",
  guidance: "replace one exact, unique string in a file",
  claudeCode: {
    name: "Edit",
    input: (args, root) => ({
      file_path: absolutePath(root, args.path),
      old_string: args.oldString,
      new_string: args.newString,
      replace_all: args.replaceAll === true,
    }),
    args: (input) =>
      takeFields(input, [
        ["file_path", "path", "string"],
        ["old_string", "oldString", "string"],
        ["new_string", "newString", "string"],
        ["replace_all", "replaceAll", "boolean"],
      ]),
    response: (output, args, root) => ({ filePath: absolutePath(root, args.path), oldString: args.oldString, newString: args.newString, output }),
  },
  async execute({ path, oldString, newString, replaceAll }, ctx) {
    if (oldString === newString) throw new Error("oldString and newString are identical");
    if (oldString === "") throw new Error("oldString is empty. Use write_file to create or replace a whole file.");
    resolveForWrite(ctx.root, path);
    const content = await readTextFile(ctx.root, path, ctx.files);
    const applied = applyEdit(content, oldString, newString, replaceAll);
    if (applied.count === 0) throw new Error(`oldString not found in ${path}`);
    if (applied.count > 1 && !replaceAll) {
      throw new Error(`oldString appears ${applied.count} times in ${path}. Add surrounding context or set replaceAll.`);
    }
    await writeInWorkspace(ctx.root, path, applied.text, undefined, ctx.files);
    return `Replaced ${applied.count} occurrence(s) in ${path}`;
  },
};

export const multiEditTool: ToolDefinition<MultiEditInput> = {
  name: "multi_edit",
  set: "edit-plus",
  description: multiEditDescription,
  schema: MultiEditInput,
  effect: "write",
  paths: fieldPaths("path"),
  summary: editSummary,
  preview: editsPreview,
  decision: "ask",
  guidance: "several exact replacements in one file, all or nothing",
  claudeCode: {
    name: "MultiEdit",
    input: (args, root) => ({
      file_path: absolutePath(root, args.path),
      edits: args.edits.map((edit) => ({ old_string: edit.oldString, new_string: edit.newString, replace_all: edit.replaceAll === true })),
    }),
    args: (input) => ({
      ...takeFields(input, [["file_path", "path", "string"]]),
      ...(Array.isArray(input.edits)
        ? {
            edits: input.edits.map((edit: Record<string, unknown>) =>
              takeFields(edit ?? {}, [
                ["old_string", "oldString", "string"],
                ["new_string", "newString", "string"],
                ["replace_all", "replaceAll", "boolean"],
              ]),
            ),
          }
        : {}),
    }),
    response: (output, args, root) => ({ filePath: absolutePath(root, args.path), output }),
  },
  async execute({ path, edits }, ctx) {
    edits.forEach((edit, i) => {
      if (edit.oldString === edit.newString) throw new Error(`edit ${i + 1}: oldString and newString are identical`);
      if (edit.oldString === "") throw new Error(`edit ${i + 1}: oldString is empty. No edits were applied.`);
    });
    resolveForWrite(ctx.root, path);
    const original = await readTextFile(ctx.root, path, ctx.files);
    let text = original;
    const counts: number[] = [];
    for (const [i, edit] of edits.entries()) {
      const applied = applyEdit(text, edit.oldString, edit.newString, edit.replaceAll);
      if (applied.count === 0) throw new Error(`edit ${i + 1}: oldString not found in ${path}. No edits were applied.`);
      if (applied.count > 1 && !edit.replaceAll) {
        throw new Error(
          `edit ${i + 1}: oldString appears ${applied.count} times in ${path}. Add surrounding context or set replaceAll. No edits were applied.`,
        );
      }
      text = applied.text;
      counts.push(applied.count);
    }
    if (text === original) throw new Error(`No change to ${path}: the edits cancel out.`);
    await writeInWorkspace(ctx.root, path, text, undefined, ctx.files);
    return `Applied ${edits.length} edit(s) to ${path} (${counts.map((n) => `${n}x`).join(", ")})`;
  },
};

export const moveFileTool: ToolDefinition<MoveFileInput> = {
  name: "move_file",
  set: "edit-plus",
  description: moveDescription,
  schema: MoveFileInput,
  effect: "write",
  action: "move",
  paths: movePaths,
  decision: "ask",
  guidance: "move or rename one file",
  async execute({ from, to }, ctx) {
    const fromAbs = resolveForWrite(ctx.root, from);
    const toAbs = resolveForWrite(ctx.root, to);
    if (fromAbs === toAbs) throw new Error("from and to are the same path");
    const source = await lstat(fromAbs).catch(() => undefined);
    if (!source) throw new Error(`No such file: ${from}`);
    if (source.isDirectory() && toAbs.startsWith(`${fromAbs}${sep}`)) throw new Error(`Cannot move ${from} into itself (${to}).`);
    if (source.isDirectory()) assertCarriesNoGitDir(fromAbs, from, FOLDER_EXPAND_CAP);
    if ((await pathExists(toAbs)) && !(await _sameFile(fromAbs, toAbs))) {
      throw new Error(`${to} already exists. Delete it first or pick another name.`);
    }
    await ensureParentDir(toAbs, to);
    try {
      await rename(fromAbs, toAbs);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EXDEV" || !source.isFile()) throw error;
      await copyFile(fromAbs, toAbs);
      await unlink(fromAbs);
    }
    return `Moved ${from} to ${to}`;
  },
};

export const deleteFileTool: ToolDefinition<DeleteFileInput> = {
  name: "delete_file",
  set: "edit-plus",
  description: deleteDescription,
  schema: DeleteFileInput,
  effect: "write",
  action: "delete",
  paths: fieldPaths("path"),
  decision: "ask",
  guidance: "delete one file",
  async execute({ path }, ctx) {
    const abs = resolveForWrite(ctx.root, path);
    const info = await lstat(abs).catch(() => undefined);
    if (!info) throw new Error(`No such file: ${path}`);
    if (info.isDirectory()) throw new Error(`${path} is a directory. Delete its files individually.`);
    await unlink(abs);
    return `Deleted ${path} (${info.size} bytes)`;
  },
};

export interface EditApplied {
  text: string;
  /** Occurrences of oldString found (all of them were replaced only when replaceAll or count is 1). */
  count: number;
}

/** Replaces `oldString` in `content`: every occurrence with `replaceAll`, else only a unique one. */
export function applyEdit(content: string, oldString: string, newString: string, replaceAll = false): EditApplied {
  const [from, into] = matchLineEndings(content, oldString, newString);
  const parts = content.split(from);
  const count = parts.length - 1;
  if (count === 0 || (count > 1 && !replaceAll)) return { text: content, count };
  return { text: parts.join(into), count };
}

/**
 * The text of workspace file `shown` for editing, read through the jail's checked open. Throws
 * `No such file: <shown>`, or refuses a directory, a binary file and a file that is not UTF-8:
 * decoding and writing it back would change bytes the edit never touched.
 */
export async function readTextFile(root: string, shown: string, files?: WorkspaceFiles): Promise<string> {
  const { bytes } = await readWorkspaceFile(root, shown, files);
  if (looksBinary(bytes)) throw new Error(`${shown} is a binary file, not text. Use bash if you need to change it.`);
  const text = decodeUtf8(bytes);
  if (text === undefined) throw new Error(`${shown} is not UTF-8 text; editing it here would corrupt its other characters. Use bash if you need to change it.`);
  return text;
}

/** On a CRLF file, LF-only edit strings are given CRLF endings; otherwise both are returned as they are. */
export function matchLineEndings(content: string, oldString: string, newString: string): [string, string] {
  if (!content.includes("\r\n") || oldString.includes("\r") || newString.includes("\r")) return [oldString, newString];
  if (oldString.includes("\n") && content.includes(oldString)) return [oldString, newString];
  return [oldString.replaceAll("\n", "\r\n"), newString.replaceAll("\n", "\r\n")];
}

/** True when two paths name one file (a case-only rename on a case-insensitive file system). */
async function _sameFile(a: string, b: string): Promise<boolean> {
  const [ra, rb] = await Promise.all([realpath(a).catch(() => a), realpath(b).catch(() => b)]);
  if (ra !== rb) return false;
  const [sa, sb] = await Promise.all([lstat(a), lstat(b)]);
  return sa.ino === sb.ino && sa.dev === sb.dev;
}
