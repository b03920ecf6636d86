/**
 * `shiro mcp [list] [--json]`, `shiro mcp add …` (shiro's and Claude Code's forms,
 * lib/extensions/mcp/add-args.ts), `shiro mcp add-json <name> '<json>'`, `shiro mcp get <name>`,
 * `shiro mcp remove <name>`: the MCP servers of config.json and of the project's `.mcp.json`.
 * `list` connects to each enabled, trusted server (each within its own connect timeout) to report
 * its state and tools, and says where each comes from.
 */
import { defineCommand } from "citty";
import { UsageError, UserError } from "../lib/platform/errors.ts";
import { listConfiguredServers, printServerList, saveServer } from "../lib/ui/mcp-admin.ts";
import { writeOut } from "../lib/ui/output.ts";

const _print = (text: string): void => {
  writeOut(`${text}\n`);
};
const _jsonFlag = { json: { type: "boolean", description: "print an array of server states as JSON" } } as const;
const _scopeFlag = {
  scope: { type: "string", alias: "s", description: "user (config.json, default; Claude Code's local is the same) or project (.mcp.json)" },
} as const;

const listCommand = defineCommand({
  meta: { name: "list", description: "connect to each configured server and report its state, tool count and source" },
  args: _jsonFlag,
  run: ({ args }) => printServerList(args.json === true),
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

const addCommand = defineCommand({
  meta: {
    name: "add",
    description: "add a server: shiro mcp add memory -- npx -y @modelcontextprotocol/server-memory, or shiro mcp add --transport http docs https://…",
  },
  args: {
    name: { type: "positional", required: false, description: "letters, digits, underscores, dots and hyphens" },
    target: { type: "positional", required: false, variadic: true, description: "the command and its arguments (after --), or the URL" } as const,
    command: { type: "string", description: "local server: the program to run (stdio); or give it after --" },
    arg: { type: "string", description: "local server: one argument, repeatable (--arg=-y for one that starts with -)" },
    env: { type: "string", alias: "e", description: "local server: KEY=value added to its environment, repeatable" },
    url: { type: "string", description: "remote server: its http(s) URL; or give it after the name" },
    transport: { type: "string", alias: "t", description: "stdio, http (streamable HTTP, default for a URL) or sse" },
    type: { type: "string", description: "the same as --transport" },
    header: { type: "string", alias: "H", description: 'remote server: "Name: value" sent with every request, repeatable' },
    ..._scopeFlag,
  },
  async run({ rawArgs }) {
    const { parseAddArgs, McpAddUsage } = await import("../lib/extensions/mcp/add-args.ts");
    let parsed;
    try {
      parsed = parseAddArgs(rawArgs);
    } catch (error) {
      throw error instanceof McpAddUsage ? new UsageError(error.message) : error;
    }
    await saveServer(parsed.name, parsed.server, parsed.scope);
  },
});

const addJsonCommand = defineCommand({
  meta: { name: "add-json", description: `add a server from its JSON entry: shiro mcp add-json fs '{"command":"npx","args":["-y","pkg"]}'` },
  args: {
    name: { type: "positional", description: "the server's name" },
    json: { type: "positional", description: "the entry as Claude Code, Claude Desktop or Cursor write it" },
    ..._scopeFlag,
  },
  async run({ args }) {
    const { readServerEntry } = await import("../lib/store/project-mcp.ts");
    let raw: unknown;
    try {
      raw = JSON.parse(String(args.json));
    } catch (error) {
      throw new UserError(`the server entry is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const server = readServerEntry(raw);
    if (typeof server === "string") throw new UserError(`the server entry does not fit: ${server}`);
    const scope = args.scope === undefined || args.scope === "user" || args.scope === "local" ? "user" : args.scope === "project" ? "project" : undefined;
    if (!scope) throw new UsageError(`--scope must be user, local or project (got ${String(args.scope)})`);
    await saveServer(String(args.name), server, scope);
  },
});

const getCommand = defineCommand({
  meta: { name: "get", description: "show one server's entry and the file it comes from" },
  args: { name: { type: "positional", description: "the server's name" }, ..._jsonFlag },
  async run({ args }) {
    const { listed } = await listConfiguredServers();
    const entry = listed.find((item) => item.name === String(args.name));
    if (!entry) throw new UserError(`no MCP server named "${String(args.name)}"`);
    if (args.json) return _print(JSON.stringify({ name: entry.name, source: entry.source, trusted: entry.trusted, ...entry.config }, null, 2));
    _print(`${entry.name}: from ${entry.source}${entry.trusted ? "" : " (not trusted yet)"}`);
    _print(JSON.stringify(entry.config, null, 2));
  },
});

export default defineCommand({
  meta: { name: "mcp", description: "list, add, get or remove MCP servers" },
  args: _jsonFlag,
  subCommands: {
    list: listCommand,
    add: addCommand,
    "add-json": addJsonCommand,
    get: getCommand,
    remove: removeCommand,
    rm: removeCommand,
  },
  run: ({ args }) => printServerList(args.json === true),
});
