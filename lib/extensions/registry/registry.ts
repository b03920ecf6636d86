/**
 * The external registry: an index of skills and plugins served as JSON over https, and the
 * entries installed from it.
 *
 * Network contract: one GET for the index, one per install. Only https URLs are fetched, and
 * plain http to localhost/127.0.0.1; every redirect hop is checked the same way before it is
 * followed, and a refused URL is never requested. The whole fetch, redirects and body included,
 * has a REGISTRY_TIMEOUT_MS deadline. Bodies are capped (index INDEX_BYTE_LIMIT, entry
 * BODY_BYTE_LIMIT) and validated by schema.ts before anything touches the disk.
 *
 * On disk (lib/platform/paths.ts `registryDir()`): `skills/<name>.md` holds the skill file exactly as
 * served; `plugins/<name>.json` holds the validated manifest, re-serialised (unknown keys gone).
 * Both are written atomically through lib/state-file/json-file.ts.
 *
 * Errors: every refusal is a UserError with a one-line message. Messages that suggest a command
 * take its prefix (`shiro registry` on the command line, `/registry` in the REPL).
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../platform/errors.ts";
import { paths } from "../../platform/paths.ts";
import type { InstalledPluginManifest, PluginFailure } from "../../extension-api/plugin-api.ts";
import {
  BODY_BYTE_LIMIT,
  INDEX_BYTE_LIMIT,
  checkIndex,
  checkManifest,
  checkSkill,
  isAllowedUrl,
  isEntryName,
  type RegistryEntry,
  type RegistryKind,
} from "./schema.ts";
import { loadSkillYaml, readSkillHeader } from "../../skills/skills.ts";
import { writeJsonAtomic, writeTextAtomic } from "../../state-file/json-file.ts";
import { VERSION } from "../../platform/version.ts";

export const DEFAULT_REGISTRY_URL = "https://raw.githubusercontent.com/zakirkun/shiro-neko-registry/main/index.json";
export const REGISTRY_TIMEOUT_MS = 20_000;
export const MAX_REDIRECTS = 5;
export const PREVIEW_LINES = 14;

export interface RegistryFetchOptions {
  /** Deadline for one fetch, redirects included. Default REGISTRY_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface RegistryIndex {
  url: string;
  /** Skills first, then plugins, each in index order; at most one per kind and name. */
  entries: RegistryEntry[];
}

/** A fetched and validated entry, ready to be written once the user agrees. */
export type StagedInstall =
  | { kind: "skill"; entry: RegistryEntry; path: string; preview: string[]; warning: string; text: string }
  | { kind: "plugin"; entry: RegistryEntry; path: string; preview: string[]; warning: string; manifest: InstalledPluginManifest };

/** Something in the registry folder. `problem` says why it will not load; it is then skipped at start. */
export interface InstalledEntry {
  kind: RegistryKind;
  name: string;
  description: string;
  path: string;
  problem?: string;
}

export interface InstalledPluginsResult {
  manifests: InstalledPluginManifest[];
  failures: PluginFailure[];
}

/** The index URL: config `registryUrl`, else DEFAULT_REGISTRY_URL. */
export function resolveRegistryUrl(config: { registryUrl?: string }): string {
  return config.registryUrl ?? DEFAULT_REGISTRY_URL;
}

export async function fetchRegistryIndex(url: string, options: RegistryFetchOptions = {}): Promise<RegistryIndex> {
  const checked = checkIndex(await _fetchText(url, INDEX_BYTE_LIMIT, options));
  if (!checked.ok) throw new UserError(checked.error);
  return { url, entries: checked.value };
}

/**
 * The entry a user named: `name`, `skill:name` or `plugin:name`. Throws when there is none, or
 * when a bare name is both a skill and a plugin.
 */
export function findRegistryEntry(entries: readonly RegistryEntry[], query: string, command = "shiro registry"): RegistryEntry {
  const { kind, name } = _splitQuery(query);
  const matches = entries.filter((entry) => entry.name === name && (kind === undefined || entry.kind === kind));
  if (matches.length === 0) throw new UserError(`no registry entry named "${name}". Try ${command} search ${name}`);
  if (matches.length > 1) {
    throw new UserError(`"${name}" is both a skill and a plugin. Use ${command} add skill:${name} or ${command} add plugin:${name}`);
  }
  return matches[0]!;
}

