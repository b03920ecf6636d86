/**
 * Reading one workspace file for a tool: opened through the jail's checked open (what was opened
 * is what is judged, so a symlink swapped after the path check reads nothing), regular files only
 * (a named pipe or a device would wait forever), and with the secrets classifier's verdict on
 * what was opened: its real name and its first bytes, not only the name the model gave.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { classifySecretContent, classifySecretPath, SECRET_SNIFF_BYTES } from "../secrets/classify.ts";
import { openInWorkspace } from "./jail.ts";
import type { WorkspaceFiles } from "./types.ts";

export interface WorkspaceFile {
  bytes: Buffer;
  /** Why the opened file may hold secrets (by the name given, its real name or its content); undefined when nothing says so. */
  secret?: string;
}

/**
 * Reads `p`. Throws `No such file: p`, `p is a directory, not a file.`, `p is not a regular file.` or the jail's errors.
 * With `files` (the editor's buffers), the file is still opened and judged through the jail, and its text is the editor's.
 */
export async function readWorkspaceFile(root: string, p: string, files?: WorkspaceFiles): Promise<WorkspaceFile> {
  let opened: Awaited<ReturnType<typeof openInWorkspace>>;
  try {
    opened = await openInWorkspace(root, p, "read");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") throw new Error(`No such file: ${p}`);
    throw error;
  }
  try {
    const info = await opened.handle.stat();
    if (info.isDirectory()) throw new Error(`${p} is a directory, not a file.`);
    if (!info.isFile()) throw new Error(`${p} is not a regular file.`);
    const bytes = files ? Buffer.from(await files.read(opened.abs), "utf8") : await opened.handle.readFile();
    const secret =
      classifySecretPath(p, root) ??
      classifySecretPath(opened.real, _realRoot(root)) ??
      classifySecretContent(bytes.subarray(0, SECRET_SNIFF_BYTES).toString("latin1"));
    return { bytes, secret };
  } finally {
    await opened.handle.close();
  }
}

/** The refusal a read tool gives for a file that may hold secrets when the gate did not let it through. */
export function secretsRefusal(p: string, why: string): Error {
  return new Error(`Refusing to read ${p}: it may hold secrets (${why}). Ask the user to share what you need from it.`);
}

function _realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return resolve(root);
  }
}
