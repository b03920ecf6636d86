/**
 * Keeps the git tools inside the workspace and away from secrets.
 *
 * Paths: a `path` argument goes through the jail (jail.ts) and reaches git as a workspace-relative
 * pathspec after `--`; a diff without a path is limited to `.` (git runs at the workspace root, so
 * a workspace that is a subfolder of its repository never shows the rest). `REF:PATH` is read the
 * way git reads it (PATH from the repository top, or from the workspace when it starts with `./`
 * or `../`) and refused when it leaves the workspace; it reaches git rewritten as `REF:./<path>`.
 *
 * Secrets: a diff section whose file the secrets classifier flags by name, or whose text holds a
 * secret shape, is replaced by a one-line note, unless the call named that very path (the gate
 * then asked about it already).
 */
import { posix, resolve } from "node:path";
import { classifySecretContent, classifySecretFile, classifySecretPath } from "../secrets/classify.ts";
import { splitRefPath } from "../approval/write-paths.ts";
import { resolveInWorkspace, toWorkspacePath } from "./jail.ts";

/** Reads `git rev-parse --show-prefix` (the workspace's folder inside its repository, `` or `sub/`). */
export type PrefixReader = () => Promise<string>;

/** The workspace-relative pathspec of `path` (`.` for the root). Throws the jail's errors. */
export function scopePath(root: string, path: string): string {
  return toWorkspacePath(root, resolveInWorkspace(root, path));
}

/** The workspace-relative form of PATH in `REF:PATH`, as git reads it from `prefix`; throws when it leaves the workspace. */
export function scopeRefPath(path: string, prefix: string): string {
  const fromCwd = path === "." || path === ".." || path.startsWith("./") || path.startsWith("../");
  const inRepo = posix.normalize(fromCwd ? `${prefix}${path}` : path || ".");
  const top = prefix.replace(/\/$/, "");
  const escapes = () =>
    new Error(`Path escapes workspace: ${path} (in REF:PATH git reads PATH from the repository's top; start it with ./ to mean the workspace).`);
  if (inRepo === ".." || inRepo.startsWith("../") || posix.isAbsolute(inRepo)) throw escapes();
  if (!top) return inRepo === "." ? "." : inRepo.replace(/\/$/, "");
  if (inRepo === top || inRepo === `${top}/`) return ".";
  if (!inRepo.startsWith(`${top}/`)) throw escapes();
  return inRepo.slice(top.length + 1).replace(/\/$/, "") || ".";
}

/** `ref` with its path part checked and rewritten relative to the workspace (`HEAD:./a.ts`), and that path. */
export async function scopeRef(ref: string, readPrefix: PrefixReader): Promise<{ ref: string; path?: string }> {
  const { rev, path } = splitRefPath(ref);
  if (path === undefined) return { ref };
  if (path.includes("\0")) throw new Error(`Invalid ref ${JSON.stringify(ref)}: it contains a NUL byte.`);
  const scoped = scopeRefPath(path, await readPrefix());
  return { ref: `${rev}:./${scoped === "." ? "" : scoped}`, path: scoped };
}

/**
 * `output` (a diff, or a commit and its diff) with every section about a possible secret replaced
 * by a note. `named` are the workspace paths the call named (exempt: the gate asked about them).
 */
export function withholdSecretDiffs(output: string, named: readonly string[] = []): string {
  const sections = output.split(/^(?=diff --git )/m);
  return sections
    .map((section) => {
      if (!section.startsWith("diff --git ")) return section;
      const header = section.slice(0, section.indexOf("\n") === -1 ? undefined : section.indexOf("\n"));
      const files = _headerPaths(header);
      if (files.some((file) => named.some((path) => file === path || file.endsWith(`/${path}`)))) return section;
      const why = files.map((file) => classifySecretPath(file)).find(Boolean) ?? classifySecretContent(section);
      if (!why) return section;
      const shown = files.at(-1) ?? "a file";
      const note = `[withheld: ${shown} may hold secrets (${why}). Ask the user, or name it in git_show REF:PATH, which asks them.]`;
      return `${header}\n${note}${section.endsWith("\n") ? "\n" : ""}`;
    })
    .join("");
}

/**
 * Throws when the blob or tree `git show REF:PATH` printed holds a secret shape and the gate had
 * no reason to ask about `path` (its name and the working-tree file say nothing).
 */
export function checkShownBlob(root: string, ref: string, path: string, output: string): void {
  const why = classifySecretContent(output);
  if (!why) return;
  if (classifySecretPath(path) || classifySecretFile(resolve(root, path), root)) return;
  throw new Error(`Withheld ${ref}: it holds ${why}. Ask the user to share what you need from it.`);
}

function _headerPaths(header: string): string[] {
  const rest = header.slice("diff --git a/".length);
  const split = rest.indexOf(" b/");
  if (split === -1) return [rest];
  return [rest.slice(0, split), rest.slice(rest.lastIndexOf(" b/") + 3)];
}
