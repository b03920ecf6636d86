/**
 * `${VAR}` and `${VAR:-default}` in an MCP server's command, args, env, url and headers, as Claude
 * Code expands them in `.mcp.json`: `${VAR}` is the variable's value, `${VAR:-default}` the value
 * when set and not empty, else `default`. A `${VAR}` with no value and no default is an error
 * naming the variable, so the server fails with a line the user can act on instead of starting
 * with an empty token. Cursor's `envFile` is read here too (its variables under `env`).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { McpServerConfig } from "./servers.ts";

const _REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** `text` with every reference expanded from `env`; throws naming the first variable that has no value. */
export function expandVariables(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(_REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === "" ? fallback : value;
    if (value === undefined) throw new Error(`environment variable ${name} is not set (referenced as \${${name}}); set it or write \${${name}:-default}`);
    return value;
  });
}

/** The server's config with every string that may hold references expanded; `cwd` resolves a relative envFile. */
export function expandServer(config: McpServerConfig, env: Readonly<Record<string, string | undefined>>, cwd: string): McpServerConfig {
  const one = (text: string) => expandVariables(text, env);
  const map = (values: Record<string, string> | undefined) =>
    values ? Object.fromEntries(Object.entries(values).map(([key, value]) => [key, one(value)])) : undefined;
  if ("command" in config) {
    const fromFile = config.envFile ? _readEnvFile(resolve(cwd, one(config.envFile))) : {};
    const own = map(config.env);
    const merged = { ...fromFile, ...own };
    return {
      ...config,
      command: one(config.command),
      ...(config.args ? { args: config.args.map(one) } : {}),
      ...(Object.keys(merged).length > 0 ? { env: merged } : {}),
      ...(config.cwd ? { cwd: one(config.cwd) } : {}),
    };
  }
  const headers = map(config.headers);
  return { ...config, url: one(config.url), ...(headers ? { headers } : {}) };
}

/** A dotenv file: `KEY=value` lines, `#` comments, optional `export `, values optionally quoted. */
function _readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(`envFile not readable: ${path}`);
  }
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim().replace(/^export\s+/, "");
    if (line === "" || line.startsWith("#")) continue;
    const at = line.indexOf("=");
    if (at <= 0) continue;
    let value = line.slice(at + 1).trim();
    if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0]!)) value = value.slice(1, -1);
    out[line.slice(0, at).trim()] = value;
  }
  return out;
}
