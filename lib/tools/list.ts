/**
 * list_dir and glob: read-only views of the workspace tree through the ignore-aware walker.
 *
 * list_dir result: a tree, two spaces of indent per level, directories ending in `/`, files as
 * `name  size` (`512B`, `3K`, `1.4M`); at most LIST_CAP entries, then `... [300-entry limit reached]`.
 * glob result: matching file paths relative to the root, one per line, at most GLOB_CAP.
 */
import { lstat, stat } from "node:fs/promises";
import { join } from "node:path";
import * as v from "valibot";
import { resolveInWorkspace, toWorkspacePath } from "./jail.ts";
import globDescription from "./glob.md" with { type: "text" };
import listDescription from "./list-dir.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";
import { compileGlob, walkWorkspace, type WalkEntry } from "./walk.ts";

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
  readOnly: true,
  subjects: (input) => [input.path],
  async execute({ path, depth, includeIgnored }, ctx) {
    const abs = resolveInWorkspace(ctx.root, path);
    if (!(await stat(abs).catch(() => undefined))?.isDirectory()) throw new Error(`Not a directory: ${path}`);
    const entries: WalkEntry[] = [];
    for await (const entry of walkWorkspace(ctx.root, { dir: toWorkspacePath(ctx.root, abs), includeIgnored, maxDepth: depth, limit: LIST_CAP + 1, signal: ctx.signal })) {
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
  readOnly: true,
  subjects: (input) => [input.pattern],
  async execute({ pattern, limit, includeIgnored }, ctx) {
    const cap = Math.min(limit, GLOB_CAP);
    let matches: (path: string) => boolean;
    try {
      matches = compileGlob(pattern);
    } catch (error) {
      throw new Error(`Invalid glob: ${(error as Error).message}`);
    }
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
