/**
 * apply_patch's parser and what a call does (patch.ts declares the tool and its format), loaded at
 * the first call. Every operation is checked before anything is written; a failed write rolls
 * every touched file back.
 */
import { readPatchMarker, splitPatchLines } from "../approval/write-paths.ts";
import { lstat, rm, stat, unlink } from "node:fs/promises";
import { matchLineEndings } from "./edit-run.ts";
import { decodeUtf8, ensureParentDir, looksBinary, pathExists } from "./fs-run.ts";
import { readWorkspaceFile } from "./file-read.ts";
import { resolveForWrite, writeInWorkspace } from "./jail.ts";

export interface PatchHunk {
  remove: string[];
  add: string[];
}

export type PatchOperation =
  | { kind: "add"; path: string; lines: string[] }
  | { kind: "update"; path: string; moveTo?: string; hunks: PatchHunk[] }
  | { kind: "delete"; path: string };

const _ENVELOPE = new Set(["*** Begin Patch", "*** End Patch", "*** End of File"]);

/** Parses the patch text. Throws the parse error strings. */
export function parsePatch(patch: string): PatchOperation[] {
  const operations: PatchOperation[] = [];
  let current: PatchOperation | undefined;
  let hunk: PatchHunk | undefined;
  let afterUpdateMarker = false;
  for (const [index, raw] of splitPatchLines(patch).entries()) {
    const n = index + 1;
    const line = raw.trimEnd();
    if (line.trim() === "" || _ENVELOPE.has(line.trim())) continue;
    const marker = readPatchMarker(line);
    if (marker) {
      const { kind, path } = marker;
      if (kind === "move") {
        if (!afterUpdateMarker || current?.kind !== "update") throw new Error(`${current?.path ?? path}: "Move to" is only valid on an Update`);
        current.moveTo = path;
      } else {
        current = kind === "add" ? { kind, path, lines: [] } : kind === "update" ? { kind, path, hunks: [] } : { kind, path };
        operations.push(current);
        hunk = undefined;
      }
      afterUpdateMarker = kind === "update";
      continue;
    }
    afterUpdateMarker = false;
    if (!current) throw new Error(`patch line ${n} is not a marker or part of a hunk: ${line.slice(0, 60)}`);
    if (current.kind === "update" && line.startsWith("@@")) {
      hunk = undefined;
      continue;
    }
    const sign = raw[0];
    if (sign !== "+" && sign !== "-") throw new Error(`${current.path}: hunk line ${n} starts with neither + nor -: ${line.slice(0, 60)}`);
    const text = raw.slice(1);
    if (current.kind === "delete") throw new Error(`${current.path}: a Delete takes no + or - lines`);
    if (current.kind === "add") {
      if (sign === "-") throw new Error(`${current.path}: an Add cannot remove lines`);
      current.lines.push(text);
      continue;
    }
    if (!hunk) {
      hunk = { remove: [], add: [] };
      current.hunks.push(hunk);
    }
    (sign === "-" ? hunk.remove : hunk.add).push(text);
  }
  if (operations.length === 0) throw new Error("the patch is empty");
  for (const op of operations) {
    if (op.kind !== "update") continue;
    if ((op.hunks.length === 0 && !op.moveTo) || op.hunks.some((h) => h.remove.length === 0)) {
      throw new Error(`${op.path}: an Update needs at least one - line to locate the change`);
    }
  }
  return operations;
}

interface _Write {
  abs: string;
  shown: string;
  content: string;
  mode?: number;
}

interface _Plan {
  writes: _Write[];
  deletes: string[];
  summary: string[];
}

/** Validates and applies a patch inside `root`. Returns `Applied N change(s):` and one line per change. */
export async function applyPatch(root: string, patch: string): Promise<string> {
  const operations = parsePatch(patch);
  const plan = await _planPatch(root, operations);
  await _commitPlan(root, plan);
  return [`Applied ${operations.length} change(s):`, ...plan.summary].join("\n");
}

