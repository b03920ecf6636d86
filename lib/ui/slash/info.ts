/** Slash commands that show or tidy what the session holds: tasks, notes, instructions, tools, cost, context. */
import initPrompt from "../../agent/prompts/init.md" with { type: "text" };
import { paths } from "../../platform/paths.ts";
import { formatUsd } from "../../providers/pricing.ts";
import { renderTodoLines } from "../../notebook.ts";
import { renderProgressBar } from "../todo-progress.ts";
import { formatUsageShare, splitUsage } from "../session-details.ts";
import { toolSchemaBytes } from "../../tools/schema.ts";
import { SLASH_DONE, type SlashCommand } from "./command.ts";

const _memoryOff = "memory is disabled (--no-memory)\n";

const _todos: SlashCommand = {
  name: "/todos",
  help: "the task list",
  run(_args, { agent, write }) {
    const todos = agent.todos();
    write(todos.length === 0 ? "No task list yet.\n" : `${renderProgressBar(todos)}\n${renderTodoLines(todos).join("\n")}\n`);
    return SLASH_DONE;
  },
};

const _notes: SlashCommand = {
  name: "/notes",
  help: "what shiro remembers about this project",
  run(_args, { agent, write, style }) {
    if (!agent.memory) {
      write(_memoryOff);
      return SLASH_DONE;
    }
    const entries = agent.memory.list();
    if (entries.length === 0) write("nothing remembered about this project yet\n");
    else write(`${entries.map((entry) => `(${entry.kind}) ${entry.text}${entry.hits > 0 ? style.dim(`  [recalled ${entry.hits}x]`) : ""}`).join("\n")}\n`);
    return SLASH_DONE;
  },
};

const _memory: SlashCommand = {
  name: "/memory",
  help: "notes per scope, the budget and what this prompt carries; /memory compact merges unused notes",
  async run(args, { agent, write }) {
    if (!agent.memory || !agent.memoryScopes) {
      write(_memoryOff);
      return SLASH_DONE;
    }
    if (args.trim() !== "compact") {
      const { formatMemoryStatus } = await import("../memory-view.ts");
      const { DEFAULT_MEMORY_BUDGET } = await import("../../agent/memory-prompt.ts");
      const scopes = agent.memoryScopes;
      const counts: Record<string, number> = {};
      for (const entry of scopes.shelf.entries()) counts[entry.scope] = (counts[entry.scope] ?? 0) + 1;
      write(`${formatMemoryStatus(counts, scopes.budget ?? DEFAULT_MEMORY_BUDGET, scopes.injection())}\n`);
      return SLASH_DONE;
    }
    const { compactMemory } = await import("../../agent/memory-compaction.ts");
    const result = await compactMemory(agent.memory, (system, prompt, signal) => agent.complete(system, prompt, signal));
    write(`${result.message}\n`);
    return SLASH_DONE;
  },
};

const _context: SlashCommand = {
  name: "/context",
  help: "the project instruction files in use",
  run(_args, { agent, write, style }) {
    if (agent.instructions.length === 0) write("no AGENTS.md found - /init writes one\n");
    else
      write(
        `${agent.instructions.map((file) => `${file.label}  ${style.dim(`${file.text.length} chars${file.truncated ? ", cut at 12,000" : ""}`)}`).join("\n")}\n`,
      );
    return SLASH_DONE;
  },
};

const _skills: SlashCommand = {
  name: "/skills",
  help: "the skills loaded, with their origin",
  run(_args, { agent, write, style }) {
    if (agent.skills.length === 0) write("no skills loaded\n");
    else {
      const width = Math.max(...agent.skills.map((skill) => skill.name.length)) + 2;
      write(`${agent.skills.map((skill) => `${skill.name.padEnd(width)}${skill.origin.padEnd(10)}${style.dim(skill.description)}`).join("\n")}\n`);
    }
    write(style.dim(`add your own in ${paths.userSkillsDir()}/ or .shiro/skills/ (see docs/skills.md); new skills load at the next start\n`));
    return SLASH_DONE;
  },
};

/** /init runs a prompt: investigate, then write a short AGENTS.md of verified facts. */
const _init: SlashCommand = {
  name: "/init",
  help: "have the agent write an AGENTS.md for this project",
  run: () => ({ kind: "prompt", text: initPrompt.trimEnd() }),
};

const _tools: SlashCommand = {
  name: "/tools",
  help: "tools offered this turn, with their sets",
  run(_args, { agent, write, style }) {
    const offered = agent.offeredTools();
    write(`tools: ${offered.length} offered this turn of ${agent.registeredTools().length} registered\n`);
    const width = Math.max(20, ...offered.map((tool) => tool.name.length + 2));
    for (const tool of [...offered].sort((a, b) => a.name.localeCompare(b.name))) {
      write(`  ${tool.name.padEnd(width)}${style.dim(`${(tool.set ?? "-").padEnd(10)}${toolSchemaBytes(tool)} B`)}\n`);
    }
    return SLASH_DONE;
  },
};

const _cost: SlashCommand = {
  name: "/cost",
  help: "tokens, spend and context of this session",
  async run(_args, { agent, write }) {
    const session = agent.session;
    const { estimateTokens } = await import("../../agent/context/planner.ts");
    write(`model: ${agent.config.preset.id}/${agent.model}\n`);
    write(`billed: ${session.inputTokens} in / ${session.outputTokens} out\n`);
    write(session.costUsd !== undefined ? `spend: ${formatUsd(session.costUsd)}\n` : "spend: unpriced model\n");
    const split = splitUsage(session);
    if (split) write(`  this agent: ${formatUsageShare(split.parent)}\n  subagents: ${formatUsageShare(split.subagents)}\n`);
    write(`context: ~${estimateTokens(session.messages)} tokens (estimate)\n`);
    write(`agent: ${agent.variant.name}  thinking: ${agent.thinking}\n`);
    return SLASH_DONE;
  },
};

const _compact: SlashCommand = {
  name: "/compact",
  args: "[focus]",
  help: "replace the transcript with a summary (kept in the archive)",
  async run(args, { agent, write }) {
    const { compactSession } = await import("../../agent/session-compaction.ts");
    await agent.hooks?.preCompact("manual", args || undefined);
    const outcome = await compactSession(agent.session, (system, prompt, signal) => agent.complete(system, prompt, signal), args || undefined);
    if (outcome.changed) agent.save();
    if (outcome.changed) await agent.hooks?.sessionStart("compact");
    write(`${outcome.message}\n`);
    return SLASH_DONE;
  },
};

const _uncompact: SlashCommand = {
  name: "/uncompact",
  help: "put the full history back on the wire",
  async run(_args, { agent, write }) {
    const { uncompactSession } = await import("../../agent/session-compaction.ts");
    const outcome = uncompactSession(agent.session);
    if (outcome.changed) agent.save();
    write(`${outcome.message}\n`);
    return SLASH_DONE;
  },
};

/** Between the session's mode and its tail in `/help`. */
export const INFO_COMMANDS: readonly SlashCommand[] = [_todos, _notes, _memory, _context, _skills, _init, _tools, _cost, _compact, _uncompact];
