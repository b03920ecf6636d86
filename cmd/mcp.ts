/**
 * `shiro mcp [list] [--json]`, `shiro mcp add <name> …`, `shiro mcp remove <name>`: the MCP
 * servers in config.json. `list` connects to each (15 s bound) to report its state and tools.
 */
import { defineCommand } from "citty";
import { UsageError, UserError } from "../lib/platform/errors.ts";
import { renderServerList } from "../lib/ui/mcp-list.ts";
import type { McpServerConfig } from "../lib/extensions/mcp/servers.ts";
import { writeOut } from "../lib/ui/output.ts";

const _print = (text: string): void => {
  writeOut(`${text}\n`);
};
const _jsonFlag = { json: { type: "boolean", description: "print an array of server states as JSON" } } as const;

async function _list(json: boolean): Promise<void> {
  const { loadConfigFile } = await import("../lib/config/config.ts");
  const { paths } = await import("../lib/platform/paths.ts");
  const servers = loadConfigFile().mcpServers ?? {};
  if (Object.keys(servers).length === 0) {
    if (json) return _print("[]");
    _print("no MCP servers configured");
    return _print("add one with: shiro mcp add <name> --command <cmd> [--arg <arg>]…  or  shiro mcp add <name> --url <url>");
  }
  const { createMcpHub } = await import("../lib/extensions/mcp/hub.ts");
  const hub = createMcpHub(servers, { cwd: process.cwd() });
  hub.start();
  await hub.ready();
  const statuses = hub.status();
  await hub.close();
  if (json) return _print(JSON.stringify(statuses, null, 2));
  _print(renderServerList(statuses));
  _print(`\nconfigured in ${paths.config()}`);
}

/** Every value of a repeatable flag, in order: `--arg a --arg=b` → ["a", "b"]. */
function _repeated(rawArgs: readonly string[], flag: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") break;
    if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
    else if (arg === flag && rawArgs[i + 1] !== undefined) values.push(rawArgs[++i]!);
  }
  return values;
}

function _parsePairs(values: readonly string[], separator: ":" | "=", shape: string): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const pairs: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf(separator);
    const key = at > 0 ? value.slice(0, at).trim() : "";
    if (!key) throw new UsageError(`"${value}" must look like "${shape}"`);
    pairs[key] = value.slice(at + 1).trim();
  }
  return pairs;
}

function _buildServer(args: Record<string, unknown>, rawArgs: readonly string[], checkUrl: (url: string) => string | undefined): McpServerConfig {
  const command = typeof args.command === "string" ? args.command : undefined;
  const url = typeof args.url === "string" ? args.url : undefined;
  const localFlags = _repeated(rawArgs, "--arg").length + _repeated(rawArgs, "--env").length;
  const remoteFlags = _repeated(rawArgs, "--header").length + (args.type === undefined ? 0 : 1);
  if (command !== undefined && url !== undefined) throw new UsageError("give either --command (a local server) or --url (a remote one), not both");
  if (command !== undefined) {
    if (remoteFlags > 0) throw new UsageError("--header and --type are for remote servers (--url)");
    if (!command.trim()) throw new UsageError("--command needs a command line");
    const argv = _repeated(rawArgs, "--arg");
    const env = _parsePairs(_repeated(rawArgs, "--env"), "=", "KEY=value");
    return { command, ...(argv.length > 0 ? { args: argv } : {}), ...(env ? { env } : {}) };
  }
  if (url !== undefined) {
    if (localFlags > 0) throw new UsageError("--arg and --env are for local servers (--command)");
    const problem = checkUrl(url);
    if (problem) throw new UsageError(problem);
    const headers = _parsePairs(_repeated(rawArgs, "--header"), ":", "Name: value");
    const type = args.type === "sse" ? ("sse" as const) : undefined;
    return { url, ...(type ? { type } : {}), ...(headers ? { headers } : {}) };
  }
  throw new UsageError("shiro mcp add needs --command <cmd> (a local server) or --url <url> (a remote one)");
}

const listCommand = defineCommand({
  meta: { name: "list", description: "connect to each configured server and report its state and tool count" },
  args: _jsonFlag,
  run: ({ args }) => _list(args.json === true),
});

const removeCommand = defineCommand({
  meta: { name: "remove", description: "remove a server from config.json (alias rm)" },
  args: { name: { type: "positional", description: "the server's name" } },
  async run({ args }) {
    const { loadConfigFile, writeConfigPatch } = await import("../lib/config/config.ts");
    const { paths } = await import("../lib/platform/paths.ts");
    const name = String(args.name);
    const servers = { ...loadConfigFile().mcpServers };
    if (!Object.hasOwn(servers, name)) throw new UserError(`no MCP server named "${name}"`);
    delete servers[name];
    writeConfigPatch({ mcpServers: Object.keys(servers).length > 0 ? servers : undefined });
    _print(`removed mcp server ${name}`);
    _print(`saved to ${paths.config()}`);
  },
});

export default defineCommand({
  meta: { name: "mcp", description: "list, add or remove MCP servers" },
  args: _jsonFlag,
  subCommands: {
    list: listCommand,
    add: defineCommand({
      meta: { name: "add", description: "add a server: shiro mcp add memory --command npx --arg=-y --arg @modelcontextprotocol/server-memory" },
      args: {
        name: { type: "positional", description: "letters, digits and hyphens" },
        command: { type: "string", description: "local server: the program to run (stdio)" },
        arg: { type: "string", description: "local server: one argument, repeatable (--arg=-y for one that starts with -)" },
        env: { type: "string", description: "local server: KEY=value added to its environment, repeatable" },
        url: { type: "string", description: "remote server: its http(s) URL" },
        type: { type: "enum", options: ["http", "sse"], description: "remote server: http (streamable HTTP, default) or sse" },
        header: { type: "string", description: 'remote server: "Name: value" sent with every request, repeatable' },
      },
      async run({ args, rawArgs }) {
        const { loadConfigFile, writeConfigPatch } = await import("../lib/config/config.ts");
        const { paths } = await import("../lib/platform/paths.ts");
        const { checkServerName, checkServerUrl, describeTarget } = await import("../lib/extensions/mcp/servers.ts");
        const name = String(args.name);
        const servers = loadConfigFile().mcpServers ?? {};
        const problem = checkServerName(name, Object.keys(servers));
        if (problem) throw new UserError(problem);
        const server = _buildServer(args, rawArgs, checkServerUrl);
        writeConfigPatch({ mcpServers: { ...servers, [name]: server } });
        _print(`added mcp server ${name} (${describeTarget(server)})`);
        _print(`saved to ${paths.config()}`);
      },
    }),
    remove: removeCommand,
    rm: removeCommand,
  },
  run: ({ args }) => _list(args.json === true),
});
