/** `/search <words>`: `shiro search` from the REPL, over this project's sessions, runs, notes and episodes. */
import { SLASH_DONE, type SlashCommand } from "./command.ts";

export const SEARCH_COMMAND: SlashCommand = {
  name: "/search",
  args: "<words>",
  help: "find past prompts, answers, tool results, notes and episodes of this project",
  async run(args, { agent, write, style }) {
    const query = args.trim();
    if (!query) {
      write("usage: /search <words>  (shiro search --help for more: --since, --all, --runs)\n");
      return SLASH_DONE;
    }
    const { homedir } = await import("node:os");
    const { findProjectRoot } = await import("../../config/project.ts");
    const { searchEverything } = await import("../../find/search.ts");
    const { formatSearchLines } = await import("../search-lines.ts");
    const root = findProjectRoot(agent.session.cwd);
    const hits = await searchEverything({ query, project: root, memoryRoot: root, limit: 10, onNotice: (text) => write(style.dim(`${text}\n`)) });
    const bold = style.bold("x") !== "x";
    const width = process.stdout.isTTY ? process.stdout.columns || 80 : undefined;
    write(`${formatSearchLines(hits, query, { bold, home: homedir(), ...(width ? { width } : {}) }).join("\n")}\n`);
    return SLASH_DONE;
  },
};
