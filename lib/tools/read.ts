/**
 * read_file and read_many_files. Both go through the path jail and refuse secrets files
 * (`*.env`, `*.env.*`, `*.pem`, but not `*.env.example`) and binary files.
 *
 * read_file result: `N: text` lines (1-based), at most `limit` of them from `offset`, then a
 * `... [N more lines; continue with offset=K]` note when the file goes on.
 * read_many_files result: one `===== <path> =====` block per file, in the order asked, joined by a
 * blank line; a file that cannot be read shows `[unreadable: <message>]` in its block.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import * as v from "valibot";
import { isSecretsFile, resolveInWorkspace, secretsRefusal } from "./jail.ts";
import readManyDescription from "./read-many-files.md" with { type: "text" };
import readDescription from "./read-file.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";

export const READ_LIMIT = 2000;
export const READ_MANY_MAX = 20;
/** A NUL byte in this many leading bytes marks a file as binary. */
export const BINARY_SNIFF_BYTES = 8192;

const _lineCount = (description?: string) => {
  const base = v.pipe(v.number(), v.integer(), v.minValue(1));
  return description ? v.pipe(base, v.description(description)) : base;
};

const ReadFileInput = v.object({
  path: v.string(),
  offset: v.optional(_lineCount(), 1),
  limit: v.optional(_lineCount(), READ_LIMIT),
});
type ReadFileInput = v.InferOutput<typeof ReadFileInput>;

const ReadManyInput = v.object({
  files: v.pipe(
    v.array(v.object({ path: v.string(), offset: v.optional(_lineCount()), limit: v.optional(_lineCount()) })),
    v.minLength(1),
    v.maxLength(READ_MANY_MAX),
  ),
});
type ReadManyInput = v.InferOutput<typeof ReadManyInput>;

export const readFileTool: ToolDefinition<ReadFileInput> = {
  name: "read_file",
  set: "core",
  description: readDescription,
  schema: ReadFileInput,
  readOnly: true,
  subjects: (input) => [input.path],
  execute: (input, ctx) => readNumberedLines(ctx.root, input.path, input.offset, input.limit),
};

export const readManyFilesTool: ToolDefinition<ReadManyInput> = {
  name: "read_many_files",
  set: "edit-plus",
  description: readManyDescription,
  schema: ReadManyInput,
  readOnly: true,
  subjects: (input) => input.files.map((file) => file.path),
  async execute(input, ctx) {
    const blocks = await Promise.all(input.files.map(async (file) => {
      let body: string;
      try {
        body = await readNumberedLines(ctx.root, file.path, file.offset ?? 1, file.limit ?? READ_LIMIT);
      } catch (error) {
        body = `[unreadable: ${error instanceof Error ? error.message : String(error)}]`;
      }
      return `===== ${file.path} =====\n${body}`;
    }));
    return blocks.join("\n\n");
  },
};

/** True when `bytes` has a NUL byte in its first BINARY_SNIFF_BYTES. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Reads `p` through the jail as numbered lines. Throws the tool's error strings. */
export async function readNumberedLines(root: string, p: string, offset: number, limit: number): Promise<string> {
  const abs = resolveInWorkspace(root, p);
  if (isSecretsFile(p) || isSecretsFile(abs)) throw secretsRefusal(p);
  const info = await stat(abs).catch(() => undefined);
  if (!info) throw new Error(`No such file: ${p}`);
  if (isSecretsFile(await realpath(abs))) throw secretsRefusal(p);
  if (info.isDirectory()) throw new Error(`${p} is a directory, not a file.`);
  const bytes = await readFile(abs);
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
