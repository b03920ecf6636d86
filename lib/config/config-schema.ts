/**
 * config.json's shape: the valibot schemas `loadConfigFile` (config.ts) validates with, and the
 * names they allow. Each schema is built on its first use, not when the module loads, so a
 * start-up without a config file never builds one; a built schema is kept for the process.
 */
import * as v from "valibot";
import { PRESET_IDS, PROTOCOL_FLAG_VALUES } from "../providers/presets.ts";
import { AGENT_NAMES, THINKING_LEVELS, TOOL_SET_NAMES, type ProtocolFlag } from "../vocabulary.ts";
import { hooksSchema } from "./hooks-config.ts";

export const BUILTIN_PLUGIN_NAMES = ["guard", "secrets", "protect", "time", "bell", "format"] as const;
export const DECISIONS = ["allow", "ask", "deny"] as const;
export const SANDBOX_MODES = ["workspace-write", "read-only", "off"] as const;

export type Decision = (typeof DECISIONS)[number];

const _oneOf = <const T extends readonly string[]>(values: T) => v.picklist(values, `must be one of ${values.join(", ")}`);

const _permissionSchema = () => {
  const decision = _oneOf(DECISIONS);
  return v.record(
    v.string(),
    v.union(
      [decision, v.record(v.string(), decision, `must map patterns to one of ${DECISIONS.join(", ")}`)],
      `must be one of ${DECISIONS.join(", ")}, or an object mapping patterns to them`,
    ),
  );
};

const _stringMap = () => v.record(v.string(), v.string("must be a string"));
const _toolNames = () => v.array(v.string("must be a tool name"));
/** Fields every MCP client writes beside the connection: Claude Code, Claude Desktop, Cursor, Cline, Codex (docs/mcp.md). */
const _mcpCommon = () => ({
  /** Claude Desktop / Cline: the server is not started. */
  disabled: v.optional(v.boolean("must be true or false")),
  /** Codex: `enabled: false` is `disabled: true`. */
  enabled: v.optional(v.boolean("must be true or false")),
  /** Tools of this server allowed without asking (Claude Desktop / Cursor `alwaysAllow`, Cline `autoApprove`). */
  alwaysAllow: v.optional(_toolNames()),
  autoApprove: v.optional(_toolNames()),
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
  includeTools: v.optional(_toolNames()),
  excludeTools: v.optional(_toolNames()),
});

const _remoteServer = () => ({
  headers: v.optional(_stringMap()),
  ..._mcpCommon(),
});

/**
 * One `mcpServers` entry as Claude Code, Claude Desktop, Cursor and Gemini CLI write it. Strings
 * in command, args, env, url and headers may hold `${VAR}` / `${VAR:-default}`, expanded when the
 * server starts (lib/extensions/mcp/expand.ts), so a URL is checked then, not here. Gemini CLI's
 * `{httpUrl}` (a streamable HTTP endpoint) is read as `{url, type: "http"}`.
 */
export const mcpServerSchema = (): _McpServerSchema => (_mcpServer ??= _buildMcpServerSchema());
let _mcpServer: _McpServerSchema | undefined;
type _McpServerSchema = ReturnType<typeof _buildMcpServerSchema>;

const _buildMcpServerSchema = () =>
  v.union(
    [
      v.strictObject({
        type: v.optional(_oneOf(["stdio"] as const)),
        command: v.pipe(v.string(), v.minLength(1, "must not be empty")),
        args: v.optional(v.array(v.string())),
        env: v.optional(_stringMap()),
        /** Cursor: a dotenv file whose variables join env (env wins). */
        envFile: v.optional(v.string()),
        cwd: v.optional(v.string()),
        ..._mcpCommon(),
      }),
      v.strictObject({
        url: v.pipe(v.string(), v.minLength(1, "must not be empty")),
        type: v.optional(_oneOf(["http", "sse", "streamable-http", "streamableHttp"] as const)),
        ..._remoteServer(),
      }),
      v.pipe(
        v.strictObject({ httpUrl: v.pipe(v.string(), v.minLength(1, "must not be empty")), ..._remoteServer() }),
        v.transform(({ httpUrl, ...rest }) => ({ ...rest, url: httpUrl, type: "http" as const })),
      ),
    ],
    "must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}",
  );

/** The keys each kind of entry may have: a local server's, a `url` one's, a Gemini CLI `httpUrl` one's. */
export function mcpServerKeys(): { local: string[]; url: string[]; httpUrl: string[] } {
  const schema = mcpServerSchema();
  return {
    local: Object.keys(schema.options[0].entries),
    url: Object.keys(schema.options[1].entries),
    httpUrl: Object.keys(schema.options[2].pipe[0].entries),
  };
}

const _posInt = (max: number) =>
  v.pipe(v.number("must be a number"), v.integer("must be a whole number"), v.minValue(0, "must not be negative"), v.maxValue(max, `must be at most ${max}`));

/** config.json's schema; an unknown key is `"key" is not a known setting`. */
export const configSchema = (): _ConfigSchema => (_config ??= _buildConfigSchema());
let _config: _ConfigSchema | undefined;
type _ConfigSchema = ReturnType<typeof _buildConfigSchema>;

const _buildConfigSchema = () =>
  v.strictObject(
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
      headers: v.optional(v.record(v.string(), _stringMap())),
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
      permission: v.optional(_permissionSchema()),
      /** Claude Code-format hooks (lib/config/hooks-config.ts, docs/hooks.md). */
      hooks: v.optional(hooksSchema()),
      registryUrl: v.optional(v.pipe(v.string(), v.url("must be a URL"))),
      mcpServers: v.optional(v.record(v.string(), mcpServerSchema())),
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

export type ConfigFile = v.InferOutput<_ConfigSchema>;
/** MCP servers by name, as config `mcpServers` holds them. */
export type McpServers = NonNullable<ConfigFile["mcpServers"]>;
