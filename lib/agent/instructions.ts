/**
 * Project instructions, as the agents that define them read them, each file once and in full
 * when the budget allows.
 *
 * Which files, outermost first:
 * - user level: `~/.codex/AGENTS.override.md`, else `~/.codex/AGENTS.md` (Codex's global file;
 *   `$CODEX_HOME` replaces `~/.codex`), then `~/.claude/CLAUDE.md` (Claude Code's user memory),
 *   then `~/.gemini/GEMINI.md` (Gemini CLI's global context file);
 * - per folder from the git root (the nearest ancestor holding `.git`) down to cwd: in each,
 *   `AGENTS.override.md` else `AGENTS.md` (Codex: the override replaces that folder's AGENTS.md),
 *   then `CLAUDE.md`, `CLAUDE.local.md` (Claude Code's private project file), `GEMINI.md` (Gemini
 *   CLI's workspace file, read in the same folders), `.shiro.md`.
 *   Outside a repository the folders run from cwd up to the home folder when cwd lies inside it,
 *   else cwd alone: never a folder above the home folder (`/tmp/AGENTS.md` is anyone's to write).
 * - `@path` imports in CLAUDE.md and GEMINI.md files (Claude Code's syntax, which Gemini CLI's
 *   `@./file.md` shares: a token `@path` outside code, relative
 *   to the importing file, `~/` for home), followed up to IMPORT_DEPTH hops, each after the file
 *   importing it. An import is followed only inside the importing file's own tree (the project,
 *   i.e. the top folder above, for project files; the home folder for user-level ones) or into
 *   `~/.claude/` (Claude Code's documented `@~/.claude/my-project-instructions.md`); nothing else
 *   of the home folder reaches the prompt through a cloned repository's CLAUDE.md.
 * A file is known by its real path: a CLAUDE.md that is a symlink to AGENTS.md loads once.
 *
 * Budget: INSTRUCTIONS_BUDGET tokens (a quarter of the characters) for all files together. Files
 * are taken in order; one that fits in what is left is kept whole. One that does not is cut at a
 * line end to what is left (at least MIN_SECTION tokens) and ends with a marker naming the file
 * and the `read_file` offset of the first line not shown, so the model can read on.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { isInside } from "../platform/path-inside.ts";
import { homeDirectory } from "../platform/runtime.ts";

export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "GEMINI.md", ".shiro.md"] as const;
/** Tokens for every instruction file together. */
export const INSTRUCTIONS_BUDGET = 24_000;
/** Tokens a file that does not fit still gets before its marker. */
export const MIN_SECTION = 1_000;
/** Hops of `@path` imports followed, as Claude Code. */
export const IMPORT_DEPTH = 5;

export interface InstructionFile {
  /** Path relative to the git root (or to cwd outside a repository), posix separators; `~/…` for user-level files. */
  label: string;
  path: string;
  text: string;
  /** True when the file was cut to the budget; `text` then ends with the marker. */
  truncated: boolean;
  /** The file that imported this one (its label), for an `@path` import. */
  importedBy?: string;
}

export interface LoadInstructionsOptions {
  home?: string;
  /** Default INSTRUCTIONS_BUDGET. */
  budgetTokens?: number;
  env?: Readonly<Record<string, string | undefined>>;
}

interface _Candidate {
  path: string;
  label: string;
  /** Where imports from this file may point. */
  tree: string;
  importedBy?: string;
  depth: number;
}

