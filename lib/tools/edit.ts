/**
 * edit_file, multi_edit, move_file and delete_file.
 *
 * Edits match `oldString` byte for byte, except that on a file with CRLF line endings an LF-only
 * `oldString`/`newString` pair is matched and written with CRLF. An edit must match exactly once
 * unless `replaceAll` is set. multi_edit applies its edits in order to an in-memory copy and
 * writes once: if any edit fails, the file is left untouched. This module is their declarations;
 * what a call does is edit-run.ts, loaded at the first call.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import deleteDescription from "./delete-file.md" with { type: "text" };
import editDescription from "./edit-file.md" with { type: "text" };
import { fieldPaths, movePaths } from "../approval/write-paths.ts";
import moveDescription from "./move-file.md" with { type: "text" };
import multiEditDescription from "./multi-edit.md" with { type: "text" };
import { editSummary } from "./call-summary.ts";
import { editsPreview } from "./call-preview.ts";
import type { ToolDefinition } from "./types.ts";
import { absolutePath, takeFields } from "./claude-code.ts";

const EditFileInput = lazySchema(() =>
  v.object({
    path: v.string(),
    oldString: v.string(),
    newString: v.string(),
    replaceAll: v.optional(v.boolean()),
  }),
);
type EditFileInput = v.InferOutput<typeof EditFileInput>;

const MultiEditInput = lazySchema(() =>
  v.object({
    path: v.string(),
    edits: v.pipe(v.array(v.object({ oldString: v.string(), newString: v.string(), replaceAll: v.optional(v.boolean()) })), v.minLength(1)),
  }),
);
type MultiEditInput = v.InferOutput<typeof MultiEditInput>;

const MoveFileInput = lazySchema(() => v.object({ from: v.string(), to: v.string() }));
type MoveFileInput = v.InferOutput<typeof MoveFileInput>;

const DeleteFileInput = lazySchema(() => v.object({ path: v.string() }));
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
  execute: async (input, ctx) => (await import("./edit-run.ts")).editFile(input, ctx),
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
  execute: async (input, ctx) => (await import("./edit-run.ts")).multiEdit(input, ctx),
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
  execute: async (input, ctx) => (await import("./edit-run.ts")).moveFile(input, ctx),
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
  execute: async (input, ctx) => (await import("./edit-run.ts")).deleteFile(input, ctx),
};
