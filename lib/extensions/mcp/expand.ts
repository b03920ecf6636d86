/**
 * `${VAR}` and `${VAR:-default}` (lib/config/env-references.ts) in an MCP server's command, args,
 * env, cwd, url and headers, expanded when the server starts: a missing variable fails that server
 * with a line naming it. Cursor's `envFile` is read here too (its variables under `env`, which wins).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expandVariables } from "../../config/env-references.ts";
import type { McpServerConfig } from "./servers.ts";

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
