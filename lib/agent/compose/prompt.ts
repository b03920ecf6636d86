/**
 * The session's system prompt builder: prompt.ts's sections filled from the session's parts, read
 * live on every step (the tools offered, which of them ask, the memory the run carries, the
 * variant's appendix, the task list), then the run's `--append-system-prompt` text.
 */
import type { PluginHost } from "../../extension-api/plugin-api.ts";
import { renderSkillCatalogue, type Skill } from "../../skills/skills.ts";
import type { SessionRecord } from "../../store/session-record.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { renderInstructions, type InstructionFile } from "../instructions.ts";
import type { SessionMemory } from "../memory-session.ts";
import { buildSystemPrompt, renderTodosForPrompt } from "../prompt.ts";
import type { SessionHooks } from "../session-settings.ts";
import type { SessionModes } from "./modes.ts";

export interface SystemPromptOptions {
  cwd: string;
  session: SessionRecord;
  modes: Pick<SessionModes, "variant">;
  instructions: readonly InstructionFile[];
  skills: readonly Skill[];
  memory?: Pick<SessionMemory, "section">;
  plugins: Pick<PluginHost, "appendices">;
  hooks?: Pick<SessionHooks, "contextSection">;
  /** True when a call of the named tool asks first under the rules. */
  asksFirst: (name: string) => boolean;
  /** Text the run adds at the end (run-scope.ts `appended`). */
  appended: string;
}

export function createSystemPrompt(options: SystemPromptOptions): (tools: ToolDefinition[]) => string {
  const { hooks, plugins, asksFirst } = options;
  const instructions = renderInstructions([...options.instructions]);
  const skills = renderSkillCatalogue(options.skills);
  return (tools) =>
    buildSystemPrompt({
      root: options.cwd,
      platform: `${process.platform}-${process.arch}`,
      tools,
      approvalTools: tools.map((tool) => tool.name).filter(asksFirst),
      instructions,
      memory: options.memory?.section() ?? "",
      skills,
      appendix: options.modes.variant.appendix,
      pluginAppendices: hooks?.contextSection() ? [...plugins.appendices(), hooks.contextSection()] : plugins.appendices(),
      todos: renderTodosForPrompt(options.session.notebook.todos),
    }) + (options.appended ? `\n\n${options.appended}` : "");
}
