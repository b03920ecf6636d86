/**
 * The REPL's slash commands. `parseSlash` is pure and shared; `runSlashCommand` performs one
 * and writes its output. Unknown commands answer `unknown command /<x> - try /help`.
 */
import type { Agent } from "../lib/agent/agent.ts";
import { formatUsd } from "../lib/providers/pricing.ts";
import { listSessions, formatSessionLine } from "../lib/store/sessions.ts";
import { renderProgressBar, renderTodoLines } from "../lib/store/notebook.ts";
import type { Style } from "../lib/repl/style.ts";
import { toolSchemaBytes } from "../lib/tools/schema.ts";

export const SLASH_COMMANDS: Record<string, string> = {
  "/help": "this list",
  "/todos": "the task list",
  "/notes": "what shiro remembers about this project",
  "/tools": "tools offered this turn, with their sets",
  "/cost": "tokens, spend and context of this session",
  "/sessions": "the last 15 sessions",
  "/save": "save the session now",
  "/exit": "quit (also /quit, ctrl-c when idle)",
};
const _ALIASES: Record<string, string> = { "/?": "/help", "/quit": "/exit" };

export function parseSlash(line: string): { name: string; args: string } {
  const match = /^(\/\S*)\s*(.*)$/s.exec(line.trim());
  const name = match?.[1] ?? line.trim();
  return { name: _ALIASES[name] ?? name, args: match?.[2]?.trim() ?? "" };
}

export interface SlashContext {
  agent: Agent;
  write: (text: string) => void;
  style: Style;
}

export async function runSlashCommand(line: string, ctx: SlashContext): Promise<"exit" | void> {
  const { name } = parseSlash(line);
  const { agent, write, style } = ctx;
  switch (name) {
    case "/help": {
      const width = Math.max(...Object.keys(SLASH_COMMANDS).map((key) => key.length)) + 2;
      write(`${Object.entries(SLASH_COMMANDS).map(([key, text]) => `${key.padEnd(width)}${style.dim(text)}`).join("\n")}\n`);
      write(style.dim("ctrl-c interrupts a turn; lines typed during a turn run after it, in order\n"));
      return;
    }
    case "/todos": {
      const todos = agent.todos();
      write(todos.length === 0 ? "No task list yet.\n" : `${renderProgressBar(todos)}\n${renderTodoLines(todos).join("\n")}\n`);
      return;
    }
    case "/notes": {
      if (!agent.memory) {
        write("memory is disabled (--no-memory)\n");
        return;
      }
      const entries = agent.memory.list();
      if (entries.length === 0) write("nothing remembered about this project yet\n");
      else write(`${entries.map((entry) => `(${entry.kind}) ${entry.text}${entry.hits > 0 ? style.dim(`  [recalled ${entry.hits}x]`) : ""}`).join("\n")}\n`);
      return;
    }
    case "/tools": {
      const offered = agent.offeredTools();
      write(`tools: ${offered.length} offered this turn of ${agent.registeredTools().length} registered\n`);
      for (const tool of [...offered].sort((a, b) => a.name.localeCompare(b.name))) {
        write(`  ${tool.name.padEnd(20)}${style.dim(`${(tool.set ?? "-").padEnd(10)}${toolSchemaBytes(tool)} B`)}\n`);
      }
      return;
    }
    case "/cost": {
      const session = agent.session;
      write(`model: ${agent.config.preset.id}/${agent.config.model}\n`);
      write(`billed: ${session.inputTokens} in / ${session.outputTokens} out\n`);
      write(session.costUsd !== undefined ? `spend: ${formatUsd(session.costUsd)}\n` : "spend: unpriced model\n");
      write(`agent: ${agent.variant.name}  thinking: ${agent.thinking}\n`);
      return;
    }
    case "/sessions": {
      const { sessions, notices } = listSessions();
      for (const notice of notices) write(style.dim(`${notice}\n`));
      write(sessions.length === 0 ? "no saved sessions\n" : `${sessions.map(formatSessionLine).join("\n")}\n`);
      return;
    }
    case "/save":
      agent.save();
      write(`saved ${agent.session.id}\n`);
      return;
    case "/exit":
      return "exit";
    default:
      write(`unknown command ${name} - try /help\n`);
  }
}
