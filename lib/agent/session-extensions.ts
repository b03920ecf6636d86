/**
 * Opens what extends a session beyond the built-in tools: plugins (builtin and installed from
 * the registry), skills, and MCP servers. Each step returns what it opened and pushes what went
 * wrong as notices; nothing here throws for a broken extension.
 */
import type { McpServers, ResolvedConfig } from "../config/config.ts";
import type { McpHub } from "../extensions/mcp/hub.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { paths, stateDir } from "../platform/paths.ts";
import { createDisabledPluginHost, createPluginHost } from "../extensions/plugin-host.ts";
import type { PluginHost } from "../extension-api/plugin-api.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import { loadSkillsWithYaml, type Skill } from "../skills/skills.ts";
import { allowReadOnly } from "../tools/jail.ts";
import { findProjectRoot } from "../config/project.ts";
import { readProjectMcp, type ProjectMcp, type ProjectMcpServer } from "../store/project-mcp.ts";
import type { AgentEvent } from "../events.ts";
import { ruleLayer, type RuleLayer } from "../approval/rules.ts";
import type { WorkspaceFiles } from "../tools/types.ts";
import type { StartupNotice } from "../notices.ts";
import { readAgentDefinitions, type AgentDefinition } from "../store/agent-definitions.ts";

/** Builtin plugins from config, plus every plugin installed from the registry; none with --no-plugins. */
export async function openPlugins(
  cwd: string,
  config: ResolvedConfig,
  sandbox: CommandSandbox,
  disabled: boolean,
  notices: StartupNotice[],
  writeStderr: (text: string) => void,
): Promise<PluginHost> {
  if (disabled) return createDisabledPluginHost();
  const plugins = createPluginHost({ cwd, enabled: config.file.plugins, writeStderr, wrapCommand: (argv) => sandbox.wrap(argv, cwd) });
  // Plugins installed from the registry always load (declarative deny rules), unless --no-plugins;
  // the registry's code (and its manifest schemas) loads only when something was ever installed.
  if (!existsSync(join(paths.registryDir(), "plugins"))) return _withFailures(plugins, notices);
  const { loadInstalledPlugins } = await import("../extensions/registry/registry.ts");
  const installed = loadInstalledPlugins();
  if (installed.manifests.length > 0) plugins.loadInstalled(installed.manifests);
  for (const failure of installed.failures) notices.push({ code: "plugin-failed", name: failure.name, error: failure.error });
  return _withFailures(plugins, notices);
}

function _withFailures(plugins: PluginHost, notices: StartupNotice[]): PluginHost {
  for (const failure of plugins.failures()) notices.push({ code: "plugin-failed", name: failure.name, error: failure.error });
  return plugins;
}

export async function openSkills(cwd: string, disabled: boolean, notices: StartupNotice[]): Promise<Skill[]> {
  if (disabled) return [];
  const loaded = await loadSkillsWithYaml({ cwd, stateDir: stateDir() });
  for (const skip of loaded.skipped) notices.push({ code: "skill-skipped", path: skip.path, reason: skip.reason });
  // A skill's body names files beside it; those folders are readable (never writable) through the jail.
  allowReadOnly(loaded.skills.flatMap((skill) => (skill.folder && skill.origin !== "registry" ? [skill.folder] : [])));
  return loaded.skills;
}

/**
 * The custom subagents of the user and of this project (`.claude/agents`, `.shiro/agents`); a
 * project file not trusted for its exact content is left out with a notice (the REPL asks first:
 * lib/ui/project-trust.ts). None with --no-subagent.
 */
export function openCustomAgents(cwd: string, disabled: boolean, notices: StartupNotice[], projectRoot = findProjectRoot(cwd)): AgentDefinition[] {
  if (disabled) return [];
  const read = readAgentDefinitions(projectRoot);
  for (const line of read.skipped) notices.push({ code: "store", text: `subagent ${line}` });
  for (const file of read.untrusted) {
    notices.push({
      code: "store",
      text: `${file.definition.path} not used: this project's subagent definition is not trusted (start shiro without -p here to answer the trust question)`,
    });
  }
  return read.agents;
}

/**
 * What an editor brings to a session it drives over ACP (lib/ui/acp/): its MCP servers, connected
 * beside the configured ones (a configured server of the same name wins), and its file buffers,
 * which file tools read and write through (`ToolContext.files`).
 */
export interface EditorConnection {
  mcpServers?: McpServers;
  files?: WorkspaceFiles;
}

export interface McpConnection {
  hub?: McpHub;
  /** MCP state changes since the last step; the run driver empties it into the event stream. */
  events: AgentEvent[];
  /** The servers' `alwaysAllow` lists as allow rules (lib/extensions/mcp/servers.ts): a source beside config, which a deny anywhere outvotes. */
  permissionLayers(): RuleLayer[];
  /** Where each server's entry comes from, by name: the config file, the project's `.mcp.json`, or `the editor`. */
  sources: Readonly<Record<string, string>>;
}

