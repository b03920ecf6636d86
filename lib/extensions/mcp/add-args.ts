/**
 * The arguments of `shiro mcp add`, in shiro's own form and in Claude Code's (`claude mcp add`):
 *
 *   shiro mcp add <name> --command <cmd> [--arg <a>]… [--env K=V]…
 *   shiro mcp add <name> --url <url> [--type http|sse] [--header "K: V"]…
 *   shiro mcp add [-t|--transport stdio|http|sse] [-s|--scope user|local|project] [-e K=V]… [-H "K: V"]… <name> [-- ]<command|url> [args…]
 *
 * Everything after `--` is the command and its arguments, as written. A positional target that
 * starts with http:// or https:// is a remote server even without --transport. Flags take
 * `--flag value` and `--flag=value`. A bad combination is a usage error (exit 2), worded here.
 */
import type { McpServerConfig } from "./servers.ts";

export type McpScope = "user" | "project";

export interface McpAddArgs {
  name: string;
  server: McpServerConfig;
  /** `user` (and Claude Code's `local`): config.json; `project`: the project's `.mcp.json`. */
  scope: McpScope;
}

const _VALUE_FLAGS: Record<string, string> = {
  "--command": "command",
  "--arg": "arg",
  "--env": "env",
  "-e": "env",
  "--url": "url",
  "--type": "transport",
  "--transport": "transport",
  "-t": "transport",
  "--header": "header",
  "-H": "header",
  "--scope": "scope",
  "-s": "scope",
};

/** Thrown for arguments that do not make a server; `cmd/` turns it into a usage error. */
export class McpAddUsage extends Error {}

/** Reads the arguments after `add`. Throws McpAddUsage with a one-line message. */
export function parseAddArgs(rawArgs: readonly string[]): McpAddArgs {
  const values: Record<string, string[]> = {};
  const positional: string[] = [];
  let rest: string[] | undefined;
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      rest = rawArgs.slice(i + 1);
      break;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const key = _VALUE_FLAGS[flag];
    if (key) {
      const value = eq > 0 ? arg.slice(eq + 1) : rawArgs[++i];
      if (value === undefined) throw new McpAddUsage(`${flag} needs a value`);
      (values[key] ??= []).push(value);
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new McpAddUsage(`unknown option ${arg}; put the server's own options after --`);
    } else positional.push(arg);
  }
  const one = (key: string): string | undefined => {
    const list = values[key];
    if (list && list.length > 1) throw new McpAddUsage(`give ${key === "transport" ? "--transport" : `--${key}`} once`);
    return list?.[0];
  };
  const [name = "", ...afterName] = positional;
  const target = [...afterName, ...(rest ?? [])];
  const scope = _scope(one("scope"));
  const transport = one("transport");
  if (transport !== undefined && !["stdio", "http", "sse"].includes(transport))
    throw new McpAddUsage(`--transport must be stdio, http or sse (got ${transport})`);
  let command = one("command");
  let url = one("url");
  const argv = [...(values.arg ?? [])];
  if (command === undefined && url === undefined && target.length > 0) {
    const remote = transport === "http" || transport === "sse" || (transport === undefined && /^https?:\/\//i.test(target[0]!));
    if (remote) {
      if (target.length > 1) throw new McpAddUsage(`a remote server takes one URL (got ${target.join(" ")})`);
      url = target[0];
    } else {
      command = target[0];
      argv.push(...target.slice(1));
    }
  } else if (target.length > 0) throw new McpAddUsage(`unexpected ${target.join(" ")}: give the server as --command/--url or after the name, not both`);
  if (command !== undefined && url !== undefined) throw new McpAddUsage("give either --command (a local server) or --url (a remote one), not both");
  const env = _pairs(values.env ?? [], "=", "KEY=value");
  const headers = _pairs(values.header ?? [], ":", "Name: value");
  if (command !== undefined) {
    if (!command.trim()) throw new McpAddUsage("--command needs a command line");
    if (headers || (transport !== undefined && transport !== "stdio")) throw new McpAddUsage("--header and --type are for remote servers (--url)");
    return { name, scope, server: { command, ...(argv.length > 0 ? { args: argv } : {}), ...(env ? { env } : {}) } };
  }
  if (url !== undefined) {
    if (argv.length > 0 || env) throw new McpAddUsage("--arg and --env are for local servers (--command)");
    if (transport === "stdio") throw new McpAddUsage("--transport stdio needs a command, not a URL");
    return { name, scope, server: { url, ...(transport === "sse" ? { type: "sse" as const } : {}), ...(headers ? { headers } : {}) } };
  }
  throw new McpAddUsage("shiro mcp add needs --command <cmd> (a local server) or --url <url> (a remote one)");
}

function _scope(value: string | undefined): McpScope {
  if (value === undefined || value === "user" || value === "local") return "user";
  if (value === "project") return "project";
  throw new McpAddUsage(`--scope must be user, local or project (got ${value})`);
}

function _pairs(values: readonly string[], separator: ":" | "=", shape: string): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const pairs: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const key = at > 0 ? value.slice(0, at).trim() : "";
    if (!key) throw new McpAddUsage(`"${value}" must look like "${shape}"`);
    pairs[key] = value.slice(at + 1).trim();
  }
  return pairs;
}
