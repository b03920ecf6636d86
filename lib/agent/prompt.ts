/**
 * The system prompt, rebuilt on every step from live state. It names only the tools offered on
 * that step, so a withheld tool is absent from the prompt and the request alike, and it does not
 * restate their schemas (each tool's description is on the wire already).
 * Order: identity, environment, how to work, how to reply, then project instructions, memory,
 * skills catalogue, agent appendix, plugin appendices, task list. What the prompt says about
 * changing and running comes from the tools' declarations.
 */
import { countTodos, renderTodoLines, type Todo } from "../notebook.ts";
import type { ToolDefinition } from "../tools/types.ts";

/** What the prompt reads of a tool: its name and its declarations (lib/tools/types.ts). */
export type PromptTool = Pick<ToolDefinition, "name"> & Partial<Pick<ToolDefinition, "guidance" | "effect" | "set">>;

export interface PromptInput {
  root: string;
  platform: string;
  /** Tools offered on this step. */
  tools: readonly PromptTool[];
  /** Offered tools that need the user's approval under the current rules. */
  approvalTools: readonly string[];
  /** Rendered sections; empty strings are left out. */
  instructions?: string;
  memory?: string;
  skills?: string;
  appendix?: string;
  pluginAppendices?: readonly string[];
  todos?: string;
}

export function buildSystemPrompt(input: PromptInput): string {
  const names = new Set(input.tools.map((tool) => tool.name));
  const canChange = input.approvalTools.length > 0 || input.tools.some((tool) => tool.effect === "write" || tool.effect === "exec");
  // MCP tools are `exec` too, but only a built-in exec tool (bash) runs the project's commands.
  const canRun = input.tools.some((tool) => tool.effect === "exec" && tool.set !== undefined);
  const sections: string[] = [
    "You are Shiro Neko, a coding agent working in the user's repository from their terminal. You read code, change it, run it, and remember what you learn.",
    ["# Environment", `Workspace root: ${input.root} (every path you use resolves inside it; paths outside are refused)`, `Platform: ${input.platform}`].join(
      "\n",
    ),
    // Each offered tool's schema says what it does; the prompt does not say it again.
    input.tools.length > 0 ? "" : "# Tools\nNo tools are available on this step: answer from what you already know.",
    [
      "# How to work",
      "- Read the relevant code before you change it; never edit a file you have not read.",
      "- Make the smallest change that solves the problem, in the style of the code around it.",
      canChange
        ? `- These tools ask the user first and may be refused: ${input.approvalTools.join(", ") || "none"}. A refusal is an answer: do not retry the same call; adapt or ask.`
        : "- You have no tools that change anything: describe changes, do not claim to have made them.",
      canRun
        ? "- Verify your work: run the build, tests or the program itself, and read the output."
        : "- You cannot run commands: say what should be run to verify the work.",
      "- When something fails twice, stop and re-read the error and the code before trying again.",
      names.has("ask")
        ? "- When a choice belongs to the user, use ask; otherwise decide, and state the assumption."
        : "- When something is ambiguous, make the most reasonable choice and state the assumption.",
      names.has("todo_write") ? "- For work of three or more steps, keep the task list current with todo_write." : "",
    ]
      .filter(Boolean)
      .join("\n"),
    [
      "# How to reply",
      "Lead with the outcome, then the detail that supports it. No preamble. Markdown is fine. Report failures as they are, with the error text.",
    ].join("\n"),
    input.instructions ?? "",
    input.memory ?? "",
    input.skills ?? "",
    input.appendix ? `# Mode\n${input.appendix}` : "",
    ...(input.pluginAppendices ?? []),
    input.todos ?? "",
  ];
  return sections.filter((section) => section.trim().length > 0).join("\n\n");
}

/** The task list as the system prompt carries it; "" when there is no list. */
export function renderTodosForPrompt(todos: readonly Todo[]): string {
  if (todos.length === 0) return "";
  const counts = countTodos(todos);
  const blocked = counts.blocked > 0 ? `, ${counts.blocked} blocked` : "";
  const header = `Your task list (${counts.done}/${counts.total} done${blocked}). Keep it current with todo_write:`;
  return [header, ...renderTodoLines(todos)].join("\n");
}
