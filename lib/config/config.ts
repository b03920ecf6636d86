/**
 * Configuration: `config.json` in the state folder, validated with valibot.
 *
 * Precedence, later wins: the file < environment variables < command-line flags.
 * A file that is not JSON or has an invalid field is a UserError naming the file and the field;
 * the file is never rewritten by a failed load. `writeConfigPatch` merges a patch into the
 * existing file (other keys kept) under the file lock, atomically.
 */
import * as v from "valibot";
import { ConfigError, EXIT, UserError } from "../platform/errors.ts";
import { paths } from "../platform/paths.ts";
import { sealedEnv } from "../secrets/key-vault.ts";
import { PRESET_IDS, PROTOCOL_FLAG_VALUES, findPreset, type Preset } from "../providers/presets.ts";
import { type Protocol } from "../messages.ts";
import { type ProtocolFlag } from "../vocabulary.ts";
import { describeIssue, parseJson, readJson, updateJsonSync } from "../state-file/json-file.ts";
import { HooksSchema } from "./hooks-config.ts";
import { expandVariables } from "./env-references.ts";

import { AGENT_NAMES, THINKING_LEVELS, TOOL_SET_NAMES, type AgentName, type ThinkingLevel } from "../vocabulary.ts";
// Re-exported for modules not yet pointed at lib/vocabulary.ts (tools/, agent/variants.ts).
export const BUILTIN_PLUGIN_NAMES = ["guard", "secrets", "protect", "time", "bell", "format"] as const;
export const DECISIONS = ["allow", "ask", "deny"] as const;
export const SANDBOX_MODES = ["workspace-write", "read-only", "off"] as const;

export type Decision = (typeof DECISIONS)[number];

const _oneOf = <const T extends readonly string[]>(values: T) => v.picklist(values, `must be one of ${values.join(", ")}`);

const DecisionSchema = _oneOf(DECISIONS);
const PermissionSchema = v.record(
  v.string(),
  v.union(
    [DecisionSchema, v.record(v.string(), DecisionSchema, `must map patterns to one of ${DECISIONS.join(", ")}`)],
    `must be one of ${DECISIONS.join(", ")}, or an object mapping patterns to them`,
  ),
);

const _StringMap = v.record(v.string(), v.string("must be a string"));
const _ToolNames = v.array(v.string("must be a tool name"));
/** Fields every MCP client writes beside the connection: Claude Code, Claude Desktop, Cursor, Cline, Codex (docs/mcp.md). */
const _mcpCommon = {
  /** Claude Desktop / Cline: the server is not started. */
  disabled: v.optional(v.boolean("must be true or false")),
  /** Codex: `enabled: false` is `disabled: true`. */
  enabled: v.optional(v.boolean("must be true or false")),
  /** Tools of this server allowed without asking (Claude Desktop / Cursor `alwaysAllow`, Cline `autoApprove`). */
  alwaysAllow: v.optional(_ToolNames),
  autoApprove: v.optional(_ToolNames),
  /** How long the server has to start and list its tools (lib/extensions/mcp/connect-timeout.ts). */
  startupTimeoutMs: v.optional(v.pipe(v.number("must be a number"), v.integer("must be a whole number"), v.minValue(1000, "must be at least 1000"))),
  /** Codex's spelling of startupTimeoutMs, in seconds. */
  startup_timeout_sec: v.optional(v.pipe(v.number("must be a number"), v.minValue(1, "must be at least 1"))),
  /** Another client's request timeout (Cline's seconds, Gemini CLI's ms), the start timeout when no other is set (connect-timeout.ts `timeoutMs`). */
  timeout: v.optional(v.pipe(v.number("must be a number"), v.minValue(0, "must not be negative"))),
  description: v.optional(v.string()),
  /** Gemini CLI: `true` means no call of this server's tools asks (as `alwaysAllow: ["*"]`). */
  trust: v.optional(v.boolean("must be true or false")),
  /** Gemini CLI: only these of the server's tools are offered; `excludeTools` are never offered (it wins over includeTools). */
  includeTools: v.optional(_ToolNames),
  excludeTools: v.optional(_ToolNames),
};

const _remoteServer = {
  headers: v.optional(_StringMap),
  ..._mcpCommon,
};

