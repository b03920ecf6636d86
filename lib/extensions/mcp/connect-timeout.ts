/**
 * How long an MCP server has to start, answer the handshake and list its tools.
 *
 * A start timeout the server's entry sets (`startupTimeoutMs`, Codex's `startup_timeout_sec`) always
 * wins, then a bare `timeout` (another client's; its unit, `timeoutMs`), then Claude Code's
 * `MCP_TIMEOUT` variable (ms). Otherwise a server never seen connecting gets
 * FIRST_START (2 min), and one launched through a package manager (npx, bunx, uvx, pnpm dlx…)
 * gets INSTALL_CAP (10 min): killing `npx` mid-install leaves its cache broken for later runs, so
 * a first start is never cut short while the package manager may still be installing. After a
 * server connected once with this exact target, that is remembered (lib/store/learned.ts, keyed by
 * name, basis = the target line) and later starts get AFTER_SUCCESS (30 s), or 60 s for a launcher.
 *
 * A bare `timeout` is the request timeout of the client the entry was pasted from, so it never cuts
 * a package launcher's first start below INSTALL_CAP (Cline writes `"timeout": 60` into every entry).
 *
 * A headless run holds its first request only for servers known to start: twice the time the
 * last connect took plus 2 s, within that start timeout (`headlessWait`); a server never seen
 * connecting is not waited for beyond the hub's short grace.
 */
import * as v from "valibot";
import { keepLearned, recallLearned } from "../../store/learned.ts";
import { describeTarget, isLocalServer, type McpServerConfig } from "./servers.ts";

export const MCP_FIRST_START_MS = 120_000;
export const MCP_INSTALL_CAP_MS = 600_000;
export const MCP_AFTER_SUCCESS_MS = 30_000;
export const MCP_LAUNCHER_AFTER_SUCCESS_MS = 60_000;

const _LAUNCHERS = new Set(["npx", "bunx", "uvx", "pnpx", "pipx", "dlx"]);
const _LAUNCHER_SUBCOMMANDS = new Set(["dlx", "exec", "x", "run"]);
const _Connected = v.object({ ms: v.number() });

/** True when the command installs the package it runs on first use. */
export function isPackageLauncher(config: McpServerConfig): boolean {
  if (!isLocalServer(config)) return false;
  const program = config.command
    .split(/[\\/]/)
    .at(-1)!
    .replace(/\.(cmd|exe)$/i, "");
  if (_LAUNCHERS.has(program)) return true;
  const sub = config.args?.[0];
  return (
    (program === "pnpm" || program === "yarn" || program === "bun" || program === "uv" || program === "deno") &&
    sub !== undefined &&
    _LAUNCHER_SUBCOMMANDS.has(sub)
  );
}

/** The start timeout the entry itself sets, in ms; undefined when it sets none. */
export function configuredTimeout(config: McpServerConfig): number | undefined {
  if (config.startupTimeoutMs !== undefined) return config.startupTimeoutMs;
  if (config.startup_timeout_sec !== undefined) return Math.round(config.startup_timeout_sec * 1000);
  return undefined;
}

/**
 * A bare `timeout`, in ms; undefined when absent or 0. Seconds when the entry is Cline's (it
 * carries Cline's `autoApprove`; Cline's cline_mcp_settings.json writes `"timeout": 60`) or the
 * value is below 1000 (Cline's and Roo Code's unit; no start is meant to take under a second);
 * otherwise milliseconds (Gemini CLI's settings.json unit, and how shiro always read 1000 or more).
 */
export function timeoutMs(config: McpServerConfig): number | undefined {
  if (config.timeout === undefined || config.timeout === 0) return undefined;
  const seconds = config.autoApprove !== undefined || config.timeout < 1000;
  return Math.round(seconds ? config.timeout * 1000 : config.timeout);
}

/** The connect timeout for this start of `name`, and whether it is a first start. */
export function connectTimeout(
  name: string,
  config: McpServerConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { ms: number; first: boolean } {
  const launcher = isPackageLauncher(config);
  const seen = recallLearned(_key(name), { basis: describeTarget(config), schema: _Connected }) !== undefined;
  const variable = Number(env.MCP_TIMEOUT);
  const borrowed = timeoutMs(config);
  if (borrowed !== undefined && configuredTimeout(config) === undefined)
    return { ms: launcher && !seen ? Math.max(borrowed, MCP_INSTALL_CAP_MS) : borrowed, first: !seen };
  const own = configuredTimeout(config) ?? (Number.isFinite(variable) && variable >= 1000 ? Math.round(variable) : undefined);
  if (own !== undefined) return { ms: own, first: !seen };
  if (seen) return { ms: launcher ? MCP_LAUNCHER_AFTER_SUCCESS_MS : MCP_AFTER_SUCCESS_MS, first: false };
  return { ms: launcher ? MCP_INSTALL_CAP_MS : MCP_FIRST_START_MS, first: true };
}

/** Remembers that `name` connected with this target, taking `ms`. */
export function rememberConnected(name: string, config: McpServerConfig, ms: number): void {
  keepLearned(_key(name), describeTarget(config), { ms });
}

function _key(name: string): string {
  return `mcp-connected:${name}`;
}

/** How long a headless run may hold its first request for `name`: undefined for a server never seen connecting. */
export function headlessWait(name: string, config: McpServerConfig): number | undefined {
  const seen = recallLearned(_key(name), { basis: describeTarget(config), schema: _Connected });
  if (!seen) return undefined;
  return Math.min(connectTimeout(name, config).ms, seen.ms * 2 + 2_000);
}
