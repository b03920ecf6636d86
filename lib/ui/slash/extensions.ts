/**
 * /mcp and /registry in the REPL: the CLI's own `shiro mcp …` and `shiro registry …` run as a
 * child of this same shiro (selfCommand), on this terminal (same checks, same output, same
 * questions; readline is paused meanwhile). A change that succeeded (`add`, `remove`, `rm`, exit
 * 0) reopens this session with it: new MCP servers connect, installed skills and plugins load,
 * removed ones leave, without a restart. `/mcp` alone lists this session's servers and their state;
 * `/plugins` lists this session's plugins and those that failed to load; `/reload` reopens the session with whatever is on disk now (a skill file just written, say).
 */
import { spawn } from "node:child_process";
import { selfCommand } from "../../platform/runtime.ts";
import { SLASH_DONE, type SlashCommand } from "./command.ts";

const _CHANGES = new Set(["add", "remove", "rm"]);

/** `args` as the words a shell would pass: whitespace splits, "double" or 'single' quotes group. */
export function splitSlashWords(args: string): string[] {
  const words: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

/** Runs `shiro <words…>` on this terminal; true when it changed something (a change subcommand that exited 0). */
async function _runCli(words: string[]): Promise<boolean> {
  const [command, ...prefix] = selfCommand();
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(command!, [...prefix, ...words], { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (exit) => resolve(exit ?? 1));
  });
  return code === 0 && _CHANGES.has(words[1] ?? "");
}

const _mcp: SlashCommand = {
  name: "/mcp",
  args: "[add|remove …]",
  help: "this session's MCP servers; add or remove one (as shiro mcp) without a restart",
  async run(args, { agent, write }) {
    const words = splitSlashWords(args);
    if (words.length > 0) return { kind: "reload", change: () => _runCli(["mcp", ...words]) };
    const statuses = agent.mcpStatus();
    if (statuses.length === 0)
      write("no MCP servers configured - add one with: /mcp add <name> --command <cmd> [--arg <arg>]…  or  /mcp add <name> --url <url>\n");
    else {
      const { renderServerList } = await import("../mcp-list.ts");
      write(`${renderServerList(statuses)}\n`);
    }
    return SLASH_DONE;
  },
};

const _registry: SlashCommand = {
  name: "/registry",
  args: "[list|search|add|remove …]",
  help: "skills and plugins from the registry (as shiro registry); an install loads at once",
  run: (args) => ({ kind: "reload", change: () => _runCli(["registry", ...splitSlashWords(args)]) }),
};

const _reload: SlashCommand = {
  name: "/reload",
  help: "load skills, plugins, MCP servers and instructions again from disk (the same session)",
  run: () => ({ kind: "reload", change: async () => true }),
};

const _plugins: SlashCommand = {
  name: "/plugins",
  help: "the plugins of this session, then any that failed to load",
  run(_args, { agent, write, style }) {
    const plugins = agent.plugins;
    if (plugins.disabled) write("plugins: none (--no-plugins), so the guard is off\n");
    else {
      const active = plugins.active();
      const width = Math.max(12, ...active.map((plugin) => plugin.name.length + 2));
      if (active.length === 0) write("no plugins loaded\n");
      for (const plugin of active) write(`${plugin.name.padEnd(width)}${style.dim(`${plugin.description}${plugin.installed ? " (installed)" : ""}`)}\n`);
      for (const failure of plugins.failures()) write(`${failure.name.padEnd(width)}failed to load: ${failure.error}\n`);
    }
    return SLASH_DONE;
  },
};

const _hooks: SlashCommand = {
  name: "/hooks",
  help: "the hooks of this folder: event, matcher, command and the file each came from",
  async run(_args, { agent, write }) {
    const { listConfiguredHooks } = await import("../../agent/session-settings.ts");
    const { renderHookList } = await import("../hooks-list.ts");
    const listing = listConfiguredHooks(agent.config.file.hooks, process.cwd());
    write(`${renderHookList(listing)}\n${agent.hooks ? "" : "no hooks run in this session (--no-hooks, or none configured)\n"}`);
    return SLASH_DONE;
  },
};

export const EXTENSION_COMMANDS: readonly SlashCommand[] = [_mcp, _registry, _plugins, _reload, _hooks];
