/**
 * What a configured MCP server is, independent of connecting to it: its kind, the one-line
 * target shown to the user, and the rules a server name follows. Loads no MCP SDK code.
 */
import type { ConfigFile } from "../../config/config.ts";
import { toMcpToolName } from "./tools.ts";

/** One entry of config `mcpServers`: a local process over stdio or a remote URL. */
export type McpServerConfig = NonNullable<ConfigFile["mcpServers"]>[string];
export type McpLocalServer = Extract<McpServerConfig, { command: string }>;
export type McpRemoteServer = Extract<McpServerConfig, { url: string }>;
export type McpServerKind = "local" | "remote";

export function isLocalServer(config: McpServerConfig): config is McpLocalServer {
  return "command" in config;
}

export function serverKind(config: McpServerConfig): McpServerKind {
  return isLocalServer(config) ? "local" : "remote";
}

/** The command line of a local server (arguments with spaces or quotes are quoted), or the URL. */
export function describeTarget(config: McpServerConfig): string {
  if (!isLocalServer(config)) return config.url;
  return [config.command, ...(config.args ?? [])].map(_quoteArg).join(" ");
}

function _quoteArg(arg: string): string {
  return arg === "" || /[\s"'\\]/.test(arg) ? JSON.stringify(arg) : arg;
}

/** Names as Claude Code, Claude Desktop and Cursor allow them: letters, digits, `_`, `-` and `.`. */
const _NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const _NAME_MAX = 64;

/** False for an entry marked `disabled: true` (Claude Desktop, Cline) or `enabled: false` (Codex). */
export function isEnabled(config: McpServerConfig): boolean {
  return config.disabled !== true && config.enabled !== false;
}

/** The tools the entry allows without asking (`alwaysAllow`, Cline's `autoApprove`); `*` for all (Gemini CLI's `trust: true`). */
export function alwaysAllowed(config: McpServerConfig): string[] {
  return [...(config.trust === true ? ["*"] : []), ...(config.alwaysAllow ?? []), ...(config.autoApprove ?? [])];
}

/** Whether the server's tool named `tool` (its own name) is offered: Gemini CLI's `includeTools` / `excludeTools`, the exclusion winning. */
export function offersTool(config: McpServerConfig, tool: string): boolean {
  if (config.excludeTools?.includes(tool)) return false;
  return config.includeTools === undefined || config.includeTools.includes(tool);
}

/**
 * Checks a server name for `mcp add`: returns the message to show, or undefined when the name is
 * usable. `configured` holds the names already in config.json.
 */
export function checkServerName(name: string, configured: readonly string[] = []): string | undefined {
  if (name.trim() === "") return "a name is required";
  if (name.includes("__")) return "double underscores clash with the mcp__server__tool naming";
  if (name.length > _NAME_MAX) return `at most ${_NAME_MAX} characters`;
  if (!_NAME_PATTERN.test(name)) return "use letters, digits, underscores, dots and hyphens only";
  if (configured.includes(name)) return `${name} is already configured`;
  return undefined;
}

/** Checks a remote server's URL; returns the message to show, or undefined when usable. */
export function checkServerUrl(url: string): string | undefined {
  if (!/^https?:\/\//i.test(url)) return "the URL must start with http:// or https://";
  try {
    new URL(url);
  } catch {
    return `"${url}" is not a valid URL`;
  }
  return undefined;
}

/**
 * The `alwaysAllow` / `autoApprove` lists of enabled servers as config `permission` entries:
 * `mcp__<server>__<tool>: allow` (`*` allows the whole server). They are a source of rules beside
 * config `permission` (lib/approval/rules.ts), so a deny or an ask rule anywhere still wins.
 */
export function alwaysAllowRules(servers: Readonly<Record<string, McpServerConfig>>): Record<string, "allow"> {
  const rules: Record<string, "allow"> = {};
  for (const [name, config] of Object.entries(servers)) {
    if (!isEnabled(config)) continue;
    for (const tool of alwaysAllowed(config)) rules[tool === "*" ? `${toMcpToolName(name, "x").slice(0, -1)}*` : toMcpToolName(name, tool)] = "allow";
  }
  return rules;
}
