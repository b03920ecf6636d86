/**
 * The session switches a front end hands to `createAgent`, and their round trip through a run
 * snapshot, so `shiro runs resume` can rebuild the session a run ran in.
 */
import type { RunOptions } from "../store/runs.ts";

export interface AgentFlags {
  provider?: string;
  protocol?: string;
  model?: string;
  baseURL?: string;
  agent?: string;
  think?: string;
  yolo: boolean;
  /** Headless policy for calls that would ask: deny them, or block the run on a persisted approval. */
  approvals: "deny" | "block";
  continue: boolean;
  resume?: string;
  noMcp: boolean;
  noSubagent: boolean;
  noInstructions: boolean;
  noSkills: boolean;
  noPlugins: boolean;
  noMemory: boolean;
  /** Run shell commands unconfined (`--no-sandbox`). */
  noSandbox?: boolean;
}

/** The flags a run snapshot keeps, so `shiro runs resume` can rebuild the session it ran in. */
export function runOptionsFromFlags(flags: AgentFlags): RunOptions {
  return {
    yolo: flags.yolo, approvals: flags.approvals, agent: flags.agent, think: flags.think, provider: flags.provider,
    protocol: flags.protocol, model: flags.model, baseURL: flags.baseURL, noMemory: flags.noMemory, noPlugins: flags.noPlugins,
    noInstructions: flags.noInstructions, noSkills: flags.noSkills, noMcp: flags.noMcp, noSubagent: flags.noSubagent,
    ...(flags.noSandbox ? { noSandbox: true } : {}),
  };
}

/** The inverse of runOptionsFromFlags; a snapshot's missing switch is off. */
export function flagsFromRunOptions(saved: RunOptions): AgentFlags {
  return {
    provider: saved.provider, protocol: saved.protocol, model: saved.model, baseURL: saved.baseURL, agent: saved.agent, think: saved.think,
    yolo: saved.yolo ?? false, approvals: saved.approvals === "block" ? "block" : "deny", continue: false,
    noMcp: saved.noMcp ?? false, noSubagent: saved.noSubagent ?? false, noInstructions: saved.noInstructions ?? false,
    noSkills: saved.noSkills ?? false, noPlugins: saved.noPlugins ?? false, noMemory: saved.noMemory ?? false,
    noSandbox: saved.noSandbox ?? false,
  };
}