/** Entries whose name or description contains `query`, case-insensitively. */
export function searchRegistry(entries: readonly RegistryEntry[], query: string): RegistryEntry[] {
  const needle = query.toLowerCase();
  return entries.filter((entry) => entry.name.toLowerCase().includes(needle) || entry.description.toLowerCase().includes(needle));
}

/** Fetches an entry's body and validates it; nothing is written. */
export async function stageInstall(entry: RegistryEntry, options: RegistryFetchOptions = {}): Promise<StagedInstall> {
  const text = await _fetchText(entry.url, BODY_BYTE_LIMIT, options);
  await loadSkillYaml();
  const heading = `${entry.kind} ${entry.name} from ${entry.url}`;
  if (entry.kind === "skill") {
    const checked = checkSkill(text, entry.name);
    if (!checked.ok) throw new UserError(checked.error);
    return {
      kind: "skill",
      entry,
      text,
      path: _skillPath(entry.name),
      preview: [heading, ..._headLines(text, PREVIEW_LINES)],
      warning: "A skill is instructions the model will follow as if you wrote them: read it before you install it.",
    };
  }
  const checked = checkManifest(text, entry.name);
  if (!checked.ok) throw new UserError(checked.error);
  const manifest = checked.value;
  const rules = manifest.deny.flatMap((rule) =>
    [rule.pathPattern, rule.commandPattern].filter((pattern) => pattern !== undefined).map((pattern) => `- denies ${rule.tools.join(", ")}: ${pattern}`),
  );
  const appendix = manifest.appendix === undefined ? [] : ["adds to the system prompt:", ...manifest.appendix.split("\n").map((line) => `  ${line}`)];
  return {
    kind: "plugin",
    entry,
    manifest,
    path: _pluginPath(entry.name),
    preview: [heading, manifest.description, ...rules, ...appendix],
    warning: "A plugin runs no code: it only refuses the tool calls listed above.",
  };
}

/** Writes a staged entry to the registry folder, replacing an earlier install; returns the path. */
export function commitInstall(staged: StagedInstall): string {
  if (staged.kind === "skill") writeTextAtomic(staged.path, staged.text, { verbatim: true });
  else writeJsonAtomic(staged.path, staged.manifest, { verbatim: true });
  return staged.path;
}

/**
 * Deletes an installed entry named `name`, `skill:name` or `plugin:name`. Throws for a name no
 * entry could have, for nothing installed under it, and for a bare name installed as both kinds.
 */
export function removeInstalled(query: string, command = "shiro registry"): { kind: RegistryKind; name: string; path: string } {
  const { kind, name } = _splitQuery(query);
  if (!isEntryName(name)) throw new UserError(`"${name}" is not a valid entry name`);
  const found = listInstalled().filter((entry) => entry.name === name && (kind === undefined || entry.kind === kind));
  if (found.length === 0) throw new UserError(`nothing installed under the name "${name}"`);
  if (found.length > 1) {
    throw new UserError(`"${name}" is installed as both a skill and a plugin. Use ${command} remove skill:${name} or ${command} remove plugin:${name}`);
  }
  const target = found[0]!;
  rmSync(target.path, { force: true });
  return { kind: target.kind, name: target.name, path: target.path };
}

/** Every installed entry, skills then plugins, each sorted by name. Never throws for bad files. A skill's description needs `loadSkillYaml()` done first where its frontmatter is YAML. */
export function listInstalled(): InstalledEntry[] {
  const skills = _listFiles("skills", ".md").map(({ name, path }): InstalledEntry => {
    const text = _readFile(path);
    if (typeof text !== "string") return { kind: "skill", name, description: "", path, problem: text.error };
    const header = readSkillHeader(text);
    return header.ok ? { kind: "skill", name, description: header.description, path } : { kind: "skill", name, description: "", path, problem: header.reason };
  });
  const plugins = _readPlugins().map(
    (read): InstalledEntry =>
      "manifest" in read
        ? { kind: "plugin", name: read.name, description: read.manifest.description, path: read.path }
        : { kind: "plugin", name: read.name, description: "", path: read.path, problem: read.error },
  );
  return [...skills, ...plugins];
}

/**
 * The installed plugin manifests, validated, sorted by name. A file that does not parse, fails
 * validation or names another plugin than its file name is a failure and is skipped.
 */
