/**
 * `shiro mcp [list] [--json]`, `shiro mcp add …` (shiro's and Claude Code's forms,
 * lib/extensions/mcp/add-args.ts), `shiro mcp add-json <name> '<json>'`, `shiro mcp get <name>`,
 * `shiro mcp remove <name>`: the MCP servers of config.json and of the project's `.mcp.json`.
 * `list` connects to each enabled, trusted server (each within its own connect timeout) to report
 * its state and tools, and says where each comes from.
 */
import { defineCommand } from "citty";
import { UsageError, UserError } from "../lib/platform/errors.ts";
import type { McpServerConfig } from "../lib/extensions/mcp/servers.ts";
import { writeOut } from "../lib/ui/output.ts";

const _print = (text: string): void => {
  writeOut(`${text}\n`);
};
const _jsonFlag = { json: { type: "boolean", description: "print an array of server states as JSON" } } as const;
const _scopeFlag = {
  scope: { type: "string", alias: "s", description: "user (config.json, default; Claude Code's local is the same) or project (.mcp.json)" },
} as const;

interface _Listed {
  name: string;
  config: McpServerConfig;
  /** The file it comes from; `trusted` false for an untrusted `.mcp.json`. */
  source: string;
  trusted: boolean;
}

async function _configured(): Promise<{ listed: _Listed[]; notes: string[] }> {
  const { loadConfigFile } = await import("../lib/config/config.ts");
  const { paths } = await import("../lib/platform/paths.ts");
  const { findProjectRoot } = await import("../lib/config/project.ts");
  const { readProjectMcp } = await import("../lib/store/project-mcp.ts");
  const own = loadConfigFile().mcpServers ?? {};
  const listed: _Listed[] = Object.entries(own).map(([name, config]) => ({ name, config, source: paths.config(), trusted: true }));
  const notes: string[] = [];
  try {
    const project = readProjectMcp(findProjectRoot(process.cwd()));
    for (const [name, config] of Object.entries(project?.servers ?? {})) {
      if (Object.hasOwn(own, name)) notes.push(`${name} in ${project!.path} is shadowed by config.json's entry of that name`);
      else listed.push({ name, config, source: project!.path, trusted: project!.trusted });
    }
    for (const skip of project?.skipped ?? []) notes.push(`${project!.path}: server ${skip.name} skipped: ${skip.reason}`);
  } catch (error) {
    notes.push(error instanceof Error ? error.message : String(error));
  }
  return { listed, notes };
}

async function _list(json: boolean): Promise<void> {
  const { listed, notes } = await _configured();
  if (listed.length === 0) {
    if (json) return _print("[]");
    _print("no MCP servers configured");
    for (const note of notes) _print(note);
    return _print("add one with: shiro mcp add <name> --command <cmd> [--arg <arg>]…  or  shiro mcp add <name> --url <url>");
  }
  const { isEnabled, serverKind, describeTarget } = await import("../lib/extensions/mcp/servers.ts");
  const { renderServerList } = await import("../lib/ui/mcp-list.ts");
  const runnable = listed.filter((entry) => entry.trusted && isEnabled(entry.config));
  const { createMcpHub } = await import("../lib/extensions/mcp/hub.ts");
  const hub = createMcpHub(Object.fromEntries(runnable.map((entry) => [entry.name, entry.config])), { cwd: process.cwd() });
  hub.start();
  await hub.ready();
  const statuses = new Map(hub.status().map((status) => [status.name, status]));
  await hub.close();
  const rows = listed.map((entry) => {
    const base = { name: entry.name, kind: serverKind(entry.config), target: describeTarget(entry.config), tools: 0 };
    const status = statuses.get(entry.name) ?? {
      ...base,
      state: "closed" as const,
      error: !isEnabled(entry.config) ? "disabled in its entry" : "not started: this folder's .mcp.json is not trusted (start shiro here once and answer y)",
    };
    return { ...status, source: entry.source };
  });
  if (json) return _print(JSON.stringify(rows, null, 2));
  _print(renderServerList(rows));
  for (const note of notes) _print(note);
}

async function _save(name: string, server: McpServerConfig, scope: "user" | "project"): Promise<void> {
  const { checkServerName, checkServerUrl, describeTarget, isLocalServer } = await import("../lib/extensions/mcp/servers.ts");
  if (!isLocalServer(server) && !server.url.includes("${")) {
    const bad = checkServerUrl(server.url);
    if (bad) throw new UserError(bad);
  }
  if (scope === "project") {
    const { findProjectRoot } = await import("../lib/config/project.ts");
    const { readProjectMcp, writeProjectServer } = await import("../lib/store/project-mcp.ts");
    const root = findProjectRoot(process.cwd());
    const problem = checkServerName(name, Object.keys(readProjectMcp(root)?.servers ?? {}));
    if (problem) throw new UserError(problem);
    const path = writeProjectServer(root, name, server);
    _print(`added mcp server ${name} (${describeTarget(server)})`);
    return _print(`saved to ${path}`);
  }
  const { loadConfigFile, writeConfigPatch } = await import("../lib/config/config.ts");
  const { paths } = await import("../lib/platform/paths.ts");
  const servers = loadConfigFile().mcpServers ?? {};
  const problem = checkServerName(name, Object.keys(servers));
  if (problem) throw new UserError(problem);
  writeConfigPatch({ mcpServers: { ...servers, [name]: server } });
  _print(`added mcp server ${name} (${describeTarget(server)})`);
  _print(`saved to ${paths.config()}`);
}

const listCommand = defineCommand({
  meta: { name: "list", description: "connect to each configured server and report its state, tool count and source" },
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
    await _save(parsed.name, parsed.server, parsed.scope);
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
    await _save(String(args.name), server, scope);
  },
});

const getCommand = defineCommand({
  meta: { name: "get", description: "show one server's entry and the file it comes from" },
  args: { name: { type: "positional", description: "the server's name" }, ..._jsonFlag },
  async run({ args }) {
    const { listed } = await _configured();
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
  run: ({ args }) => _list(args.json === true),
});
