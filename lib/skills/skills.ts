/**
 * Skills: markdown instructions for one kind of work, loaded by the model on demand. Only the
 * catalogue (name + description) goes into the system prompt; a body is read when the `skill`
 * tool asks for it.
 *
 * File format (Agent Skills): a first line `---`, then single-line `key: value` pairs, then a
 * closing `---` line, then the markdown body. Only `name` and `description` are read: keys are
 * case-insensitive, values lose one pair of surrounding quotes, indented lines (nested YAML) are
 * ignored, the first occurrence of a key wins. Both fields are required. The body is trimmed and
 * cut at SKILL_BODY_CAP characters.
 *
 * Origins, later overriding earlier by name (compared case-insensitively):
 *   builtin   compiled in from skills/<name>/SKILL.md
 *   registry  <stateDir>/registry/skills/*.md
 *   user      ~/.claude/skills/<name>/SKILL.md (the convention other agents read), then
 *             <stateDir>/skills/*.md and <stateDir>/skills/<name>/SKILL.md
 *   project   <cwd>/.claude/skills/<name>/SKILL.md, then <cwd>/.shiro/skills/*.md and
 *             <cwd>/.shiro/skills/<name>/SKILL.md
 *
 * Contracts:
 * - `loadSkills` never throws. A file it cannot use is listed in `skipped` with a one-line reason;
 *   a folder that does not exist is simply empty.
 * - Loading reads only the first HEAD_BYTES of each file. `body()` reads the file again on every
 *   call, so an edit made after loading is seen, and throws when the file can no longer be read.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { BUILTIN_SKILL_FILES } from "../../skills/index.ts";

export type SkillOrigin = "builtin" | "registry" | "user" | "project";

export interface Skill {
  name: string;
  /** One line saying when to load the skill; shown in the system prompt. */
  description: string;
  origin: SkillOrigin;
  /** The file it was read from; undefined for builtin skills. */
  path?: string;
  /** The instructions, trimmed and at most SKILL_BODY_CAP characters. Throws if the file is gone. */
  body(): string;
}

export interface SkippedSkill {
  /** The file (or folder) that was not used; `builtin:<name>` for a compiled-in one. */
  path: string;
  reason: string;
}

export interface LoadSkillsOptions {
  /** The workspace root; project skills live in `<cwd>/.shiro/skills`. */
  cwd: string;
  /** The state folder (`stateDir()` from lib/platform/paths.ts). */
  stateDir: string;
  /** Defaults to true. */
  includeBuiltin?: boolean;
  /** The user's home, for `~/.claude/skills` (default: os.homedir()). */
  home?: string;
}

export interface LoadSkillsResult {
  /** Sorted by lowercased name; at most one skill per name, compared case-insensitively. */
  skills: Skill[];
  skipped: SkippedSkill[];
}

/** The frontmatter fields of a skill file, or why the file cannot be a skill. */
export type SkillHeaderResult = { ok: true; name: string; description: string; bodyStart: number } | { ok: false; reason: string };

export const SKILL_BODY_CAP = 20_000;
/** How much of a file loading reads: the frontmatter must close within it. */
export const HEAD_BYTES = 8_192;
const _NAME_LIMIT = 64;
const _DESCRIPTION_LIMIT = 1_024;
const _NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
// 20,000 characters take at most 80,000 bytes of UTF-8; the rest is room for the frontmatter.
const _BODY_READ_BYTES = 128 * 1024;
const _FENCE = /^---[ \t]*$/;

export function loadSkills(options: LoadSkillsOptions): LoadSkillsResult {
  const byName = new Map<string, Skill>();
  const skipped: SkippedSkill[] = [];
  const add = (skill: Skill) => byName.set(skill.name.toLowerCase(), skill);
  if (options.includeBuiltin !== false) {
    for (const [folder, text] of Object.entries(BUILTIN_SKILL_FILES)) {
      const skill = _parseBuiltin(text);
      if (typeof skill === "string") skipped.push({ path: `builtin:${folder}`, reason: skill });
      else add(skill);
    }
  }
  const sources: Array<[SkillOrigin, string, boolean]> = [
    ["registry", join(options.stateDir, "registry", "skills"), false],
    ["user", join(options.home ?? homedir(), ".claude", "skills"), true],
    ["user", join(options.stateDir, "skills"), true],
    ["project", join(options.cwd, ".claude", "skills"), true],
    ["project", join(options.cwd, ".shiro", "skills"), true],
  ];
  for (const [origin, dir, nested] of sources) {
    for (const path of _listSkillFiles(dir, nested, skipped)) {
      const skill = _loadSkillFile(path, origin);
      if (typeof skill === "string") skipped.push({ path, reason: skill });
      else add(skill);
    }
  }
  const skills = [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, skill]) => skill);
  return { skills, skipped };
}

/**
 * Reads `name` and `description` from the start of a skill file. `text` may be only the head of
 * the file, as long as the frontmatter closes inside it. `bodyStart` is where the body begins.
 */
