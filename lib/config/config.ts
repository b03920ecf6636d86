/**
 * Configuration: `config.json` in the state folder, validated with valibot.
 *
 * The schemas (config-schema.ts) are built on first use, not when the module loads: a start-up
 * without a config file never builds them. `loadConfigFile` reads the file's bytes at every call
 * and keeps what it parsed from the last bytes it read: key sealing at start-up, resolution and
 * every child process's environment parse and validate config.json once while its bytes stay the
 * same. Bytes, not a stat stamp: a rewrite within a coarse timestamp's tick keeps inode, size and
 * mtime, and `passEnv` decides which keys a child process sees.
 *
 * Precedence, later wins: the file < environment variables < command-line flags.
 * A file that is not JSON or has an invalid field is a UserError naming the file and the field;
 * the file is never rewritten by a failed load. `writeConfigPatch` merges a patch into the
 * existing file (other keys kept) under the file lock, atomically.
 */
import * as v from "valibot";
import { ConfigError, UserError } from "../platform/errors.ts";
import { paths } from "../platform/paths.ts";
import { sealedEnv } from "../secrets/key-vault.ts";
import { PRESET_IDS, PROTOCOL_FLAG_VALUES, findPreset, type Preset } from "../providers/presets.ts";
import { type Protocol } from "../messages.ts";
import { type ProtocolFlag } from "../vocabulary.ts";
import { readFileSync } from "node:fs";
import { describeErrno } from "../platform/os-errors.ts";
import { describeIssue, EMPTY_DOCUMENT_REASON, parseJson, readJson, updateJsonSync } from "../state-file/json-file.ts";
import { expandVariables } from "./env-references.ts";

import { AGENT_NAMES, THINKING_LEVELS, type AgentName, type ThinkingLevel } from "../vocabulary.ts";
import { BUILTIN_PLUGIN_NAMES, configSchema, type ConfigFile } from "./config-schema.ts";

// Re-exported: what config.json may hold is config-schema.ts's, and importers know it from here.
export {
  BUILTIN_PLUGIN_NAMES,
  DECISIONS,
  SANDBOX_MODES,
  configSchema,
  mcpServerKeys,
  mcpServerSchema,
  type ConfigFile,
  type Decision,
  type McpServers,
} from "./config-schema.ts";

/** Overrides from the command line; undefined means "not given". */
export interface ConfigFlags {
  provider?: string;
  protocol?: string;
  model?: string;
  baseURL?: string;
  agent?: string;
  thinking?: string;
}

export interface ResolvedConfig {
  file: ConfigFile;
  configPath: string;
  preset: Preset;
  protocol: Protocol;
  /** True when the protocol was forced by --protocol / SHIRO_PROTOCOL / config. */
  protocolForced: boolean;
  model: string;
  baseURL: string;
  apiKey?: string;
  /** Where the key came from, for messages: `SHIRO_API_KEY`, `OPENAI_API_KEY`, `config.json`. */
  apiKeySource?: string;
  /** The key is a bearer token (ANTHROPIC_AUTH_TOKEN): sent as `Authorization: Bearer` whatever the protocol. */
  bearerKey?: boolean;
  /** Config `headers` for this provider, variables expanded. */
  headers?: Record<string, string>;
  agent: AgentName;
  thinking?: ThinkingLevel;
  maxRetries: number;
}

/** The last valid file `loadConfigFile` read: its path, its bytes, and what they held. */
let _lastRead: { path: string; text: string; file: ConfigFile } | undefined;

/**
 * Reads and validates config.json. Missing file = empty config. Never writes. While the file holds
 * the bytes it held when last read, that read's result is returned (a copy) without parsing again.
 */
export function loadConfigFile(path = paths.config()): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    // A file the system cannot read is an I/O failure (exit 1); one that reads but is wrong is bad configuration (exit 2).
    throw new UserError(`${path}: cannot be read: ${describeErrno(error)}`);
  }
  if (_lastRead?.path === path && _lastRead.text === text) return structuredClone(_lastRead.file);
  const read = parseJson(text, { schema: configSchema() });
  if (read.status === "corrupt") throw new ConfigError(`${path}: ${_configReason(read.reason)}`);
  if (read.status === "missing") return {};
  checkPluginNames(read.value.plugins, path);
  _lastRead = { path, text, file: structuredClone(read.value) };
  return read.value;
}

