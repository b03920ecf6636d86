/**
 * The REPL's slash commands: one list of `{name, args, help, run}` (the commands live in
 * session.ts and info.ts), read by `/help`, the completer and the dispatcher.
 * `parseSlash` is pure and shared; `runSlashCommand` performs one and writes its output.
 * A name that is no built-in is looked up among the custom commands (lib/ui/slash/custom-commands.ts),
 * read again on every use so a new file works without a restart; a custom command's outcome is
 * the prompt it expands to; then among the connected MCP servers' prompts (`/mcp__<server>__<prompt>`,
 * listed in /help with their server). Unknown commands answer `unknown command /<x> - try /help`. Commands
 * that need a different session (/resume, /clear) ask the REPL to swap the agent.
 */
import { stateDir } from "../../platform/paths.ts";
import { findProjectRoot } from "../../config/project.ts";
import {
  commandPreApproval,
  expandCustomCommand,
  loadCustomCommands,
  trustCommandFile,
  type CustomCommand,
  type LoadCustomCommandsResult,
} from "./custom-commands.ts";
import { EXTENSION_COMMANDS } from "./extensions.ts";
import { INFO_COMMANDS } from "./info.ts";
import { SLASH_DONE, type SlashCommand, type SlashContext, type SlashOutcome } from "./command.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { SEARCH_COMMAND } from "./search.ts";
import { VIEW_COMMANDS } from "./view.ts";
import { REWIND_COMMANDS } from "./rewind.ts";
import { SESSION_COMMANDS, TAIL_COMMANDS } from "./session.ts";

const _help: SlashCommand = {
  name: "/help",
  help: "this list",
  aliases: ["/?"],
  run(_args, { agent, write, style, cwd }) {
    const custom = loadSlashCustom(cwd);
    const usages = [
      ...SLASH_COMMANDS.map((command) => [_usage(command), command.help] as const),
      ...custom.commands.map(
        (command) => [command.argumentHint ? `${command.name} ${command.argumentHint}` : command.name, `${command.description} (${command.origin})`] as const,
      ),
      ...mcpPromptCommands(agent).map((prompt) => [prompt.name, `${prompt.description ?? "MCP prompt"} (MCP server ${prompt.server})`] as const),
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

/** The prompts of this session's connected MCP servers, as the slash commands that send them (`/mcp__<server>__<prompt>`). */
export function mcpPromptCommands(agent: Pick<SlashContext["agent"], "mcpStatus">): { name: string; server: string; description?: string }[] {
  return agent
    .mcpStatus()
    .flatMap((status) =>
      (status.prompts ?? []).map((prompt) => ({ name: `/mcp__${status.name}__${prompt.name}`, server: status.name, description: prompt.description })),
    );
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
  if (custom) {
    const turnTools = custom.allowedTools ? { allowedTools: custom.allowedTools, preApproved: await _preApproves(custom, ctx) } : undefined;
    const text = await expandCustomCommand(custom, args, (command) => _runBodyCommand(command, ctx));
    return { kind: "prompt", text, ...(turnTools ? { turnTools } : {}) };
  }
  const prompt = /^\/mcp__(.+?)__(.+)$/.exec(name);
  const getter = prompt && ctx.agent.registeredTools().find((tool) => tool.name === `mcp__${prompt[1]}__get_prompt`);
  if (prompt && getter) return { kind: "prompt", text: await _runMcpPrompt(getter, prompt[2]!, args, ctx) };
  ctx.write(`unknown command ${name} - try /help\n`);
  return SLASH_DONE;
}

/** `/mcp__<server>__<prompt> words…`: the server's prompt, its declared arguments filled in order, as the prompt to send. */
async function _runMcpPrompt(getter: ToolDefinition<any>, name: string, args: string, ctx: SlashContext): Promise<string> {
  const positional = args.trim() === "" ? [] : args.trim().split(/\s+/);
  const signal = ctx.signal ?? new AbortController().signal;
  return await getter.execute({ name, arguments: {}, positional }, { root: ctx.cwd ?? process.cwd(), signal, callId: `slash-${name}`, emitOutput: () => {} });
}

/**
 * Whether a custom command's allowed-tools pre-approve its turn: a user-level command's do; a
 * project command's once its file is trusted, asked here the first time (and after every edit).
 * Not trusted, the turn is still narrowed to those tools and each call is decided as usual.
 * Under --yolo nothing asks: the turn is narrowed and no trust is asked for or recorded.
 */
async function _preApproves(command: CustomCommand, ctx: SlashContext): Promise<boolean> {
  const root = findProjectRoot(ctx.cwd ?? process.cwd());
  if (commandPreApproval(command, root) === "yes") return true;
  // Where nobody can be asked (an editor), an untrusted command's rules narrow the turn only.
  if (!ctx.ask) return false;
  if (ctx.yolo) {
    ctx.write(ctx.style.dim(`${command.path}: its turn offers only ${command.allowedTools!.join(", ")} (--yolo: not asked to trust it)\n`));
    return false;
  }
  ctx.write(
    ctx.style.yellow(`${command.path} pre-approves, for its turn: ${command.allowedTools!.join(", ")}\n`) +
      "  (written by whoever committed it; without trust its turn offers only these tools and asks as usual)\n",
  );
  const answer = (await ctx.ask("Trust this command's allowed-tools? y yes, remember it | n not now ")).trim().toLowerCase();
  if (answer !== "y" && answer !== "yes") {
    ctx.write(ctx.style.dim("not trusted: calls are decided as usual this time\n"));
    return false;
  }
  trustCommandFile(command, root);
  return true;
}

/**
 * A custom command's `` !`cmd` ``: run as `!cmd` is (the session's bash tool, gate and sandbox),
 * shown as it runs; its stdout replaces it when it exits 0 with nothing on stderr, else the
 * tool's whole result (exit code, stdout, stderr) does, and a refused command leaves a line saying so.
 */
async function _runBodyCommand(command: string, ctx: SlashContext): Promise<string> {
  ctx.write(ctx.style.dim(`! ${command}\n`));
  try {
    const result = await ctx.agent.runCommand(command, ctx.signal ?? new AbortController().signal, () => {});
    // A clean run with only stdout is its stdout; anything else keeps the tool's sections (exit code, stderr).
    const clean = /^exit: 0\n+stdout:\n([\s\S]*)$/.exec(result);
    if (clean && !/\n\nstderr:\n/.test(clean[1]!)) return clean[1]!.trimEnd();
    return result.replace(/^exit: 0\n+\(no output\)\s*$/, "").trimEnd();
  } catch (error) {
    return `(${command}: ${error instanceof Error ? error.message : String(error)})`;
  }
}
