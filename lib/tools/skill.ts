/**
 * skill: hands the model the body of one loaded skill (see lib/skills/skills.ts). Offered only when at
 * least one skill is loaded; the body is read on the call, never put in the prompt.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import type { Skill } from "../skills/skills.ts";
import description from "./skill.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";

const SkillInput = lazySchema(() => v.object({ name: v.pipe(v.string(), v.description("a skill name from the Skills list")) }));

/** Looks a skill up by name after trim + lowercase; an unknown name throws, listing the names there are. */
export function createSkillTool(skills: readonly Skill[]): ToolDefinition<v.InferOutput<typeof SkillInput>> {
  const byName = new Map(skills.map((skill) => [skill.name.toLowerCase(), skill]));
  return {
    name: "skill",
    description,
    schema: SkillInput,
    effect: "read",
    decision: "allow",
    deferral: "eager",
    guidance: "load a skill's instructions before work it matches",
    subjects: (input) => [input.name],
    execute: async ({ name }) => {
      const skill = byName.get(name.trim().toLowerCase());
      if (!skill) {
        const available = skills.map((known) => known.name).join(", ") || "none";
        throw new Error(`No skill named "${name.trim()}". Available: ${available}`);
      }
      return formatSkillResult(skill);
    },
  };
}

/**
 * `Skill "<name>" (<origin>). Follow these instructions for this task.`, then for a skill with a
 * folder the line `Skill folder: <abs path> — …`, a blank line, the body.
 */
export function formatSkillResult(skill: Skill): string {
  const body = skill.body();
  const folder = skill.folder
    ? `\nSkill folder: ${skill.folder} — files and scripts this skill names are relative to it; read them with read_file (read-only).`
    : "";
  return `Skill "${skill.name}" (${skill.origin}). Follow these instructions for this task.${folder}\n\n${body || "(this skill has no instructions beyond its description)"}`;
}