export function loadInstructions(cwd: string, options: LoadInstructionsOptions = {}): InstructionFile[] {
  const home = resolve(options.home ?? homeDirectory());
  const here = resolve(cwd);
  const gitRoot = _gitRoot(here);
  const top = gitRoot ?? _topOutsideRepository(here, home);
  const labelBase = gitRoot ?? here;
  const chain: string[] = [];
  for (let dir = here; ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dir === top || dirname(dir) === dir) break;
  }
  const codexHome = options.env?.CODEX_HOME ?? process.env.CODEX_HOME ?? join(home, ".codex");
  const userLabel = (path: string) => (isInside(home, path) ? `~/${relative(home, path).split("\\").join("/")}` : path);
  const candidates: _Candidate[] = [];
  const user = (path: string | undefined) => {
    if (path) candidates.push({ path, label: userLabel(path), tree: home, depth: 0 });
  };
  user(_firstExisting([join(codexHome, "AGENTS.override.md"), join(codexHome, "AGENTS.md")]));
  user(join(home, ".claude", "CLAUDE.md"));
  user(join(home, ".gemini", "GEMINI.md"));
  for (const dir of chain) {
    const names = [_firstExisting([join(dir, "AGENTS.override.md"), join(dir, "AGENTS.md")]), ...INSTRUCTION_FILES.slice(1).map((name) => join(dir, name))];
    for (const path of names) if (path) candidates.push({ path, label: relative(labelBase, path).split("\\").join("/") || path, tree: top, depth: 0 });
  }

  const seen = new Set<string>();
  const loaded: { candidate: _Candidate; text: string }[] = [];
  const visit = (candidate: _Candidate) => {
    let real: string;
    let text: string;
    try {
      real = realpathSync(candidate.path);
      if (seen.has(real)) return;
      text = readFileSync(real, "utf8");
    } catch {
      return;
    }
    seen.add(real);
    loaded.push({ candidate, text });
    if (!/(CLAUDE(\.local)?|GEMINI)\.md$/.test(candidate.path) && candidate.depth === 0) return;
    if (candidate.depth >= IMPORT_DEPTH) return;
    for (const target of findImports(text)) {
      const path = target.startsWith("~/") ? join(home, target.slice(2)) : resolve(dirname(candidate.path), target);
      let realTarget: string;
      try {
        realTarget = realpathSync(path);
      } catch {
        continue;
      }
      // Claude Code's documented personal import, `@~/.claude/…`, is the one way out of a project's tree.
      if (!isInside(_real(candidate.tree), realTarget) && !isInside(_real(join(home, ".claude")), realTarget)) continue;
      const label = candidate.tree === home || !isInside(top, path) ? userLabel(path) : relative(labelBase, path).split("\\").join("/");
      visit({ path, label, tree: candidate.tree, importedBy: candidate.label, depth: candidate.depth + 1 });
    }
  };
  for (const candidate of candidates) visit(candidate);
  return _fitBudget(loaded, options.budgetTokens ?? INSTRUCTIONS_BUDGET);
}

/**
 * The `@path` imports of a CLAUDE.md, in order: tokens `@` + a path (holding a `/` or a `.`, not an
 * e-mail address), outside fenced code blocks and inline code spans.
 */
export function findImports(text: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, " ");
    for (const match of prose.matchAll(/(^|[\s(])@((?:~\/|\.{1,2}\/|\/)?[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-/][A-Za-z0-9_.\-/]*)/g)) {
      const path = match[2]!.replace(/[.,;:)]+$/, "");
      if (path.includes("/") || path.includes(".")) found.push(path);
    }
  }
  return found;
}

export function renderInstructions(files: InstructionFile[]): string {
  if (files.length === 0) return "";
  return [
    "# Project instructions",
    "Standing orders from the project's own files, outermost first. Follow them, but they never override the safety rules above.",
    ...files.map((file) => `--- ${file.label}${file.importedBy ? ` (imported by ${file.importedBy})` : ""} ---\n${file.text}`),
  ].join("\n\n");
}

function _fitBudget(loaded: readonly { candidate: _Candidate; text: string }[], budgetTokens: number): InstructionFile[] {
  let left = budgetTokens * 4;
  return loaded.map(({ candidate, text }) => {
    const base = { label: candidate.label, path: candidate.path, ...(candidate.importedBy ? { importedBy: candidate.importedBy } : {}) };
    const whole = text.trim();
    const room = Math.max(left, MIN_SECTION * 4);
    if (whole.length <= room) {
      left = Math.max(0, left - whole.length);
      return { ...base, text: whole, truncated: false };
    }
    left = Math.max(0, left - room);
    const lead = text.length - text.trimStart().length;
    const lineEnd = whole.lastIndexOf("\n", room);
    const cut = lineEnd > 0 ? lineEnd : room;
    const nextLine = text.slice(0, lead + cut + 1).split("\n").length;
    const lines = text.trimEnd().split("\n").length;
    const marker = `[instructions cut here to fit the budget: lines ${nextLine}–${lines} of ${lines} not shown; read them with read_file path="${candidate.path}" offset=${nextLine}]`;
    return { ...base, text: `${whole.slice(0, cut).trimEnd()}\n\n${marker}`, truncated: true };
  });
}

/** The git root containing cwd, or undefined outside a repository. */
function _gitRoot(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The outermost folder read outside a repository: the home folder when cwd is inside it, else cwd. */
function _topOutsideRepository(cwd: string, home: string): string {
  return isInside(home, cwd) ? home : cwd;
}

function _firstExisting(paths: readonly string[]): string | undefined {
  return paths.find((path) => existsSync(path));
}

function _real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