/**
 * One `mcpServers` entry as Claude Code, Claude Desktop, Cursor and Gemini CLI write it. Strings
 * in command, args, env, url and headers may hold `${VAR}` / `${VAR:-default}`, expanded when the
 * server starts (lib/extensions/mcp/expand.ts), so a URL is checked then, not here. Gemini CLI's
 * `{httpUrl}` (a streamable HTTP endpoint) is read as `{url, type: "http"}`.
 */
export const McpServerSchema = v.union(
  [
    v.strictObject({
      type: v.optional(_oneOf(["stdio"] as const)),
      command: v.pipe(v.string(), v.minLength(1, "must not be empty")),
      args: v.optional(v.array(v.string())),
      env: v.optional(_StringMap),
      /** Cursor: a dotenv file whose variables join env (env wins). */
      envFile: v.optional(v.string()),
      cwd: v.optional(v.string()),
      ..._mcpCommon,
    }),
    v.strictObject({
      url: v.pipe(v.string(), v.minLength(1, "must not be empty")),
      type: v.optional(_oneOf(["http", "sse", "streamable-http", "streamableHttp"] as const)),
      ..._remoteServer,
    }),
    v.pipe(
      v.strictObject({ httpUrl: v.pipe(v.string(), v.minLength(1, "must not be empty")), ..._remoteServer }),
      v.transform(({ httpUrl, ...rest }) => ({ ...rest, url: httpUrl, type: "http" as const })),
    ),
  ],
  "must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}",
);

/** The keys each kind of entry may have: a local server's, a `url` one's, a Gemini CLI `httpUrl` one's. */
export const MCP_SERVER_KEYS = {
  local: Object.keys(McpServerSchema.options[0].entries),
  url: Object.keys(McpServerSchema.options[1].entries),
  httpUrl: Object.keys(McpServerSchema.options[2].pipe[0].entries),
};

const _posInt = (max: number) =>
  v.pipe(v.number("must be a number"), v.integer("must be a whole number"), v.minValue(0, "must not be negative"), v.maxValue(max, `must be at most ${max}`));

