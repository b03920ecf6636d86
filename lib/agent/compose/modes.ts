/**
 * The session's switchable modes: the agent variant, the thinking level and the model. They
 * start from config (`--agent`, `--think`, `--model`) and the REPL switches them between turns
 * (`/agent`, `/think`, `/model`); every later part reads them through this object, never a copy.
 */
import type { ResolvedConfig } from "../../config/config.ts";
import type { ThinkingLevel } from "../../vocabulary.ts";
import type { AgentModeChange } from "../agent-api.ts";
import { DEFAULT_MAX_STEPS, VARIANTS, type AgentVariant } from "../variants.ts";

export interface SessionModes {
  readonly variant: AgentVariant;
  readonly thinking: ThinkingLevel;
  readonly model: string;
  /** The model subagents run on: config `subagentModel`, else the session's model. */
  subagentModel(): string;
  /** The step cap of the variant in force: its own, else config `maxSteps`, else 50 (`--max-steps` wins, run-scope.ts). */
  steps(): number;
  /** Applies a change; a new variant resets thinking to its own unless the change names one. True when the variant changed. */
  configure(change: AgentModeChange): boolean;
}

export function createSessionModes(config: Pick<ResolvedConfig, "agent" | "thinking" | "model" | "file">): SessionModes {
  let variant: AgentVariant = VARIANTS[config.agent];
  let thinking: ThinkingLevel = config.thinking ?? variant.thinking;
  let model = config.model;
  return {
    get variant() {
      return variant;
    },
    get thinking() {
      return thinking;
    },
    get model() {
      return model;
    },
    subagentModel: () => config.file.subagentModel ?? model,
    steps: () => variant.maxSteps ?? config.file.maxSteps ?? DEFAULT_MAX_STEPS,
    configure(change) {
      if (change.agent) {
        variant = VARIANTS[change.agent];
        thinking = variant.thinking;
      }
      if (change.thinking) thinking = change.thinking;
      if (change.model) model = change.model;
      return Boolean(change.agent);
    },
  };
}
