import { lstatSync, readdirSync } from "node:fs";
import { isAbsolute, join, posix, relative, resolve } from "node:path";

/**
 * Readers of the paths a call names, straight from its raw input (before schema validation, so
 * every field is checked for its type here). Tools build their `paths` declaration from these;
 * the guards (secrets, protect) and permission rules read paths only through those declarations.
 */

/** A `paths` declaration that reads the string fields `keys` of the raw input, in that order. */
export function fieldPaths(...keys: string[]): (input: unknown) => string[] {
  return (input) => {
    if (input === null || typeof input !== "object") return [];
    const fields = input as Record<string, unknown>;
    return keys.flatMap((key) => (typeof fields[key] === "string" ? [fields[key] as string] : []));
  };
}

/** At most this many entries are listed when a folder is expanded for the guards. */
export const FOLDER_EXPAND_CAP = 5000;

/**
 * `path` and, when it names a folder inside `root`, every entry under it (joined onto the path
 * as spelled, `/`-separated), so a move or delete of a folder shows the guards each file it
 * carries. Symlinks are listed, not followed. Past FOLDER_EXPAND_CAP entries the listing ends
 * with the folder itself again, which a guard then judges as a whole.
 */
export function expandFolderPaths(path: string, root: string): string[] {
  const abs = resolve(root, path);
  const rel = relative(resolve(root), abs);
  if (rel.startsWith("..") || isAbsolute(rel)) return [path];
  const found: string[] = [path];
  const visit = (dir: string, shown: string) => {
    let names: string[];
    try {
      if (!lstatSync(dir).isDirectory()) return;
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (found.length > FOLDER_EXPAND_CAP) return;
      const child = `${shown.replace(/[/\\]+$/, "")}/${name}`;
      found.push(child);
      visit(join(dir, name), child);
    }
  };
  visit(abs, path);
  return found;
}

/** What an apply_patch marker line does; the operation kinds of lib/tools/patch.ts. */
export type PatchMarkerKind = "add" | "update" | "delete" | "move";

/** The one table of apply_patch markers (the envelope format is described in lib/tools/patch.ts). */
const _PATCH_MARKERS: readonly (readonly [prefix: string, kind: PatchMarkerKind])[] = [
  ["*** Add File: ", "add"],
  ["*** Update File: ", "update"],
  ["*** Delete File: ", "delete"],
  ["*** Move to: ", "move"],
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

/** Every path an apply_patch call names, from its raw input. */
export function patchInputPaths(input: unknown): string[] {
  const patch = input !== null && typeof input === "object" ? (input as { patch?: unknown }).patch : undefined;
  return typeof patch === "string" ? patchPaths(patch) : [];
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
  return posix
    .normalize(shown.replaceAll("\\", "/"))
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".");
}

/**
 * The paths of a move_file call: `from` and `to`, and when `from` is a folder each entry under it
 * at both its old and its new place (`cfg/.env` moved to `out` is also `out/.env`).
 */
export function movePaths(input: unknown, root: string): string[] {
  const [from, to] = [fieldPaths("from")(input)[0], fieldPaths("to")(input)[0]];
  if (from === undefined || to === undefined) return [from, to].filter((path): path is string => path !== undefined);
  const under = expandFolderPaths(from, root).slice(1);
  const trimmedFrom = from.replace(/[/\\]+$/, "");
  const trimmedTo = to.replace(/[/\\]+$/, "");
  return [from, to, ...under.flatMap((path) => [path, `${trimmedTo}${path.slice(trimmedFrom.length)}`])];
}

/** A ref split at the colon that starts its path (`HEAD:a.ts`, `:0:a.ts`, `:a.ts`); `:/text` and plain refs have none. */
export function splitRefPath(ref: string): { rev: string; path?: string } {
  if (ref.startsWith(":/")) return { rev: ref };
  const stage = /^:[0-3]:/.exec(ref);
  if (stage) return { rev: stage[0].slice(0, -1), path: ref.slice(stage[0].length) };
  let depth = 0;
  for (let i = 0; i < ref.length; i++) {
    const ch = ref[i];
    if (ch === "{") depth++;
    else if (ch === "}") depth = Math.max(0, depth - 1);
    else if (ch === ":" && depth === 0) return { rev: ref.slice(0, i), path: ref.slice(i + 1) };
  }
  return { rev: ref };
}

/** The path a `REF:PATH` names, as spelled, for git_show's `paths` declaration. */
export function refPath(ref: unknown): string[] {
  if (typeof ref !== "string") return [];
  const { path } = splitRefPath(ref);
  return path === undefined || path === "" ? [] : [path];
}
