/**
 * Validation of what the registry serves: the index, plugin manifests and skill files. Every
 * check returns a value (`{ ok: false, error }` with a one-line message), never throws, so the
 * installer can refuse with the message and the plugin loader can report and skip.
 *
 * Index: `{ "skills"?: [entry], "plugins"?: [entry] }`, at most MAX_ENTRIES each, entry
 * `{ name, description, url, author? }`; unknown keys are ignored. A second entry with the same
 * kind and name is dropped (the first is kept).
 * Manifest: `{ name, description, appendix?, deny: [{ tools, pathPattern?, commandPattern?, reason }] }`;
 * unknown keys are stripped, patterns must compile as case-insensitive regular expressions.
 */
import * as v from "valibot";
import { compileInstalledPlugin } from "../plugin-host.ts";
import type { InstalledPluginManifest } from "../../extension-api/plugin-api.ts";
import { readSkillHeader } from "../../skills/skills.ts";
import { describeIssue } from "../../state-file/json-file.ts";

export type RegistryKind = "skill" | "plugin";

/** One installable thing listed by the index. */
export interface RegistryEntry {
  kind: RegistryKind;
  name: string;
  description: string;
  /** Where the skill file or plugin manifest is fetched from: https, or http on localhost. */
  url: string;
  author?: string;
}

export type CheckResult<T> = { ok: true; value: T } | { ok: false; error: string };

export const MAX_ENTRIES = 500;
export const INDEX_BYTE_LIMIT = 262_144;
export const BODY_BYTE_LIMIT = 65_536;

const _ENTRY_NAME = /^[a-z0-9][a-z0-9-]{0,39}$/;
const _LOCAL_HOSTS = new Set(["localhost", "127.0.0.1"]);

/** True for names an entry may have: 1–40 lowercase letters, digits and dashes, starting with a letter or digit. */
export function isEntryName(name: string): boolean {
  return _ENTRY_NAME.test(name);
}

/** True for https URLs, and for plain http to localhost or 127.0.0.1 (local testing). */
export function isAllowedUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === "https:" || (parsed.protocol === "http:" && _LOCAL_HOSTS.has(parsed.hostname));
}

// valibot's object schemas accept arrays; none of ours may be one.
const _record = <const T extends v.ObjectEntries>(entries: T) =>
  v.pipe(
    v.custom<Record<string, unknown>>((input) => input !== null && typeof input === "object" && !Array.isArray(input), "must be an object"),
    v.object(entries),
  );

const _text = (max: number) => v.pipe(v.string("must be a string"), v.minLength(1, "must not be empty"), v.maxLength(max, `must be at most ${max} characters`));

const _NameSchema = v.pipe(v.string("must be a string"), v.regex(_ENTRY_NAME, "lowercase letters, digits, and dashes only"));

const _EntrySchema = _record({
  name: _NameSchema,
  description: _text(300),
  url: v.pipe(v.string("must be a string"), v.check(isAllowedUrl, "must be an https URL")),
  author: v.optional(v.pipe(v.string("must be a string"), v.maxLength(80, "must be at most 80 characters"))),
});

const _entries = v.optional(v.pipe(v.array(_EntrySchema, "must be an array"), v.maxLength(MAX_ENTRIES, `must have at most ${MAX_ENTRIES} entries`)));

const _IndexSchema = _record({ skills: _entries, plugins: _entries });

const _DenyRuleSchema = v.pipe(
  _record({
    tools: v.pipe(v.array(_text(60), "must be an array"), v.minLength(1, "must name at least one tool"), v.maxLength(30, "must name at most 30 tools")),
    pathPattern: v.optional(_text(200)),
    commandPattern: v.optional(_text(200)),
    reason: _text(300),
  }),
  v.check((rule) => rule.pathPattern !== undefined || rule.commandPattern !== undefined, "a deny rule needs pathPattern or commandPattern"),
);

