/**
 * The REPL's slash commands. `parseSlash` is pure and shared; `runSlashCommand` performs one
 * and writes its output. Unknown commands answer `unknown command /<x> - try /help`.
 * Commands that need a different session (/resume, /clear) ask the REPL to swap the agent.
 */
import type { Agent } from "../lib/agent/agent.ts";
import { AGENT_NAMES, THINKING_LEVELS, type AgentName, type ThinkingLevel } from "../lib/vocabulary.ts";
import { formatUsd } from "../lib/providers/pricing.ts";
import { formatSessionLine, listSessions } from "../lib/store/sessions.ts";
import { renderProgressBar, renderTodoLines } from "../lib/store/notebook.ts";
import type { Style } from "../lib/repl/style.ts";
import { toolSchemaBytes } from "../lib/tools/schema.ts";
import { VARIANTS } from "../lib/agent/variants.ts";

export const SLASH_COMMANDS: Record<string, string> = {
  "/help": "this list",
  "/agent [name]": "switch the agent variant (default, quick, deep, plan, review)",
  "/think [level]": "switch the thinking level (off, low, medium, high, max)",
  "/model [id]": "switch the model, or list the provider's models",
  "/provider": "set up a provider: preset, key and model (saved to config.json)",
  "/todos": "the task list",
  "/notes": "what shiro remembers about this project",
  "/memory": "let the model merge unused notes (past 60)",
  "/context": "the project instruction files in use",
  "/skills": "the skills loaded, with their origin",
  "/mcp": "the MCP servers of this session and their state",
  "/init": "have the agent write an AGENTS.md for this project",
  "/tools": "tools offered this turn, with their sets",
  "/cost": "tokens, spend and context of this session",
  "/compact [focus]": "replace the transcript with a summary (kept in the archive)",
  "/uncompact": "put the full history back on the wire",
  "/sessions": "the last 15 sessions",
  "/resume <id>": "continue another session",
  "/save": "save the session now",
  "/clear": "start a new, empty session",
  "/exit": "quit (also /quit, ctrl-c when idle)",
};
const _ALIASES: Record<string, string> = { "/?": "/help", "/quit": "/exit", "/models": "/model", "/login": "/provider" };

/** The prompt /init runs: investigate, then write a short AGENTS.md of verified facts. */
export const INIT_PROMPT = [
  "Investigate this repository and write an AGENTS.md at its root for future coding agents.",
  "Read the build files, the README and a sample of the code; run the test and build commands to check they work.",
  "Keep it under 100 lines and write only facts you verified: how to build, test and run it; the layout; conventions the code follows; traps you found.",
  "If an AGENTS.md exists, improve it instead of replacing what is still true.",
].join(" ");

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

/** What the REPL must do after a command. */
export type SlashOutcome =
  | { kind: "done" }
  | { kind: "exit" }
  | { kind: "switch-session"; sessionId?: string }
  | { kind: "provider-setup" }
  | { kind: "prompt"; text: string };

const _done: SlashOutcome = { kind: "done" };