/**
 * The servers of the project's `.mcp.json` when the user trusted that exact file (the REPL asks,
 * lib/ui/project-trust.ts); otherwise none, and a notice says why. Config servers win by name.
 */
function _trustedProjectServers(
  projectRoot: string,
  headless: boolean,
  notices: StartupNotice[],
): { servers: Record<string, ProjectMcpServer>; path?: string } {
  let project: ProjectMcp | undefined;
  try {
    project = readProjectMcp(projectRoot);
  } catch (error) {
    notices.push({ code: "store", text: error instanceof Error ? error.message : String(error) });
    return { servers: {} };
  }
  if (!project) return { servers: {} };
  for (const skip of project.skipped) notices.push({ code: "store", text: `${project.path}: server ${skip.name} skipped: ${skip.reason}` });
  if (project.trusted) return { servers: project.servers, path: project.path };
  if (Object.keys(project.servers).length > 0) {
    notices.push({
      code: "store",
      text: `${project.path} not loaded: this folder is not trusted${headless ? "; a headless run never starts an untrusted project's servers (start shiro here once and answer y)" : ""}`,
    });
  }
  return { servers: {} };
}

/**
 * Connects the configured MCP servers in the background; their tools join the step after they
 * are listed. The MCP module (and the SDK behind it) is loaded only when servers are configured.
 * A headless run holds its first request a short grace (MCP_HEADLESS_GRACE_MS), longer only for
 * servers known to start (connect-timeout.ts `headlessWait`), never for a first start: the servers
 * still connecting are named in an `mcp-pending` notice.
 */
export async function connectMcp(
  options: {
    cwd: string;
    /** `cwd`'s project, when the caller has found it already. */
    projectRoot?: string;
    config: ResolvedConfig;
    /** Config `sandbox.mcp`: stdio servers start through `sandbox.wrap`. */
    sandboxMcp: boolean;
    sandbox: CommandSandbox;
    disabled: boolean;
    headless: boolean;
    /** Servers the front end brings (an editor's); configured ones of the same name win. */
    extra?: McpServers;
  },
  notices: StartupNotice[],
): Promise<McpConnection> {
  const project = _trustedProjectServers(options.projectRoot ?? findProjectRoot(options.cwd), options.headless, notices);
  const servers = { ...options.extra, ...project.servers, ...options.config.file.mcpServers };
  const sources: Record<string, string> = {};
  for (const name of Object.keys(options.extra ?? {})) sources[name] = "the editor";
  for (const name of Object.keys(project.servers)) sources[name] = project.path!;
  for (const name of Object.keys(options.config.file.mcpServers ?? {})) sources[name] = options.config.configPath;
  const count = Object.keys(servers).length;
  const events: AgentEvent[] = [];
  if (count === 0) return { events, permissionLayers: () => [], sources };
  if (options.disabled) {
    notices.push({ code: "mcp-off", servers: count });
    return { events, permissionLayers: () => [], sources };
  }
  const { createMcpHub } = await import("../extensions/mcp/hub.ts");
  const { sandbox } = options;
  const hub = createMcpHub(servers, { cwd: options.cwd, ...(options.sandboxMcp ? { wrapCommand: (argv, dir) => sandbox.wrap(argv, dir) } : {}) });
  hub.onChange((status) => {
    if (status.state === "connecting") return;
    events.push({ type: "mcp", server: status.name, status: status.state, tools: status.tools, ...(status.error ? { error: status.error } : {}) });
  });
  hub.start();
  if (options.headless) {
    const { MCP_HEADLESS_GRACE_MS } = await import("../extensions/mcp/hub.ts");
    const { headlessWait } = await import("../extensions/mcp/connect-timeout.ts");
    const waits = Object.entries(servers).map(([name, server]) => headlessWait(name, server) ?? MCP_HEADLESS_GRACE_MS);
    await hub.ready(Math.max(MCP_HEADLESS_GRACE_MS, ...waits));
    const pending = hub.status().flatMap((status) => (status.state === "connecting" ? [status.name] : []));
    if (pending.length > 0) notices.push({ code: "mcp-pending", servers: pending });
  }
  const { alwaysAllowRules } = await import("../extensions/mcp/servers.ts");
  const allow = alwaysAllowRules(servers);
  const layers =
    Object.keys(allow).length === 0
      ? []
      : [
          ruleLayer(
            "alwaysAllow",
            Object.keys(allow).map((key) => [key, [["*", "allow"]]] as const),
          ),
        ];
  return { hub, events, permissionLayers: () => layers, sources };
}
