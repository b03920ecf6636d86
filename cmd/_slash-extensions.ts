/**
 * /mcp and /registry in the REPL: the CLI's own `shiro mcp …` and `shiro registry …` run in this
 * process (same checks, same output, same questions, with the terminal free for them). A change
 * (`add`, `remove`, `rm`) reopens this session with it: new MCP servers connect, installed skills
 * and plugins load, removed ones leave, without a restart. `/mcp` alone lists this session's
 * servers and their state.
 */
import { runCommand, type CommandDef } from "citty";
import { SLASH_DONE, type SlashCommand } from "./_slash-command.ts";

const _CHANGES = new Set(["add", "remove", "rm"]);

/** `args` as the words a shell would pass: whitespace splits, "double" or 'single' quotes group. */
export function splitSlashWords(args: string): string[] {
  const words: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function _runCli(load: () => Promise<{ default: CommandDef<any> }>, words: string[]): Promise<boolean> {
  await runCommand((await load()).default, { rawArgs: words });
  return _CHANGES.has(words[0] ?? "");
}

const _mcp: SlashCommand = {
  name: "/mcp", args: "[add|remove …]", help: "this session's MCP servers; add or remove one (as shiro mcp) without a restart",
  async run(args, { agent, write }) {
    const words = splitSlashWords(args);
    if (words.length > 0) return { kind: "reload", change: () => _runCli(() => import("./mcp.ts"), words) };
    const statuses = agent.mcpStatus();
    if (statuses.length === 0) write("no MCP servers configured - add one with: /mcp add <name> --command <cmd> [--arg <arg>]…  or  /mcp add <name> --url <url>\n");
    else {
      const { renderServerList } = await import("../lib/repl/mcp-list.ts");
      write(`${renderServerList(statuses)}\n`);
    }
    return SLASH_DONE;
  },
};

const _registry: SlashCommand = {
  name: "/registry", args: "[list|search|add|remove …]", help: "skills and plugins from the registry (as shiro registry); an install loads at once",
  run: (args) => ({ kind: "reload", change: () => _runCli(() => import("./registry.ts"), splitSlashWords(args)) }),
};

export const EXTENSION_COMMANDS: readonly SlashCommand[] = [_mcp, _registry];
