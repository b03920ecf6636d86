/**
 * What `shiro mcp list|get|add` do beyond parsing (cmd/mcp.ts): the servers of config.json and of
 * the project's `.mcp.json` with where each comes from, the list report, and saving an entry to
 * the scope asked for.
 */
import { UsageError, UserError } from "../platform/errors.ts";
import type { McpServerConfig } from "../extensions/mcp/servers.ts";
import { writeOut } from "./output.ts";

const _print = (text: string): void => {
  writeOut(`${text}\n`);
};

export interface ConfiguredServer {
  name: string;
  config: McpServerConfig;
  /** The file it comes from; `trusted` false for an untrusted `.mcp.json`. */
  source: string;
  trusted: boolean;
}

export async function listConfiguredServers(): Promise<{ listed: ConfiguredServer[]; notes: string[] }> {
  const { loadConfigFile } = await import("../config/config.ts");
  const { paths } = await import("../platform/paths.ts");
  const { findProjectRoot } = await import("../config/project.ts");
  const { readProjectMcp } = await import("../store/project-mcp.ts");
  const own = loadConfigFile().mcpServers ?? {};
  const listed: ConfiguredServer[] = Object.entries(own).map(([name, config]) => ({ name, config, source: paths.config(), trusted: true }));
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

/** Connects each enabled, trusted server (each within its own connect timeout) and prints its state and source. */
export async function printServerList(json: boolean): Promise<void> {
  const { listed, notes } = await listConfiguredServers();
  if (listed.length === 0) {
    if (json) return _print("[]");
    _print("no MCP servers configured");
    for (const note of notes) _print(note);
    return _print("add one with: shiro mcp add <name> --command <cmd> [--arg <arg>]…  or  shiro mcp add <name> --url <url>");
  }
  const { isEnabled, serverKind, describeTarget } = await import("../extensions/mcp/servers.ts");
  const { renderServerList } = await import("../ui/mcp-list.ts");
  const runnable = listed.filter((entry) => entry.trusted && isEnabled(entry.config));
  const { createMcpHub } = await import("../extensions/mcp/hub.ts");
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
  const { showControls } = await import("./terminal-text.ts");
  for (const note of notes) _print(showControls(note));
}

/** Saves one entry to config.json (`user`) or the project's `.mcp.json` (`project`), refusing a taken or bad name. */
export async function saveServer(name: string, server: McpServerConfig, scope: "user" | "project"): Promise<void> {
  const { checkServerName, checkServerUrl, describeTarget, isLocalServer } = await import("../extensions/mcp/servers.ts");
  if (!isLocalServer(server) && !server.url.includes("${")) {
    const bad = checkServerUrl(server.url);
    if (bad) throw new UsageError(bad);
  }
  if (scope === "project") {
    const { findProjectRoot } = await import("../config/project.ts");
    const { readProjectMcp, writeProjectServer } = await import("../store/project-mcp.ts");
    const root = findProjectRoot(process.cwd());
    const problem = checkServerName(name, Object.keys(readProjectMcp(root)?.servers ?? {}));
    if (problem) throw new UserError(problem);
    const path = writeProjectServer(root, name, server);
    _print(`added mcp server ${name} (${describeTarget(server)})`);
    return _print(`saved to ${path}`);
  }
  const { loadConfigFile, writeConfigPatch } = await import("../config/config.ts");
  const { paths } = await import("../platform/paths.ts");
  const servers = loadConfigFile().mcpServers ?? {};
  const problem = checkServerName(name, Object.keys(servers));
  if (problem) throw new UserError(problem);
  writeConfigPatch({ mcpServers: { ...servers, [name]: server } });
  _print(`added mcp server ${name} (${describeTarget(server)})`);
  _print(`saved to ${paths.config()}`);
}
