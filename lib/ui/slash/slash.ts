/**
 * The REPL's slash commands: one list of `{name, args, help, run}` (the commands live in
 * session.ts and info.ts), read by `/help`, the completer and the dispatcher.
 * `parseSlash` is pure and shared; `runSlashCommand` performs one and writes its output.
 * Unknown commands answer `unknown command /<x> - try /help`. Commands that need a different
 * session (/resume, /clear) ask the REPL to swap the agent.
 */
import { INFO_COMMANDS } from "./info.ts";
import { SLASH_DONE, type SlashCommand, type SlashContext, type SlashOutcome } from "./command.ts";
import { SEARCH_COMMAND } from "./search.ts";
import { SESSION_COMMANDS, TAIL_COMMANDS } from "./session.ts";


const _help: SlashCommand = {
  name: "/help", help: "this list", aliases: ["/?"],
  run(_args, { write, style }) {
    const usages = SLASH_COMMANDS.map((command) => [_usage(command), command.help] as const);
    const width = Math.max(...usages.map(([usage]) => usage.length)) + 2;
    write(`${usages.map(([usage, text]) => `${usage.padEnd(width)}${style.dim(text)}`).join("\n")}\n`);
    write(style.dim("ctrl-c interrupts a turn (or quits when idle); lines typed during a turn run after it, in order\n"));
    return SLASH_DONE;
  },
};

/** Every command, in `/help` order. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [_help, ...SESSION_COMMANDS, ...INFO_COMMANDS, SEARCH_COMMAND, ...TAIL_COMMANDS];

function _usage(command: SlashCommand): string {
  return command.args ? `${command.name} ${command.args}` : command.name;
}

function _find(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
}

export function parseSlash(line: string): { name: string; args: string } {
  const match = /^(\/\S*)\s*(.*)$/s.exec(line.trim());
  const name = match?.[1] ?? line.trim();
  return { name: _find(name)?.name ?? name, args: match?.[2]?.trim() ?? "" };
}

export async function runSlashCommand(line: string, ctx: SlashContext): Promise<SlashOutcome> {
  const { name, args } = parseSlash(line);
  const command = _find(name);
  if (command) return command.run(args, ctx);
  ctx.write(`unknown command ${name} - try /help\n`);
  return SLASH_DONE;
}