/**
 * A `plugins` list replaces the default one, so a misspelt name would silently leave the guard
 * off: every name must be a builtin plugin. Throws a usage error (exit 2) naming the valid ones.
 */
export function checkPluginNames(names: readonly string[] | undefined, origin: string): void {
  const known: readonly string[] = BUILTIN_PLUGIN_NAMES;
  const wrong = names?.find((name) => !known.includes(name));
  if (wrong === undefined) return;
  const near = known.find((name) => _isNearMiss(wrong, name));
  throw new ConfigError(
    `${origin}: "plugins" lists "${wrong}", which is not a plugin${near ? ` (did you mean "${near}"?)` : ""}. Valid plugins: ${known.join(", ")}`,
  );
}

/** Same letters up to case and spaces, or one edit or swap away. */
function _isNearMiss(typed: string, name: string): boolean {
  const a = typed.trim().toLowerCase();
  if (a === name) return true;
  if (Math.abs(a.length - name.length) > 1) return false;
  const [short, long] = a.length <= name.length ? [a, name] : [name, a];
  let i = 0;
  while (i < short.length && short[i] === long[i]) i++;
  if (short.length === long.length) {
    return short.slice(i + 1) === long.slice(i + 1) || (short[i] === long[i + 1] && short[i + 1] === long[i] && short.slice(i + 2) === long.slice(i + 2));
  }
  return short.slice(i) === long.slice(i + 1);
}

function _configReason(reason: string): string {
  // A key the schema does not know reports as `"key" is not a known setting`.
  if (reason === EMPTY_DOCUMENT_REASON) return "is empty; write {} into it or remove it";
  return reason.startsWith("not valid JSON") ? "is not valid JSON" : reason;
}

