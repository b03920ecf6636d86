/**
 * What edit_file, multi_edit, move_file and delete_file (edit.ts) do when called, loaded at their
 * first call. Matching and results are as edit.ts describes them.
 */
import { copyFile, lstat, realpath, rename, unlink } from "node:fs/promises";
import { sep } from "node:path";
import { FOLDER_EXPAND_CAP } from "../approval/write-paths.ts";
import { readWorkspaceFile } from "./file-read.ts";
import { decodeUtf8, ensureParentDir, looksBinary, pathExists } from "./fs-run.ts";
import { assertCarriesNoGitDir, resolveForWrite, writeInWorkspace } from "./jail.ts";
import type { ToolContext, WorkspaceFiles } from "./types.ts";

/** The arguments of each call, as the declarations' schemas (edit.ts) produce them. */
export interface EditArgs {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}
export interface EditFileArgs extends EditArgs {
  path: string;
}
export interface MultiEditArgs {
  path: string;
  edits: EditArgs[];
}
export interface MoveFileArgs {
  from: string;
  to: string;
}
export interface DeleteFileArgs {
  path: string;
}

/** edit_file. */
export async function editFile({ path, oldString, newString, replaceAll }: EditFileArgs, ctx: ToolContext): Promise<string> {
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
}

/** multi_edit. */
export async function multiEdit({ path, edits }: MultiEditArgs, ctx: ToolContext): Promise<string> {
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
      throw new Error(`edit ${i + 1}: oldString appears ${applied.count} times in ${path}. Add surrounding context or set replaceAll. No edits were applied.`);
    }
    text = applied.text;
    counts.push(applied.count);
  }
  if (text === original) throw new Error(`No change to ${path}: the edits cancel out.`);
  await writeInWorkspace(ctx.root, path, text, undefined, ctx.files);
  return `Applied ${edits.length} edit(s) to ${path} (${counts.map((n) => `${n}x`).join(", ")})`;
}

/** move_file. */
export async function moveFile({ from, to }: MoveFileArgs, ctx: ToolContext): Promise<string> {
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
}

/** delete_file. */
export async function deleteFile({ path }: DeleteFileArgs, ctx: ToolContext): Promise<string> {
  const abs = resolveForWrite(ctx.root, path);
  const info = await lstat(abs).catch(() => undefined);
  if (!info) throw new Error(`No such file: ${path}`);
  if (info.isDirectory()) throw new Error(`${path} is a directory. Delete its files individually.`);
  await unlink(abs);
  return `Deleted ${path} (${info.size} bytes)`;
}

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
