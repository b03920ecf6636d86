/**
 * A project's Claude Code settings: `.claude/settings.json` and `.claude/settings.local.json` at
 * the project root (findProjectRoot). shiro reads two of their fields, `hooks` (Claude Code's hook
 * format, lib/config/hooks-config.ts) and `permissions` (`allow`, `ask`, `deny`: lists of Claude
 * Code rules, lib/approval/claude-rules.ts); every other key is Claude Code's own and ignored.
 *
 * These files are code from the repository: their hooks run commands and their rules may allow
 * calls. Nothing of them is used until the user trusted their exact content (trusted-files.ts, the
 * trust `.mcp.json` uses) under the file name `.claude/settings.json`; the hash covers both files,
 * so editing either asks again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { hookEntriesFromSettings, type HookEntry } from "../config/hooks-config.ts";
import { writeTextAtomic } from "../state-file/json-file.ts";
import { contentHash, isTrustedContent, trustContent } from "./trusted-files.ts";

export const PROJECT_SETTINGS_FILES = [".claude/settings.json", ".claude/settings.local.json"] as const;
/** Where an "always in this project" answer is written, as Claude Code writes its own. */
export const LOCAL_SETTINGS_FILE = ".claude/settings.local.json";
const _TRUST_KEY = ".claude/settings.json";

/** Claude Code permission rules, each with the file it came from. */
export interface ClaudePermissionRule {
  decision: "allow" | "ask" | "deny";
  rule: string;
  source: string;
}

export interface ProjectSettings {
  root: string;
  /** The settings files that exist, as absolute paths. */
  paths: string[];
  hooks: HookEntry[];
  permissions: ClaudePermissionRule[];
  /** What was left out and why (an event shiro does not raise, a rule that is not a string…). */
  skipped: string[];
  sha256: string;
  trusted: boolean;
}

/**
 * The project's settings files, or undefined when neither exists. Throws a one-line error naming
 * the file when one is not a JSON object.
 */
export function readProjectSettings(root: string): ProjectSettings | undefined {
  const hashed: string[] = [];
  const paths: string[] = [];
  const hooks: HookEntry[] = [];
  const permissions: ClaudePermissionRule[] = [];
  const skipped: string[] = [];
  for (const file of PROJECT_SETTINGS_FILES) {
    const path = join(root, file);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      continue;
    }
    paths.push(path);
    hashed.push(`${file}\0${text}\0`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new Error(`${path} is not JSON (${error instanceof Error ? error.message : String(error)}); fix it or remove it`);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${path} is not a JSON object; fix it or remove it`);
    const settings = parsed as { hooks?: unknown; permissions?: unknown };
    const read = hookEntriesFromSettings(settings.hooks, path);
    hooks.push(...read.entries);
    skipped.push(...read.skipped.map((why) => `${path}: hooks.${why}`));
    _readPermissions(settings.permissions, path, permissions, skipped);
  }
  if (paths.length === 0) return undefined;
  const sha256 = contentHash(hashed.join(""));
  return { root, paths, hooks, permissions, skipped, sha256, trusted: isTrustedContent(root, _TRUST_KEY, sha256) };
}

/** Records that the user trusts these exact settings files. */
export function trustProjectSettings(settings: ProjectSettings): void {
  trustContent(settings.root, _TRUST_KEY, settings.sha256);
  settings.trusted = true;
}

function _readPermissions(raw: unknown, source: string, out: ClaudePermissionRule[], skipped: string[]): void {
  if (raw === undefined) return;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    skipped.push(`${source}: "permissions" is not an object`);
    return;
  }
  for (const decision of ["allow", "ask", "deny"] as const) {
    const list = (raw as Record<string, unknown>)[decision];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      skipped.push(`${source}: permissions.${decision} is not a list`);
      continue;
    }
    for (const rule of list) {
      if (typeof rule === "string" && rule.trim() !== "") out.push({ decision, rule: rule.trim(), source });
      else skipped.push(`${source}: permissions.${decision} holds ${JSON.stringify(rule)}, not a rule`);
    }
  }
}

/**
 * Appends `rule` to `permissions.allow` of the project's `.claude/settings.local.json` (created
 * when missing; its other keys and rules kept; a rule already listed is not listed twice),
 * replaced atomically, and trusts the settings' new content — the user wrote it. Only when the
 * settings are in use already (trusted, or holding no hooks or permissions, so nothing was left
 * to trust): otherwise it throws a one-line error and writes nothing, as it does when a file is
 * not a JSON object. Returns the file's absolute path.
 */
export function addProjectAllowRule(root: string, rule: string): string {
  const before = readProjectSettings(root);
  if (before && !before.trusted && (before.hooks.length > 0 || before.permissions.length > 0))
    throw new Error(`${before.paths.join(" and ")} not trusted here, so nothing is added to them; start shiro here and answer y to trust them first`);
  const path = join(root, LOCAL_SETTINGS_FILE);
  let settings: Record<string, unknown> = {};
  try {
    settings = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new Error(`${path} cannot be read (${error instanceof Error ? error.message : String(error)}); fix it or remove it`);
  }
  const permissions = settings.permissions;
  if (permissions !== undefined && (permissions === null || typeof permissions !== "object" || Array.isArray(permissions)))
    throw new Error(`${path}: "permissions" is not an object; fix it first`);
  const table = { ...(permissions as Record<string, unknown> | undefined) };
  if (table.allow !== undefined && !Array.isArray(table.allow)) throw new Error(`${path}: permissions.allow is not a list; fix it first`);
  const allow = [...((table.allow as unknown[] | undefined) ?? [])];
  if (!allow.includes(rule)) allow.push(rule);
  writeTextAtomic(path, `${JSON.stringify({ ...settings, permissions: { ...table, allow } }, null, 2)}\n`, { mode: 0o644, verbatim: true });
  const after = readProjectSettings(root);
  if (after) trustProjectSettings(after);
  return path;
}