function _pick<T extends readonly string[]>(value: string | undefined, allowed: T, what: string, origin: string): T[number] | undefined {
  if (value === undefined || value === "") return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${origin}: unknown ${what} "${value}". Available: ${allowed.join(", ")}`);
  }
  return value as T[number];
}

/** Applies environment and flags over the file. Throws UserError for invalid values. */
export function resolveConfig(options: { flags?: ConfigFlags; env?: NodeJS.ProcessEnv; configPath?: string; file?: ConfigFile } = {}): ResolvedConfig {
  const env = options.env ?? sealedEnv();
  const flags = options.flags ?? {};
  const configPath = options.configPath ?? paths.config();
  const file = options.file ?? loadConfigFile(configPath);

  const providerId =
    _pick(flags.provider, PRESET_IDS, "provider", "--provider") ??
    _pick(env.SHIRO_PROVIDER, PRESET_IDS, "provider", "SHIRO_PROVIDER") ??
    file.provider ??
    "anthropic";
  const preset = findPreset(providerId)!;
  const protocolKeys = Object.keys(PROTOCOL_FLAG_VALUES) as ProtocolFlag[];
  const protocolFlag =
    _pick(flags.protocol, protocolKeys, "protocol", "--protocol") ?? _pick(env.SHIRO_PROTOCOL, protocolKeys, "protocol", "SHIRO_PROTOCOL") ?? file.protocol;
  // Base URL, first set wins: --base-url, SHIRO_BASE_URL, config baseURL, the preset's own variable
  // (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), the preset's default (docs/configuration.md).
  const vendorBase = preset.baseURLEnv ? env[preset.baseURLEnv] : undefined;
  const baseURL = (flags.baseURL || env.SHIRO_BASE_URL || file.baseURL || vendorBase || preset.baseURL).replace(/\/+$/, "");
  if (!baseURL) {
    throw new ConfigError(
      `provider "${preset.id}" needs a base URL: pass --base-url, set SHIRO_BASE_URL${preset.baseURLEnv ? ` or ${preset.baseURLEnv}` : ""}, or add "baseURL" to ${configPath}`,
    );
  }
  _checkUrl(baseURL, flags.baseURL ? "--base-url" : env.SHIRO_BASE_URL ? "SHIRO_BASE_URL" : file.baseURL ? "baseURL" : (preset.baseURLEnv ?? "baseURL"));
  const model = flags.model || env.SHIRO_MODEL || file.model || preset.defaultModel;
  if (!model) throw new ConfigError(`provider "${preset.id}" needs a model: pass --model, set SHIRO_MODEL, or add "model" to ${configPath}`);

  // Key, first set wins: SHIRO_API_KEY, the preset's key variable (OPENAI_API_KEY, ANTHROPIC_API_KEY…),
  // its token variable (ANTHROPIC_AUTH_TOKEN, sent as a bearer token), config apiKey.
  let apiKey: string | undefined;
  let apiKeySource: string | undefined;
  if (env.SHIRO_API_KEY) [apiKey, apiKeySource] = [env.SHIRO_API_KEY, "SHIRO_API_KEY"];
  else if (preset.keyEnv && env[preset.keyEnv]) [apiKey, apiKeySource] = [env[preset.keyEnv], preset.keyEnv];
  else if (preset.tokenEnv && env[preset.tokenEnv]) [apiKey, apiKeySource] = [env[preset.tokenEnv], preset.tokenEnv];
  else if (file.apiKey) [apiKey, apiKeySource] = [file.apiKey, "config.json"];
  else if (preset.keyless) [apiKey, apiKeySource] = ["local", "keyless preset"];
  let headers: Record<string, string> | undefined;
  const ownHeaders = file.headers?.[preset.id];
  if (ownHeaders) {
    try {
      headers = Object.fromEntries(Object.entries(ownHeaders).map(([name, value]) => [name, expandVariables(value, env)]));
    } catch (error) {
      throw new ConfigError(`${configPath}: headers.${preset.id}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const agent = _pick(flags.agent, AGENT_NAMES, "agent", "--agent") ?? file.agent ?? "default";
  const thinking = _pick(flags.thinking, THINKING_LEVELS, "thinking level", "--think") ?? file.thinking;

  return {
    file,
    configPath,
    preset,
    protocol: protocolFlag ? PROTOCOL_FLAG_VALUES[protocolFlag] : preset.protocol,
    protocolForced: protocolFlag !== undefined,
    model,
    baseURL,
    apiKey,
    apiKeySource,
    ...(apiKeySource !== undefined && apiKeySource === preset.tokenEnv ? { bearerKey: true } : {}),
    ...(headers ? { headers } : {}),
    agent,
    thinking,
    maxRetries: file.maxRetries ?? 3,
  };
}

function _checkUrl(url: string, origin: string): void {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
  } catch {
    throw new ConfigError(`${origin}: "${url}" is not an http(s) URL`);
  }
}

/**
 * Merges `patch` into config.json (keys set to undefined are removed), validating the result.
 * An existing file that does not parse is refused, never overwritten.
 */
export function writeConfigPatch(patch: Partial<ConfigFile>, path = paths.config()): ConfigFile {
  return updateJsonSync(path, { schema: v.unknown() as v.GenericSchema<unknown, unknown>, verbatim: true }, (current) => {
    if (current === undefined && readJson(path, { schema: v.unknown() }).status === "corrupt") {
      throw new ConfigError(`${path}: is not valid JSON; fix or remove it before changing settings`);
    }
    const base = (current && typeof current === "object" && !Array.isArray(current) ? current : {}) as Record<string, unknown>;
    const merged: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete merged[key];
      else merged[key] = value;
    }
    const checked = parseJson(JSON.stringify(merged), { schema: configSchema() });
    if (checked.status !== "ok") throw new ConfigError(`${path}: ${checked.status === "corrupt" ? checked.reason : "invalid"}`);
    checkPluginNames(checked.value.plugins, path);
    return merged;
  }) as ConfigFile;
}

export { describeIssue };