export function loadInstalledPlugins(): InstalledPluginsResult {
  const manifests: InstalledPluginManifest[] = [];
  const failures: PluginFailure[] = [];
  for (const read of _readPlugins()) {
    if ("manifest" in read) manifests.push(read.manifest);
    else failures.push({ name: read.name, error: read.error });
  }
  return { manifests, failures };
}

type _PluginRead = { name: string; path: string; manifest: InstalledPluginManifest } | { name: string; path: string; error: string };

function _readPlugins(): _PluginRead[] {
  return _listFiles("plugins", ".json").map(({ name, path }): _PluginRead => {
    const text = _readFile(path);
    if (typeof text !== "string") return { name, path, error: text.error };
    const checked = checkManifest(text);
    if (!checked.ok) return { name, path, error: checked.error };
    if (checked.value.name !== name) return { name, path, error: `the manifest calls itself "${checked.value.name}" but its file is ${name}.json` };
    return { name, path, manifest: checked.value };
  });
}

/** `<registryDir>/<folder>/*<suffix>`, hidden files and temp files left out, sorted by name. */
function _listFiles(folder: string, suffix: string): { name: string; path: string }[] {
  const dir = join(paths.registryDir(), folder);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((file) => file.endsWith(suffix) && !file.startsWith("."))
    .map((file) => ({ name: file.slice(0, -suffix.length), path: join(dir, file) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function _readFile(path: string): string | { error: string } {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    return { error: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
}

function _skillPath(name: string): string {
  return join(paths.registryDir(), "skills", `${name}.md`);
}

function _pluginPath(name: string): string {
  return join(paths.registryDir(), "plugins", `${name}.json`);
}

function _splitQuery(query: string): { kind?: RegistryKind; name: string } {
  const trimmed = query.trim();
  if (trimmed.startsWith("skill:")) return { kind: "skill", name: trimmed.slice("skill:".length) };
  if (trimmed.startsWith("plugin:")) return { kind: "plugin", name: trimmed.slice("plugin:".length) };
  return { name: trimmed };
}

/** The first `count` lines, then `... N more lines` when there are more. */
function _headLines(text: string, count: number): string[] {
  const lines = text.replace(/\s+$/, "").split(/\r?\n/);
  if (lines.length <= count) return lines;
  const rest = lines.length - count;
  return [...lines.slice(0, count), `... ${rest} more ${rest === 1 ? "line" : "lines"}`];
}

// ---- fetching --------------------------------------------------------------------------------

/** GETs `url` as text, following checked redirects, within the deadline and the byte limit. */
async function _fetchText(url: string, limit: number, options: RegistryFetchOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? REGISTRY_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let current = url;
  for (let hop = 0; ; hop++) {
    if (!isAllowedUrl(current)) throw new UserError(`refusing a non-https URL: ${current}`);
    let response: Response;
    try {
      response = await fetch(current, {
        redirect: "manual",
        signal,
        headers: { accept: "application/json, text/markdown, text/plain;q=0.9, */*;q=0.1", "user-agent": `shiro-neko/${VERSION} (registry)` },
      });
    } catch (error) {
      throw _fetchFailure(error, current, signal, timeoutMs);
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      if (hop === MAX_REDIRECTS) throw new UserError(`${url} redirected more than ${MAX_REDIRECTS} times`);
      current = _resolveLocation(location, current);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new UserError(`${current} returned ${response.status} ${response.statusText}`.trimEnd());
    }
    try {
      return await _readCapped(response, current, limit);
    } catch (error) {
      throw _fetchFailure(error, current, signal, timeoutMs);
    }
  }
}

function _resolveLocation(location: string, from: string): string {
  try {
    return new URL(location, from).href;
  } catch {
    throw new UserError(`${from} redirected to something that is not a URL: ${location}`);
  }
}

async function _readCapped(response: Response, url: string, limit: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new UserError(`${url} is ${declared} bytes, over the ${limit} byte limit`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new UserError(`${url} is over the ${limit} byte limit`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

function _fetchFailure(error: unknown, url: string, signal: AbortSignal, timeoutMs: number): Error {
  if (error instanceof UserError) return error;
  if (signal.aborted) return new UserError(`${url} did not answer within ${timeoutMs / 1000} s`);
  const code = (error as { code?: unknown }).code;
  const detail = typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  return new UserError(`could not fetch ${url}: ${detail}`);
}
