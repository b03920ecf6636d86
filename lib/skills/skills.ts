/**
 * Skills: markdown instructions for one kind of work, loaded by the model on demand. Only the
 * catalogue (name + description) goes into the system prompt; a body is read when the `skill`
 * tool asks for it.
 *
 * File format (Agent Skills): a first line `---`, then YAML (parsed by the `yaml` package, so block
 * scalars, quoting and lists read as YAML means them), then a closing `---` line, then the markdown
 * body. Only `name` and `description` are read (keys case-insensitive); a frontmatter that is not
 * valid YAML (Claude Code accepts `description: Use when: x`) falls back to single-line `key: value`
 * pairs. `description` is required; a missing `name` is the skill's folder name. A multi-line
 * description is one line in the catalogue. A body longer than SKILL_BODY_CAP characters is cut
 * at a line end and ends with a marker naming the file and the `read_file` offset of the rest.
 *
 * Origins, later overriding earlier by name (compared case-insensitively):
 *   builtin   compiled in from skills/<name>/SKILL.md
 *   registry  <stateDir>/registry/skills/*.md
 *   user      ~/.gemini/skills, ~/.agents/skills, ~/.codex/skills, ~/.claude/skills (<name>/SKILL.md
 *             each: the conventions of other agents; `.agents` after `.gemini`, as Gemini CLI ranks
 *             its alias), then <stateDir>/skills/*.md and <stateDir>/skills/<name>/SKILL.md
 *   project   <cwd>/.gemini/skills, <cwd>/.agents/skills, <cwd>/.codex/skills, <cwd>/.claude/skills
 *             (<name>/SKILL.md each), then <cwd>/.shiro/skills/*.md and <cwd>/.shiro/skills/<name>/SKILL.md
 * Only shiro's own folders take loose `*.md` files; a README.md there, and any loose file in the
 * other agents' folders, is not a skill and is passed over without a notice.
 *
 * Contracts:
 * - `loadSkills` never throws. A file it cannot use is listed in `skipped` with a one-line reason;
 *   a folder that does not exist is simply empty.
 * - A frontmatter of plain `key: value` lines is read without the YAML parser; any other needs it
 *   loaded (`loadSkillYaml`, a third of the start-up path's JavaScript otherwise). Until it is,
 *   `readSkillHeader` answers `needsYaml` for such a file and `loadSkills` says so in its result;
 *   `loadSkillsWithYaml` loads it only then and loads again.
 * - Loading reads only the first HEAD_BYTES of each file. `body()` reads the file again on every
 *   call, so an edit made after loading is seen, and throws when the file can no longer be read.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { BUILTIN_SKILL_FILES } from "../../skills/index.ts";
import { homeDirectory } from "../platform/runtime.ts";

export type SkillOrigin = "builtin" | "registry" | "user" | "project";

export interface Skill {
  name: string;
  /** One line saying when to load the skill; shown in the system prompt. */
  description: string;
  origin: SkillOrigin;
  /** The file it was read from; undefined for builtin skills. */
  path?: string;
  /** The folder the skill lives in (files its body names are relative to it); undefined for builtin skills. */
  folder?: string;
  /** The instructions, trimmed; past SKILL_BODY_CAP characters cut with a marker saying how to read the rest. Throws if the file is gone. */
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
  /** Some frontmatter needs the YAML parser, which is not loaded: those files are in neither list. */
  needsYaml?: true;
}

/** The frontmatter fields of a skill file, or why the file cannot be a skill (`needsYaml`: not until the YAML parser is loaded). */
export type SkillHeaderResult = { ok: true; name: string; description: string; bodyStart: number } | { ok: false; reason: string; needsYaml?: true };

let _parseYaml: ((text: string) => unknown) | undefined;
const _NEEDS_YAML = "this frontmatter needs the YAML parser: await loadSkillYaml() first";

/** Loads the YAML parser for frontmatter that is more than plain `key: value` lines; once is enough. */
export async function loadSkillYaml(): Promise<void> {
  _parseYaml ??= (await import("yaml")).parse;
}

/** `loadSkills`, loading the YAML parser first only when some frontmatter needs it. */
export async function loadSkillsWithYaml(options: LoadSkillsOptions): Promise<LoadSkillsResult> {
  const first = loadSkills(options);
  if (!first.needsYaml) return first;
  await loadSkillYaml();
  return loadSkills(options);
}

export const SKILL_BODY_CAP = 20_000;
/** How much of a file loading reads: the frontmatter must close within it. */
export const HEAD_BYTES = 8_192;
const _NAME_LIMIT = 64;
const _DESCRIPTION_LIMIT = 1_024;
const _NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const _FENCE = /^---[ \t]*$/;