async function _planPatch(root: string, operations: PatchOperation[]): Promise<_Plan> {
  const claimed = new Set<string>();
  const claim = (p: string) => {
    const abs = resolveForWrite(root, p);
    if (claimed.has(abs)) throw new Error(`${p} appears twice in one patch`);
    claimed.add(abs);
    return abs;
  };
  const plan: _Plan = { writes: [], deletes: [], summary: [] };
  for (const op of operations) {
    const abs = claim(op.path);
    if (op.kind === "add") {
      if (await pathExists(abs)) throw new Error(`cannot add ${op.path}: it already exists`);
      plan.writes.push({ abs, shown: op.path, content: op.lines.length === 0 ? "" : `${op.lines.join("\n")}\n` });
      plan.summary.push(`- added ${op.path}`);
    } else if (op.kind === "delete") {
      const info = await lstat(abs).catch(() => undefined);
      if (!info) throw new Error(`cannot delete ${op.path}: no such file`);
      if (info.isDirectory()) throw new Error(`cannot delete ${op.path}: it is a directory`);
      plan.deletes.push(abs);
      plan.summary.push(`- deleted ${op.path}`);
    } else {
      const toAbs = op.moveTo === undefined ? undefined : claim(op.moveTo);
      const info = await stat(abs).catch(() => undefined);
      if (!info || info.isDirectory()) throw new Error(`cannot update ${op.path}: no such file`);
      if (!info.isFile()) throw new Error(`cannot update ${op.path}: it is not a regular file`);
      const { bytes } = await readWorkspaceFile(root, op.path);
      if (looksBinary(bytes)) throw new Error(`cannot update ${op.path}: it is a binary file`);
      const text = decodeUtf8(bytes);
      if (text === undefined) throw new Error(`cannot update ${op.path}: it is not UTF-8 text`);
      const content = op.hunks.reduce((current, hunk) => _applyHunk(current, hunk, op.path), text);
      if (toAbs && (await pathExists(toAbs))) throw new Error(`cannot move ${op.path}: ${op.moveTo} already exists`);
      plan.writes.push({ abs: toAbs ?? abs, shown: op.moveTo ?? op.path, content, mode: info.mode & 0o7777 });
      if (toAbs) plan.deletes.push(abs);
      plan.summary.push(toAbs ? `- moved ${op.path} to ${op.moveTo}` : `- updated ${op.path}`);
    }
  }
  return plan;
}

function _applyHunk(text: string, hunk: PatchHunk, path: string): string {
  const [from, into] = matchLineEndings(text, hunk.remove.join("\n"), hunk.add.join("\n"));
  const parts = text.split(from);
  if (parts.length === 1) throw new Error(`${path}: the - lines do not match the file. Nothing was written.`);
  if (parts.length > 2) throw new Error(`${path}: the - lines appear ${parts.length - 1} times. Add context to make them unique.`);
  let [before, after] = parts as [string, string];
  // A pure deletion takes the removed lines' newline with them rather than leaving a blank line.
  if (hunk.add.length === 0) after = after.replace(/^\r?\n/, "");
  return before + into + after;
}

interface _Undo {
  abs: string;
  before?: { bytes: Buffer; mode: number };
}

async function _commitPlan(root: string, plan: _Plan): Promise<void> {
  const undo: _Undo[] = [];
  const createdDirs: string[] = [];
  // Read through the jail's checked open: a link swapped to point outside is refused here, before
  // anything is written, and never remembered (so a roll-back cannot copy outside bytes in).
  const remember = async (abs: string) => {
    const info = await stat(abs).catch(() => undefined);
    undo.push({ abs, before: info?.isFile() ? { bytes: (await readWorkspaceFile(root, abs)).bytes, mode: info.mode & 0o7777 } : undefined });
  };
  try {
    for (const write of plan.writes) {
      await remember(write.abs);
      const created = await ensureParentDir(write.abs, write.shown);
      if (created) createdDirs.push(created);
      await writeInWorkspace(root, write.shown, write.content, write.mode);
    }
    for (const abs of plan.deletes) {
      await remember(abs);
      await unlink(abs);
    }
  } catch (error) {
    await _rollBack(root, undo, createdDirs);
    throw new Error(`the patch failed while writing (${(error as Error).message}); every file was restored`);
  }
}

async function _rollBack(root: string, undo: _Undo[], createdDirs: string[]): Promise<void> {
  for (const entry of undo.reverse()) {
    if (entry.before) await writeInWorkspace(root, entry.abs, entry.before.bytes, entry.before.mode).catch(() => undefined);
    else await unlink(entry.abs).catch(() => undefined);
  }
  for (const dir of createdDirs.reverse()) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