export const ConfigSchema = v.strictObject(
  {
    $schema: v.optional(v.string()),
    provider: v.optional(_oneOf(PRESET_IDS)),
    protocol: v.optional(_oneOf(Object.keys(PROTOCOL_FLAG_VALUES) as ProtocolFlag[])),
    model: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
    baseURL: v.optional(v.pipe(v.string(), v.url("must be a URL"))),
    apiKey: v.optional(v.string()),
    /**
     * Headers sent with every model request, by provider id: `{"custom-openai": {"x-portkey-api-key":
     * "${PORTKEY_API_KEY}"}}`. Values may name environment variables (lib/config/env-references.ts).
     */
    headers: v.optional(v.record(v.string(), _StringMap)),
    agent: v.optional(_oneOf(AGENT_NAMES)),
    thinking: v.optional(_oneOf(THINKING_LEVELS)),
    maxRetries: v.optional(_posInt(10)),
    maxSteps: v.optional(v.pipe(_posInt(1000), v.minValue(1, "must be at least 1"))),
    requestTimeoutMs: v.optional(v.pipe(_posInt(3_600_000), v.minValue(1000, "must be at least 1000"))),
    plugins: v.optional(v.array(v.string("must be a plugin name"))),
    toolSets: v.optional(v.array(_oneOf(TOOL_SET_NAMES))),
    /** `ask`: read-only command lines (lib/shell/read-only.ts) are asked like any other; default `allow`. */
    readOnlyCommands: v.optional(_oneOf(["allow", "ask"] as const)),
    /** false: every tool's full schema on every request (lib/agent/context/tool-deferral.ts). */
    deferTools: v.optional(v.boolean("must be true or false")),
    /** Bytes of MCP tool schemas sent in full before the rest are deferred (default 2000). */
    mcpSchemaBudget: v.optional(_posInt(1_000_000)),
    permission: v.optional(PermissionSchema),
    /** Claude Code-format hooks (lib/config/hooks-config.ts, docs/hooks.md). */
    hooks: v.optional(HooksSchema),
    registryUrl: v.optional(v.pipe(v.string(), v.url("must be a URL"))),
    mcpServers: v.optional(v.record(v.string(), McpServerSchema)),
    webFetch: v.optional(v.strictObject({ allowHosts: v.optional(v.array(v.string())) })),
    compaction: v.optional(
      v.strictObject({
        threshold: v.optional(v.pipe(_posInt(10_000_000), v.minValue(1000, "must be at least 1000"))),
        auto: v.optional(v.boolean("must be true or false")),
      }),
    ),
    historyPairs: v.optional(_posInt(1000)),
    /** The model `task` subagents run on (same provider); default: the session's model. */
    subagentModel: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
    /** Tokens the model accepts; overrides the model table (lib/providers/windows.ts). */
    contextWindow: v.optional(v.pipe(_posInt(100_000_000), v.minValue(1000, "must be at least 1000"))),
    /** Provider key variables bash and MCP servers may see (withheld by default; lib/secrets/child-env.ts). */
    passEnv: v.optional(v.array(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a variable name")))),
    sandbox: v.optional(
      v.union(
        [
          _oneOf(SANDBOX_MODES),
          v.strictObject({
            mode: v.optional(_oneOf(SANDBOX_MODES)),
            network: v.optional(v.boolean("must be true or false")),
            bwrap: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
            mcp: v.optional(v.boolean("must be true or false")),
            /** Paths sandboxed commands cannot read, beside the defaults (lib/sandbox/hidden-paths.ts): absolute, `~/…`, or relative to the workspace. */
            hidePaths: v.optional(v.array(v.pipe(v.string("must be a path"), v.minLength(1, "must not be empty")))),
          }),
        ],
        `must be one of ${SANDBOX_MODES.join(", ")}, or {mode?, network?, bwrap?, mcp?, hidePaths?}`,
      ),
    ),
    memory: v.optional(
      v.strictObject({
        episodeSummary: v.optional(v.boolean("must be true or false")),
        budget: v.optional(v.pipe(v.number("must be a number of tokens"), v.integer("must be a whole number"), v.minValue(0, "must not be negative"))),
        confirmWrites: v.optional(v.boolean("must be true or false")),
        embeddings: v.optional(
          v.strictObject({
            baseURL: v.pipe(v.string("must be a URL"), v.url("must be a URL")),
            model: v.pipe(v.string("must be a model name"), v.minLength(1, "must not be empty")),
            apiKeyEnv: v.optional(
              v.pipe(v.string("must name an environment variable"), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must name an environment variable")),
            ),
          }),
        ),
      }),
    ),
    /** Checkpoints of the workspace before and after each changing turn (docs/checkpoints.md). */
    checkpoints: v.optional(
      v.strictObject({
        enabled: v.optional(v.boolean("must be true or false")),
        keepDays: v.optional(v.pipe(_posInt(36_500), v.minValue(1, "must be at least 1"))),
        maxPerProject: v.optional(v.pipe(_posInt(100_000), v.minValue(1, "must be at least 1"))),
        maxFileBytes: v.optional(_posInt(Number.MAX_SAFE_INTEGER)),
      }),
    ),
    /** `shiro update`: `enabled: false` turns it off (installs a package manager owns); `base` is a mirror (docs/release.md). */
    update: v.optional(
      v.strictObject({
        enabled: v.optional(v.boolean("must be true or false")),
        base: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty"))),
      }),
    ),
  },
  (issue) => `is not a known setting`,
);

export type ConfigFile = v.InferOutput<typeof ConfigSchema>;
/** MCP servers by name, as config `mcpServers` holds them. */
export type McpServers = NonNullable<ConfigFile["mcpServers"]>;

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

/** Reads and validates config.json. Missing file = empty config. Never writes. */
export function loadConfigFile(path = paths.config()): ConfigFile {
  const read = readJson(path, { schema: ConfigSchema });
  if (read.status === "missing") return {};
  // A file the system cannot read is an I/O failure (exit 1); one that reads but is wrong is bad configuration (exit 2).
  if (read.status === "corrupt")
    throw read.reason.startsWith("cannot be read") ? new UserError(`${path}: ${read.reason}`) : new ConfigError(`${path}: ${_configReason(read.reason)}`);
  checkPluginNames(read.value.plugins, path);
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
    const checked = parseJson(JSON.stringify(merged), { schema: ConfigSchema });
    if (checked.status !== "ok") throw new ConfigError(`${path}: ${checked.status === "corrupt" ? checked.reason : "invalid"}`);
    checkPluginNames(checked.value.plugins, path);
    return merged;
  }) as ConfigFile;
}

export { describeIssue };
