/**
 * The REPL's slash commands in an editor: the built-in ones and the user's custom commands are
 * advertised as ACP `available_commands_update`, and a prompt that starts with one runs it as
 * the REPL does, its output becoming the agent's reply. A custom command (or any command whose
 * outcome is a prompt) then runs as a turn. What only a terminal can do (switching sessions,
 * provider setup, reloading extensions, exiting) is answered with one line saying so.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { Agent } from "../../agent/agent.ts";
import { createStyle } from "../style.ts";
import { loadSlashCustom, runSlashCommand, SLASH_COMMANDS } from "../slash/slash.ts";
import type { TurnTools } from "../../agent/turn-tools.ts";

export function availableCommands(cwd: string): acp.AvailableCommand[] {
  const builtin = SLASH_COMMANDS.map((command) => ({
    name: command.name.slice(1),
    description: command.help,
    ...(command.args ? { input: { hint: command.args } } : {}),
  }));
  const custom = loadSlashCustom(cwd).commands.map((command) => ({
    name: command.name.slice(1),
    description: command.description,
    ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
  }));
  return [...builtin, ...custom];
}

export interface SlashInEditor {
  /** What the command printed (plain text), if anything. */
  reply?: string;
  /** The prompt to run as a turn (a custom command's expansion), if any. */
  prompt?: string;
  /** A custom command's allowed-tools for that turn (an editor cannot be asked to trust a project command's, so those narrow only). */
  turnTools?: TurnTools;
}

export async function runSlashInEditor(line: string, agent: Agent, cwd: string): Promise<SlashInEditor> {
  let printed = "";
  const outcome = await runSlashCommand(line, { agent, cwd, style: createStyle(false), write: (text) => (printed += text) });
  const name = line.trim().split(/\s+/)[0];
  if (outcome.kind === "prompt")
    return { ...(printed ? { reply: printed } : {}), prompt: outcome.text, ...(outcome.turnTools ? { turnTools: outcome.turnTools } : {}) };
  if (outcome.kind === "done") return printed ? { reply: printed } : {};
  return { reply: `${printed}${name} works in the terminal REPL (shiro) only; in an editor, use its own session and agent controls.\n` };
}