export function readSkillHeader(text: string): SkillHeaderResult {
  const split = _splitFrontmatter(text);
  if (split === "none") return { ok: false, reason: 'no frontmatter: the file must start with a "---" line' };
  if (split === "unclosed") return { ok: false, reason: 'the frontmatter has no closing "---" line' };
  const fields = new Map<string, string>();
  for (const line of split.lines) {
    if (/^\s/.test(line)) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (!fields.has(key)) fields.set(key, _unquote(line.slice(colon + 1).trim()));
  }
  const name = fields.get("name") ?? "";
  const description = fields.get("description") ?? "";
  if (!name && !description) return { ok: false, reason: "no name or description in the frontmatter" };
  if (!name) return { ok: false, reason: "no name in the frontmatter" };
  if (!description) return { ok: false, reason: "no description in the frontmatter" };
  if (name.length > _NAME_LIMIT || !_NAME_PATTERN.test(name)) {
    return { ok: false, reason: `name "${name}" must be at most ${_NAME_LIMIT} letters, digits, dots, dashes or underscores` };
  }
  if (description.length > _DESCRIPTION_LIMIT) {
    return { ok: false, reason: `the description is ${description.length} characters, over the ${_DESCRIPTION_LIMIT} limit` };
  }
  return { ok: true, name, description, bodyStart: split.bodyStart };
}

/** The body of a whole skill file: after the frontmatter (if any), trimmed, cut at SKILL_BODY_CAP. */
export function extractSkillBody(text: string): string {
  const split = _splitFrontmatter(text);
  const body = typeof split === "string" ? text.replace(/^\uFEFF/, "") : text.slice(split.bodyStart);
  return body.trim().slice(0, SKILL_BODY_CAP);
}

/**
 * The system-prompt block: an intro line, then `- <name>: <description>` per skill.
 * "" when there are none, so the prompt carries no empty section.
 */
export function renderSkillCatalogue(skills: readonly Pick<Skill, "name" | "description">[]): string {
  if (skills.length === 0) return "";
  return [
    "Skills: before starting work that matches one of these, load it with the `skill` tool and follow its instructions.",
    ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
  ].join("\n");
}

function _parseBuiltin(text: string): Skill | string {
  const header = readSkillHeader(text);
  if (!header.ok) return header.reason;
  const body = extractSkillBody(text);
  return { name: header.name, description: header.description, origin: "builtin", body: () => body };
}

function _loadSkillFile(path: string, origin: SkillOrigin): Skill | string {
  let head: { text: string; truncated: boolean };
  try {
    head = _readHead(path, HEAD_BYTES);
  } catch (error) {
    return `cannot read the file (${_describeError(error)})`;
  }
  // A cut-off last line could be half of a fence; only whole lines count.
  const text = head.truncated ? head.text.slice(0, head.text.lastIndexOf("\n") + 1) : head.text;
  const header = readSkillHeader(text);
  if (!header.ok) {
    return head.truncated && _splitFrontmatter(text) === "unclosed"
      ? `the frontmatter has no closing "---" line in the first ${HEAD_BYTES} bytes`
      : header.reason;
  }
  return { name: header.name, description: header.description, origin, path, body: () => _readBody(path) };
}

function _readBody(path: string): string {
  try {
    return extractSkillBody(_readHead(path, _BODY_READ_BYTES).text);
  } catch (error) {
    throw new Error(`cannot read the skill file ${path} (${_describeError(error)})`);
  }
}

/** `*.md` files in `dir`, plus `<sub>/SKILL.md` when `nested`, in sorted order of entry name. */
function _listSkillFiles(dir: string, nested: boolean, skipped: SkippedSkill[]): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (error) {
    if (_errorCode(error) !== "ENOENT") skipped.push({ path: dir, reason: `cannot list the folder (${_describeError(error)})` });
    return [];
  }
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.startsWith(".")) continue;
    const path = join(dir, entry);
    try {
      const stats = statSync(path);
      if (stats.isFile() && entry.endsWith(".md")) files.push(path);
      else if (nested && stats.isDirectory() && _isFile(join(path, "SKILL.md"))) files.push(join(path, "SKILL.md"));
    } catch (error) {
      skipped.push({ path, reason: `cannot read it (${_describeError(error)})` });
    }
  }
  return files;
}

/** At most `limit` bytes from the start of a file, decoded as UTF-8. */
function _readHead(path: string, limit: number): { text: string; truncated: boolean } {
  const fd = openSync(path, "r");
  try {
    const buffer = new Uint8Array(limit + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    const truncated = filled > limit;
    return { text: new TextDecoder().decode(buffer.subarray(0, Math.min(filled, limit))), truncated };
  } finally {
    closeSync(fd);
  }
}

function _isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

type _Frontmatter = { lines: string[]; bodyStart: number };

function _splitFrontmatter(text: string): _Frontmatter | "none" | "unclosed" {
  let lineStart = text.startsWith("\uFEFF") ? 1 : 0;
  const lines: string[] = [];
  let opened = false;
  while (lineStart < text.length) {
    const newline = text.indexOf("\n", lineStart);
    const next = newline === -1 ? text.length : newline + 1;
    const line = text.slice(lineStart, newline === -1 ? text.length : newline).replace(/\r$/, "");
    if (!opened) {
      if (!_FENCE.test(line)) return "none";
      opened = true;
    } else if (_FENCE.test(line)) {
      return { lines, bodyStart: next };
    } else {
      lines.push(line);
    }
    lineStart = next;
  }
  return opened ? "unclosed" : "none";
}

function _unquote(value: string): string {
  const first = value[0];
  if (value.length >= 2 && (first === '"' || first === "'") && value.endsWith(first)) return value.slice(1, -1).trim();
  return value;
}

function _errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function _describeError(error: unknown): string {
  return _errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}
