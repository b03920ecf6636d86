/**
 * write_file: creates or replaces one file, creating its parent directories.
 *
 * Result: `Wrote N chars to <path>`. When it replaced a file of similar length (new/old length
 * ratio within [0.5, 1.5]) with fewer than half its lines, the result warns that lines collapsed:
 * the usual sign of content sent without its newlines.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import * as v from "valibot";
import { resolveInWorkspace } from "./jail.ts";
import { splitLines } from "./read.ts";
import type { ToolDefinition } from "./types.ts";
import description from "./write-file.md" with { type: "text" };

const WriteFileInput = v.object({ path: v.string(), content: v.string() });
type WriteFileInput = v.InferOutput<typeof WriteFileInput>;

export const writeFileTool: ToolDefinition<WriteFileInput> = {
  name: "write_file",
  set: "core",
  description,
  schema: WriteFileInput,
  subjects: (input) => [input.path],
  async execute({ path, content }, ctx) {
    const abs = resolveInWorkspace(ctx.root, path);
    const info = await stat(abs).catch(() => undefined);
    if (info?.isDirectory()) throw new Error(`${path} is a directory.`);
    const previous = info ? await readFile(abs, "utf8") : undefined;
    await ensureParentDir(abs, path);
    await writeFile(abs, content);
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
