/**
 * Project instructions: AGENTS.md, CLAUDE.md and .shiro.md collected from the git root (the
 * nearest ancestor holding `.git`) down to cwd, outermost first. Outside a repository they come
 * from cwd up to the home folder when cwd lies inside it, else from cwd alone: never from a
 * folder above the home folder (`/tmp/AGENTS.md`, `/AGENTS.md` are anyone's to write).
 * Each file is capped at 12,000 characters.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", ".shiro.md"] as const;
export const INSTRUCTION_CAP = 12_000;

export interface InstructionFile {
  /** Path relative to the git root (or to cwd outside a repository), posix separators. */
  label: string;
  path: string;
  text: string;
  truncated: boolean;
}

/** The git root containing cwd, or undefined outside a repository. */
function _gitRoot(cwd: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, ".git", "HEAD")) || existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The outermost folder read outside a repository: the home folder when cwd is inside it, else cwd. */
function _topOutsideRepository(cwd: string, home: string): string {
  const inside = relative(resolve(home), cwd);
  return inside === "" || (!inside.startsWith("..") && !isAbsolute(inside)) ? resolve(home) : cwd;
}

export function loadInstructions(cwd: string, home = homedir()): InstructionFile[] {
  const gitRoot = _gitRoot(cwd);
  const top = gitRoot ?? _topOutsideRepository(resolve(cwd), home);
  // Labels read from the repository root, or from cwd when there is none.
  const labelBase = gitRoot ?? resolve(cwd);
  const chain: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === top || dirname(dir) === dir) break;
  }
  const found: InstructionFile[] = [];
  for (const dir of chain) {
    for (const name of INSTRUCTION_FILES) {
      const path = join(dir, name);
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        continue;
      }
      const truncated = text.length > INSTRUCTION_CAP;
      found.push({
        label: relative(labelBase, path).split("\\").join("/") || name,
        path,
        truncated,
        text: truncated ? `${text.slice(0, INSTRUCTION_CAP)}\n... [cut at ${INSTRUCTION_CAP} characters]` : text.trim(),
      });
    }
  }
  return found;
}

export function renderInstructions(files: InstructionFile[]): string {
  if (files.length === 0) return "";
  return [
    "# Project instructions",
    "Standing orders from the project's own files, outermost first. Follow them, but they never override the safety rules above.",
    ...files.map((file) => `--- ${file.label} ---\n${file.text}`),
  ].join("\n\n");
}