export async function runSlashCommand(line: string, ctx: SlashContext): Promise<SlashOutcome> {
  const { name, args } = parseSlash(line);
  const { agent, write, style } = ctx;
  switch (name) {
    case "/help": {
      const width = Math.max(...Object.keys(SLASH_COMMANDS).map((key) => key.length)) + 2;
      write(`${Object.entries(SLASH_COMMANDS).map(([key, text]) => `${key.padEnd(width)}${style.dim(text)}`).join("\n")}\n`);
      write(style.dim("ctrl-c interrupts a turn (or quits when idle); lines typed during a turn run after it, in order\n"));
      return _done;
    }
    case "/agent": {
      if (!args) {
        for (const variant of Object.values(VARIANTS)) write(`${variant.name === agent.variant.name ? "*" : " "} ${variant.name.padEnd(8)}${style.dim(variant.summary)}\n`);
        return _done;
      }
      if (!(AGENT_NAMES as readonly string[]).includes(args)) {
        write(`Unknown agent "${args}". Available: ${AGENT_NAMES.join(", ")}\n`);
        return _done;
      }
      agent.configure({ agent: args as AgentName });
      const restricted = agent.variant.allow ? ` (read-only: ${agent.offeredTools().length} tools)` : "";
      write(`agent is now ${agent.variant.name}, thinking ${agent.thinking}${restricted}\n`);
      return _done;
    }
    case "/think": {
      if (!args) {
        write(`thinking is ${agent.thinking}. Levels: ${THINKING_LEVELS.join(", ")}\n`);
        return _done;
      }
      if (!(THINKING_LEVELS as readonly string[]).includes(args)) {
        write(`Unknown thinking level "${args}". Available: ${THINKING_LEVELS.join(", ")}\n`);
        return _done;
      }
      agent.configure({ thinking: args as ThinkingLevel });
      write(`thinking is now ${agent.thinking}\n`);
      return _done;
    }
    case "/model": {
      if (args) {
        agent.configure({ model: args });
        write(`model is now ${agent.model}\n`);
        return _done;
      }
      const { listModels } = await import("../lib/providers/models.ts");
      const { connectionFromConfig } = await import("../lib/providers/client.ts");
      const list = await listModels(connectionFromConfig(agent.config), { fallback: agent.config.preset.fallbackModels });
      if (list.warning) write(style.dim(`could not list models: ${list.warning}\n`));
      if (list.models.length === 0) write("no models to choose from - use /model <id> or /provider\n");
      else write(`${list.models.map((id) => `${id === agent.model ? "*" : " "} ${id}`).join("\n")}\n${style.dim("switch with /model <id>")}\n`);
      return _done;
    }
    case "/todos": {
      const todos = agent.todos();
      write(todos.length === 0 ? "No task list yet.\n" : `${renderProgressBar(todos)}\n${renderTodoLines(todos).join("\n")}\n`);
      return _done;
    }
    case "/notes": {
      if (!agent.memory) {
        write("memory is disabled (--no-memory)\n");
        return _done;
      }
      const entries = agent.memory.list();
      if (entries.length === 0) write("nothing remembered about this project yet\n");
      else write(`${entries.map((entry) => `(${entry.kind}) ${entry.text}${entry.hits > 0 ? style.dim(`  [recalled ${entry.hits}x]`) : ""}`).join("\n")}\n`);
      return _done;
    }
    case "/memory": {
      if (!agent.memory) {
        write("memory is disabled (--no-memory)\n");
        return _done;
      }
      const { compactMemory } = await import("../lib/store/memory-compaction.ts");
      const result = await compactMemory(agent.memory, (system, prompt, signal) => agent.complete(system, prompt, signal));
      write(`${result.message}\n`);
      return _done;
    }
    case "/context": {
      if (agent.instructions.length === 0) write("no AGENTS.md found - /init writes one\n");
      else write(`${agent.instructions.map((file) => `${file.label}  ${style.dim(`${file.text.length} chars${file.truncated ? ", cut at 12,000" : ""}`)}`).join("\n")}\n`);
      return _done;
    }
    case "/skills": {
      if (agent.skills.length === 0) write("no skills loaded\n");
      else {
        const width = Math.max(...agent.skills.map((skill) => skill.name.length)) + 2;
        write(`${agent.skills.map((skill) => `${skill.name.padEnd(width)}${skill.origin.padEnd(10)}${style.dim(skill.description)}`).join("\n")}\n`);
      }
      write(style.dim("add your own in ~/.shiro-neko/skills/ or .shiro/skills/ (see docs/skills.md); new skills load at the next start\n"));
      return _done;
    }
    case "/mcp": {
      const statuses = agent.mcpStatus();
      if (statuses.length === 0) write("no MCP servers configured - add one with: shiro mcp add <name> --command <cmd>\n");
      else {
        const { renderServerList } = await import("./mcp.ts");
        write(`${renderServerList(statuses)}\n`);
      }
      return _done;
    }
    case "/init":
      return { kind: "prompt", text: INIT_PROMPT };
    case "/tools": {
      const offered = agent.offeredTools();
      write(`tools: ${offered.length} offered this turn of ${agent.registeredTools().length} registered\n`);
      const width = Math.max(20, ...offered.map((tool) => tool.name.length + 2));
      for (const tool of [...offered].sort((a, b) => a.name.localeCompare(b.name))) {
        write(`  ${tool.name.padEnd(width)}${style.dim(`${(tool.set ?? "-").padEnd(10)}${toolSchemaBytes(tool)} B`)}\n`);
      }
      return _done;
    }
    case "/cost": {
      const session = agent.session;
      const { estimateTokens } = await import("../lib/agent/context.ts");
      write(`model: ${agent.config.preset.id}/${agent.model}\n`);
      write(`billed: ${session.inputTokens} in / ${session.outputTokens} out\n`);
      write(session.costUsd !== undefined ? `spend: ${formatUsd(session.costUsd)}\n` : "spend: unpriced model\n");
      write(`context: ~${estimateTokens(session.messages)} tokens (estimate)\n`);
      write(`agent: ${agent.variant.name}  thinking: ${agent.thinking}\n`);
      return _done;
    }
    case "/compact": {
      const { compactSession } = await import("../lib/agent/session-compaction.ts");
      const outcome = await compactSession(agent.session, (system, prompt, signal) => agent.complete(system, prompt, signal), args || undefined);
      if (outcome.changed) agent.save();
      write(`${outcome.message}\n`);
      return _done;
    }
    case "/uncompact": {
      const { uncompactSession } = await import("../lib/agent/session-compaction.ts");
      const outcome = uncompactSession(agent.session);
      if (outcome.changed) agent.save();
      write(`${outcome.message}\n`);
      return _done;
    }
    case "/sessions": {
      const { sessions, notices } = listSessions();
      for (const notice of notices) write(style.dim(`${notice}\n`));
      write(sessions.length === 0 ? "no saved sessions\n" : `${sessions.map(formatSessionLine).join("\n")}\n`);
      return _done;
    }
    case "/resume":
      if (!args) {
        write("usage: /resume <session-id>\n");
        return _done;
      }
      return { kind: "switch-session", sessionId: args };
    case "/provider":
      return { kind: "provider-setup" };
    case "/clear":
      return { kind: "switch-session" };
    case "/save":
      agent.save();
      write(`saved ${agent.session.id}\n`);
      return _done;
    case "/exit":
      return { kind: "exit" };
    default:
      write(`unknown command ${name} - try /help\n`);
      return _done;
  }
}
