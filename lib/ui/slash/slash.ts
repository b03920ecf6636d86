/**
 * The REPL's slash commands: one list of `{name, args, help, run}` (the commands live in
 * session.ts and info.ts), read by `/help`, the completer and the dispatcher.
 * `parseSlash` is pure and shared; `runSlashCommand` performs one and writes its output.
 * A name that is no built-in is looked up among the custom commands (lib/ui/slash/custom-commands.ts),
 * read again on every use so a new file works without a restart; a custom command's outcome is
 * the prompt it expands to. Unknown commands answer `unknown command /<x> - try /help`. Commands
 * that need a different session (/resume, /clear) ask the REPL to swap the agent.
 */
import { stateDir } from "../../platform/paths.ts";
import { expandCustomCommand, loadCustomCommands, type LoadCustomCommandsResult } from "./custom-commands.ts";
import { EXTENSION_COMMANDS } from "./extensions.ts";
import { INFO_COMMANDS } from "./info.ts";
import { SLASH_DONE, type SlashCommand, type SlashContext, type SlashOutcome } from "./command.ts";
import { SEARCH_COMMAND } from "./search.ts";
import { VIEW_COMMANDS } from "./view.ts";
import { REWIND_COMMANDS } from "./rewind.ts";
import { SESSION_COMMANDS, TAIL_COMMANDS } from "./session.ts";

const _help: SlashCommand = {
  name: "/help",
  help: "this list",
  aliases: ["/?"],
  run(_args, { write, style, cwd }) {
    const custom = loadSlashCustom(cwd);
    const usages = [
      ...SLASH_COMMANDS.map((command) => [_usage(command), command.help] as const),
      ...custom.commands.map(
        (command) => [command.argumentHint ? `${command.name} ${command.argumentHint}` : command.name, `${command.description} (${command.origin})`] as const,
      ),
    ];
    const width = Math.max(...usages.map(([usage]) => usage.length)) + 2;
    write(`${usages.map(([usage, text]) => `${usage.padEnd(width)}${style.dim(text)}`).join("\n")}\n`);
    for (const skip of custom.skipped) write(style.yellow(`skipped ${skip.path}: ${skip.reason}\n`));
    write(
      style.dim(
        "Ctrl-C or Esc interrupts a turn; Ctrl-C twice or Ctrl-D quits; lines typed during a turn run after it, in order; docs/repl.md lists every key\n",
      ),
    );
    return SLASH_DONE;
  },
};

/** Every command, in `/help` order. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  _help,
  ...SESSION_COMMANDS,
  ...INFO_COMMANDS,
  ...REWIND_COMMANDS,
  SEARCH_COMMAND,
  ...EXTENSION_COMMANDS,
  ...VIEW_COMMANDS,
  ...TAIL_COMMANDS,
];

function _usage(command: SlashCommand): string {
  return command.args ? `${command.name} ${command.args}` : command.name;
}

function _find(name: string): SlashCommand | undefined {
  return SLASH_COMMANDS.find((command) => command.name === name || command.aliases?.includes(name));
}

/** This folder's and the user's custom commands, read now. */
export function loadSlashCustom(cwd = process.cwd()): LoadCustomCommandsResult {
  const reserved = SLASH_COMMANDS.flatMap((command) => [command.name, ...(command.aliases ?? [])]);
  return loadCustomCommands({ cwd, stateDir: stateDir(), reserved });
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
  const custom = loadSlashCustom(ctx.cwd).commands.find((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
  if (custom) return { kind: "prompt", text: expandCustomCommand(custom, args) };
  ctx.write(`unknown command ${name} - try /help\n`);
  return SLASH_DONE;
}