export function loadSkills(options: LoadSkillsOptions): LoadSkillsResult {
  const byName = new Map<string, Skill>();
  const skipped: SkippedSkill[] = [];
  const add = (skill: Skill) => byName.set(skill.name.toLowerCase(), skill);
  if (options.includeBuiltin !== false) {
    for (const [folder, text] of Object.entries(BUILTIN_SKILL_FILES)) {
      const skill = _parseBuiltin(folder, text);
      if (typeof skill === "string") skipped.push({ path: `builtin:${folder}`, reason: skill });
      else add(skill);
    }
  }
  const home = options.home ?? homeDirectory();
  // The other agents' skill folders, in this order, in the home folder and in the project.
  const foreign = (origin: SkillOrigin, base: string) =>
    [".gemini", ".agents", ".codex", ".claude"].map((folder): [SkillOrigin, string, boolean] => [origin, join(base, folder, "skills"), false]);
  const sources: Array<[SkillOrigin, string, boolean]> = [
    ["registry", join(options.stateDir, "registry", "skills"), true],
    ...foreign("user", home),
    ["user", join(options.stateDir, "skills"), true],
    ...foreign("project", options.cwd),
    ["project", join(options.cwd, ".shiro", "skills"), true],
  ];
  for (const [origin, dir, own] of sources) {
    for (const path of _listSkillFiles(dir, own, origin !== "registry", skipped)) {
      const skill = _loadSkillFile(path, origin);
      if (typeof skill === "string") skipped.push({ path, reason: skill });
      else add(skill);
    }
  }
  const skills = [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, skill]) => skill);
  if (!skipped.some((skip) => skip.reason === _NEEDS_YAML)) return { skills, skipped };
  return { skills, skipped: skipped.filter((skip) => skip.reason !== _NEEDS_YAML), needsYaml: true };
}

/**
 * Reads `name` and `description` from the start of a skill file. `text` may be only the head of
 * the file, as long as the frontmatter closes inside it. `bodyStart` is where the body begins.
 */