const _ManifestSchema = _record({
  name: _NameSchema,
  description: _text(300),
  appendix: v.optional(_text(2000)),
  deny: v.pipe(v.array(_DenyRuleSchema, "must be an array"), v.minLength(1, "must have at least one rule"), v.maxLength(50, "must have at most 50 rules")),
});

/** Parses index text into entries, skills first, each kind in index order, duplicates dropped. */
export function checkIndex(text: string): CheckResult<RegistryEntry[]> {
  const raw = _parseJson(text);
  if (raw === _NOT_JSON) return { ok: false, error: "the registry index is not valid JSON" };
  const parsed = v.safeParse(_IndexSchema, raw);
  if (!parsed.success) return { ok: false, error: `the registry index is malformed: ${describeIssue(parsed.issues[0])}` };
  const seen = new Set<string>();
  const entries: RegistryEntry[] = [];
  const groups: Array<[RegistryKind, typeof parsed.output.skills]> = [
    ["skill", parsed.output.skills],
    ["plugin", parsed.output.plugins],
  ];
  for (const [kind, list] of groups) {
    for (const entry of list ?? []) {
      if (seen.has(`${kind}:${entry.name}`)) continue;
      seen.add(`${kind}:${entry.name}`);
      entries.push({ kind, name: entry.name, description: entry.description, url: entry.url, ...(entry.author === undefined ? {} : { author: entry.author }) });
    }
  }
  return { ok: true, value: entries };
}

/**
 * Parses and validates a plugin manifest; unknown keys are stripped and every pattern is compiled.
 * With `expectedName`, the manifest must call itself by that name.
 */
export function checkManifest(text: string, expectedName?: string): CheckResult<InstalledPluginManifest> {
  const raw = _parseJson(text);
  if (raw === _NOT_JSON) return { ok: false, error: "the plugin manifest is not valid JSON" };
  const parsed = v.safeParse(_ManifestSchema, raw);
  if (!parsed.success) return { ok: false, error: `the plugin manifest is malformed: ${describeIssue(parsed.issues[0])}` };
  const manifest: InstalledPluginManifest = {
    name: parsed.output.name,
    description: parsed.output.description,
    ...(parsed.output.appendix === undefined ? {} : { appendix: parsed.output.appendix }),
    deny: parsed.output.deny.map((rule) => ({
      tools: rule.tools,
      ...(rule.pathPattern === undefined ? {} : { pathPattern: rule.pathPattern }),
      ...(rule.commandPattern === undefined ? {} : { commandPattern: rule.commandPattern }),
      reason: rule.reason,
    })),
  };
  if (expectedName !== undefined && manifest.name !== expectedName) {
    return { ok: false, error: `the manifest calls itself "${manifest.name}" but the index calls it "${expectedName}"` };
  }
  try {
    compileInstalledPlugin(manifest);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  return { ok: true, value: manifest };
}

/** Checks that a skill file has the frontmatter lib/skills/skills.ts needs, naming itself `expectedName`. */
export function checkSkill(text: string, expectedName: string): CheckResult<{ name: string; description: string }> {
  const header = readSkillHeader(text);
  if (!header.ok) {
    // readSkillHeader's reasons for an absent block or field start this way; others (a name with
    // odd characters, an over-long description) are passed on as they are.
    const missing = header.reason.startsWith("no ") || header.reason.startsWith("the frontmatter has no closing");
    return {
      ok: false,
      error: missing ? "that skill has no name/description frontmatter, so it cannot be loaded" : `that skill cannot be loaded: ${header.reason}`,
    };
  }
  if (header.name !== expectedName) {
    return { ok: false, error: `the skill calls itself "${header.name}" but the index calls it "${expectedName}"` };
  }
  return { ok: true, value: { name: header.name, description: header.description } };
}

const _NOT_JSON = Symbol("not JSON");

function _parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return _NOT_JSON;
  }
}
