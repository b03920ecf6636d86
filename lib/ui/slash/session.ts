/** Slash commands that change the session: its agent, thinking, model, provider, or the session itself. */
import { VARIANTS } from "../../agent/variants.ts";
import { listFolderSessions, pickNumbered, renderSessionRows } from "./session-list.ts";
import { AGENT_NAMES, THINKING_LEVELS, type AgentName, type ThinkingLevel } from "../../vocabulary.ts";
import { SLASH_DONE, type SlashCommand } from "./command.ts";

const _agent: SlashCommand = {
  name: "/agent",
  args: "[name]",
  help: `switch the agent variant (${AGENT_NAMES.join(", ")})`,
  run(args, { agent, write, style }) {
    if (!args) {
      for (const variant of Object.values(VARIANTS))
        write(`${variant.name === agent.variant.name ? "*" : " "} ${variant.name.padEnd(8)}${style.dim(variant.summary)}\n`);
      return SLASH_DONE;
    }
    if (!(AGENT_NAMES as readonly string[]).includes(args)) {
      write(`Unknown agent "${args}". Available: ${AGENT_NAMES.join(", ")}\n`);
      return SLASH_DONE;
    }
    agent.configure({ agent: args as AgentName });
    const restricted = agent.variant.allow ? ` (read-only: ${agent.offeredTools().length} tools)` : "";
    write(`agent is now ${agent.variant.name}, thinking ${agent.thinking}${restricted}\n`);
    return SLASH_DONE;
  },
};

const _think: SlashCommand = {
  name: "/think",
  args: "[level]",
  help: `switch the thinking level (${THINKING_LEVELS.join(", ")})`,
  run(args, { agent, write }) {
    if (!args) {
      write(`thinking is ${agent.thinking}. Levels: ${THINKING_LEVELS.join(", ")}\n`);
      return SLASH_DONE;
    }
    if (!(THINKING_LEVELS as readonly string[]).includes(args)) {
      write(`Unknown thinking level "${args}". Available: ${THINKING_LEVELS.join(", ")}\n`);
      return SLASH_DONE;
    }
    agent.configure({ thinking: args as ThinkingLevel });
    write(`thinking is now ${agent.thinking}\n`);
    return SLASH_DONE;
  },
};

const _model: SlashCommand = {
  name: "/model",
  args: "[id]",
  help: "switch the model, or list the provider's models",
  aliases: ["/models"],
  async run(args, { agent, write, style }) {
    if (args) {
      agent.configure({ model: args });
      write(`model is now ${agent.model}\n`);
      return SLASH_DONE;
    }
    const { listModels } = await import("../../providers/models.ts");
    const { connectionFromConfig } = await import("../../providers/client.ts");
    const list = await listModels(connectionFromConfig(agent.config), { fallback: agent.config.preset.fallbackModels });
    if (list.warning) write(style.dim(`could not list models: ${list.warning}\n`));
    if (list.models.length === 0) write("no models to choose from - use /model <id> or /provider\n");
    else write(`${list.models.map((id) => `${id === agent.model ? "*" : " "} ${id}`).join("\n")}\n${style.dim("switch with /model <id>")}\n`);
    return SLASH_DONE;
  },
};

const _provider: SlashCommand = {
  name: "/provider",
  help: "set up a provider: preset, key and model (saved to config.json)",
  aliases: ["/login"],
  run: () => ({ kind: "provider-setup" }),
};

/** Right after /help: the session's mode. */
export const SESSION_COMMANDS: readonly SlashCommand[] = [_agent, _think, _model, _provider];

const _sessions: SlashCommand = {
  name: "/sessions",
  args: "[all]",
  help: "this project's last 15 sessions, with their folder (all: every folder)",
  run(args, { write, style, cwd }) {
    const listing = listFolderSessions(cwd ?? process.cwd(), args.trim() === "all");
    for (const notice of listing.notices) write(style.dim(`${notice}\n`));
    write(`${renderSessionRows(listing)}\n`);
    return SLASH_DONE;
  },
};

const _resume: SlashCommand = {
  name: "/resume",
  args: "[id|n]",
  help: "continue another session; without an id, pick one of this project's by number",
  run(args, { write, cwd }) {
    const here = cwd ?? process.cwd();
    if (args) return { kind: "switch-session", sessionId: pickNumbered(here, args) ?? args };
    const listing = listFolderSessions(here);
    write(`${renderSessionRows(listing, true)}\n`);
    if (listing.sessions.length > 0) write("resume one with /resume <n> (or /resume <id>)\n");
    return SLASH_DONE;
  },
};

const _save: SlashCommand = {
  name: "/save",
  help: "save the session now",
  run(_args, { agent, write }) {
    agent.save();
    write(`saved ${agent.session.id}\n`);
    return SLASH_DONE;
  },
};

const _clear: SlashCommand = { name: "/clear", help: "start a new, empty session", run: () => ({ kind: "switch-session" }) };
const _exit: SlashCommand = { name: "/exit", help: "quit (also /quit, Ctrl-D, Ctrl-C twice)", aliases: ["/quit"], run: () => ({ kind: "exit" }) };

/** The end of `/help`: other sessions, saving, leaving. */
export const TAIL_COMMANDS: readonly SlashCommand[] = [_sessions, _resume, _save, _clear, _exit];