export function readSkillHeader(text: string, folderName?: string): SkillHeaderResult {
  const split = _splitFrontmatter(text);
  if (split === "none") return { ok: false, reason: 'no frontmatter: the file must start with a "---" line' };
  if (split === "unclosed") return { ok: false, reason: 'the frontmatter has no closing "---" line' };
  const plain = _readPlainFields(split.lines);
  if (!plain && !_parseYaml) return { ok: false, reason: _NEEDS_YAML, needsYaml: true };
  const fields = plain ?? _readYamlFields(split.lines) ?? _readLineFields(split.lines);
  const name = fields.get("name") || folderName || "";
  const description = (fields.get("description") ?? "").replace(/\s+/g, " ").trim();
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

/**
 * The body of a whole skill file: after the frontmatter (if any), trimmed. Past SKILL_BODY_CAP
 * characters it is cut at the last line end before the cap, and a marker says how many characters
 * are left and where they are: `path` from line N (the file's own line numbers, for `read_file`).
 */
export function extractSkillBody(text: string, path?: string): string {
  const split = _splitFrontmatter(text);
  const start = typeof split === "string" ? (text.startsWith("\uFEFF") ? 1 : 0) : split.bodyStart;
  const raw = text.slice(start);
  const lead = raw.length - raw.trimStart().length;
  const body = raw.trim();
  if (body.length <= SKILL_BODY_CAP) return body;
  const lineEnd = body.lastIndexOf("\n", SKILL_BODY_CAP);
  const cut = lineEnd > SKILL_BODY_CAP / 2 ? lineEnd : SKILL_BODY_CAP;
  const kept = body.slice(0, cut).trimEnd();
  const nextLine = text.slice(0, start + lead + cut + (body[cut] === "\n" ? 1 : 0)).split("\n").length;
  const where = path ? `read the rest with read_file path="${path}" offset=${nextLine}` : "the rest is not shown";
  return `${kept}\n\n[skill body cut here: ${body.length - cut} of ${body.length} characters remain; ${where}]`;
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

/**
 * The compiled-in skills' headers, read when the binary was built (.ci/release/build.ts), by
 * folder: a start reads none of them. A source run has none; a header that could not be read then
 * (none, or one needing the YAML parser) is left out and read at start as before.
 */
declare const SHIRO_BUILTIN_SKILLS: Readonly<Record<string, { name: string; description: string }>> | undefined;

/** The value of SHIRO_BUILTIN_SKILLS: each compiled-in skill's name and description that reads without the YAML parser. */
export function builtinSkillHeaders(): Record<string, { name: string; description: string }> {
  const headers: Record<string, { name: string; description: string }> = {};
  for (const [folder, text] of Object.entries(BUILTIN_SKILL_FILES)) {
    const header = readSkillHeader(text);
    if (header.ok) headers[folder] = { name: header.name, description: header.description };
  }
  return headers;
}

/** A compiled-in skill: its header as baked (else read now: the catalogue needs it), its body only when loaded. */
function _parseBuiltin(folder: string, text: string): Skill | string {
  const baked = typeof SHIRO_BUILTIN_SKILLS === "object" ? SHIRO_BUILTIN_SKILLS[folder] : undefined;
  const header = baked ? { ok: true as const, ...baked } : readSkillHeader(text);
  if (!header.ok) return header.reason;
  let body: string | undefined;
  return { name: header.name, description: header.description, origin: "builtin", body: () => (body ??= extractSkillBody(text)) };
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
  const folder = basename(path) === "SKILL.md" ? basename(dirname(path)) : undefined;
  const header = readSkillHeader(text, folder);
  if (!header.ok) {
    return head.truncated && _splitFrontmatter(text) === "unclosed"
      ? `the frontmatter has no closing "---" line in the first ${HEAD_BYTES} bytes`
      : header.reason;
  }
  return { name: header.name, description: header.description, origin, path, folder: dirname(path), body: () => _readBody(path) };
}

/** A body is read up to this many bytes; a larger file is cut with the marker too. */
const _BODY_READ_BYTES = 4 * 1024 * 1024;

function _readBody(path: string): string {
  try {
    return extractSkillBody(_readHead(path, _BODY_READ_BYTES).text, path);
  } catch (error) {
    throw new Error(`cannot read the skill file ${path} (${_describeError(error)})`);
  }
}

/**
 * `<sub>/SKILL.md` files in `dir` when `nested`, plus loose `*.md` files when `loose` (shiro's own
 * folders, README*.md excepted), in sorted order of entry name.
 */
function _listSkillFiles(dir: string, loose: boolean, nested: boolean, skipped: SkippedSkill[]): string[] {
  let entries: string[];
  try {
    // Most of these folders do not exist: learnt from a stat, without raising an error to list nothing.
    if (!statSync(dir, { throwIfNoEntry: false })) return [];
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
      if (stats.isFile() && loose && entry.endsWith(".md") && !/^readme/i.test(entry)) files.push(path);
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

/** A plain `key: value` line whose value YAML reads as that very text (no quote, comment, flow, tag, anchor, bool, null or number). */
const _PLAIN_LINE = /^([A-Za-z][\w.-]*):[ ]+([A-Za-z](?:[^#:\t]|:(?! ))*?)[ ]*$/;
const _YAML_WORDS = /^(?:true|false|null|yes|no|on|off|y|n)$/i;

/**
 * The frontmatter read without the YAML parser when every line is a plain `key: value` (the
 * builtin skills and most others): the same fields YAML gives, without its cost at every start.
 * Undefined for anything else, a repeated key included, which then goes to the YAML reader.
 */
function _readPlainFields(lines: readonly string[]): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  for (const line of lines) {
    if (line.trim() === "") continue;
    const match = _PLAIN_LINE.exec(line);
    if (!match || _YAML_WORDS.test(match[2]!)) return undefined;
    const key = match[1]!.toLowerCase();
    if (fields.has(key)) return undefined;
    fields.set(key, match[2]!);
  }
  return fields;
}

/** The frontmatter as YAML, string fields by lowercased key; undefined when it is not a YAML mapping. */
function _readYamlFields(lines: readonly string[]): Map<string, string> | undefined {
  let parsed: unknown;
  try {
    parsed = _parseYaml!(lines.join("\n"));
  } catch {
    return undefined;
  }
  if (parsed === null || parsed === undefined) return new Map();
  if (typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const fields = new Map<string, string>();
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    const lower = key.toLowerCase();
    if (fields.has(lower)) continue;
    if (typeof value === "string") fields.set(lower, value.trim());
    else if (typeof value === "number" || typeof value === "boolean") fields.set(lower, String(value));
  }
  return fields;
}

/** Single-line `key: value` pairs, for a frontmatter YAML refuses (a colon inside an unquoted value). */
function _readLineFields(lines: readonly string[]): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of lines) {
    if (/^\s/.test(line)) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    if (!fields.has(key)) fields.set(key, _unquote(line.slice(colon + 1).trim()));
  }
  return fields;
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
