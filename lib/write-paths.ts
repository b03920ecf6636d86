import { isAbsolute, posix, relative } from "node:path";

/**
 * Which paths a write-tool call would touch, read straight from its raw input (before schema
 * validation, so every field is checked for its type). The path guards (secrets, protect) and
 * permission subjects of patch calls use this one reading.
 */

/** The tools that create, change, move or delete files. */
export const WRITE_TOOLS: ReadonlySet<string> = new Set([
  "write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file",
]);

/** What an apply_patch marker line does; the operation kinds of lib/tools/patch.ts. */
export type PatchMarkerKind = "add" | "update" | "delete" | "move";

/** The one table of apply_patch markers (the envelope format is described in lib/tools/patch.ts). */
const _PATCH_MARKERS: readonly (readonly [prefix: string, kind: PatchMarkerKind])[] = [
  ["*** Add File: ", "add"], ["*** Update File: ", "update"], ["*** Delete File: ", "delete"], ["*** Move to: ", "move"],
];

/**
 * The lines of an apply_patch envelope, broken at `\n`, `\r\n` and a lone `\r`. The patch parser
 * and the guards both read lines and markers through this module, so a marker the parser would
 * act on is never hidden from the guards.
 */
export function splitPatchLines(patch: string): string[] {
  return patch.split(/\r\n?|\n/);
}

/** The marker `line` starts with and the path it names (trimmed); undefined for other lines and empty paths. */
export function readPatchMarker(line: string): { kind: PatchMarkerKind; path: string } | undefined {
  const marker = _PATCH_MARKERS.find(([prefix]) => line.startsWith(prefix));
  if (!marker) return undefined;
  const path = line.slice(marker[0].length).trim();
  return path ? { kind: marker[1], path } : undefined;
}

/** Every path named by an Add, Update, Delete or Move marker of an apply_patch envelope, in order. */
export function patchPaths(patch: string): string[] {
  return splitPatchLines(patch).flatMap((line) => readPatchMarker(line)?.path ?? []);
}

/** The paths a call of `toolName` would write; empty for tools that are not write tools. */
export function writePaths(toolName: string, input: unknown): string[] {
  if (!WRITE_TOOLS.has(toolName) || input === null || typeof input !== "object") return [];
  const fields = input as Record<string, unknown>;
  const strings = (...values: unknown[]) => values.filter((value): value is string => typeof value === "string");
  if (toolName === "apply_patch") return typeof fields.patch === "string" ? patchPaths(fields.patch) : [];
  if (toolName === "move_file") return strings(fields.from, fields.to);
  return strings(fields.path);
}

/**
 * The segments of `path` as seen from the workspace: split at both `/` and `\`, normalised (so
 * `dist/../src/a.ts` is `src`, `a.ts`). An absolute path inside `cwd` is made relative first, so
 * the folders that hold the workspace (a checkout under `~/build/`) never count as the path's own.
 */
export function pathSegments(path: string, cwd?: string): string[] {
  let shown = path;
  if (cwd && isAbsolute(path)) {
    const inside = relative(cwd, path);
    if (inside && !inside.startsWith("..") && !isAbsolute(inside)) shown = inside;
  }
  return posix.normalize(shown.replaceAll("\\", "/")).split("/").filter((segment) => segment !== "" && segment !== ".");
}
