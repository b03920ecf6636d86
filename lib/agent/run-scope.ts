/**
 * What one run's flags add to where it works, what it may do and what it is told: `--max-steps`,
 * `--max-cost` (run-limits.ts), `--add-dir` folders (checked once, absolute), the run's tool rules
 * (lib/approval/run-rules.ts) and the `--append-system-prompt` text (`@file` reads a file,
 * relative to the working folder). Bad input is a one-line UsageError.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../platform/errors.ts";
import type { AgentFlags } from "../config/flags.ts";
import { isWithheld, layerRunRules, type RunRules } from "../approval/run-rules.ts";
import type { RuleLayer } from "../approval/rules.ts";
import { widenWorkspace } from "../platform/workspace-dirs.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { findProjectRoot } from "../config/project.ts";
import { readOutputSchemaFile } from "./output-schema-file.ts";
import { createUsageTally, type UsageTally } from "./usage-tally.ts";
import { checkPriced, createCostBudget, parseMaxCost, parseMaxSteps, type CostBudget } from "./run-limits.ts";

export interface RunScope {
  /** `--add-dir` folders, absolute; the jail under the working folder already accepts them. */
  addDirs: string[];
  /** What goes at the end of the system prompt: `--append-system-prompt`, then the `--output-schema` instructions. */
  appended: string;
  /** `--allowed-tools` / `--disallowed-tools` as sources of rules beside config (run-rules.ts), mapped onto `tools`. */
  permissionLayers(tools: readonly ToolDefinition[]): RuleLayer[];
  /** `tools` without the ones a disallowed rule names whole. */
  visible<T extends { name: string }>(tools: T[]): T[];
  /** The ones of `tools` a disallowed rule names whole (still callable, so the rule refuses them by name). */
  withheld<T extends { name: string }>(tools: T[]): T[];
  /** The subagents' usage in the current run (the driver takes it at the run's end). */
  subagentUsage: UsageTally;
  /**
   * The run driver's bounds: the step cap (`--max-steps`, else `steps`) and the `--max-cost` check
   * (the run's own usage plus `subagentUsage`, each share at its own model's price; absent without the flag).
   * `now` is read per run: the REPL may switch the agent variant or the model between turns.
   */
  limits(now: () => { steps: number }): { maxSteps: () => number; beforeRequest?: CostBudget["check"] };
}

/**
 * The run's bounds, added folders, tool rules and prompt addition, checked (a UsageError names
 * the flag); `models`: every model the run may price. Registers the added folders with the jail.
 * `projectRoot` is `cwd`'s project (lib/config/project.ts), the root tool rules' paths are read from.
 */
export function readRunScope(cwd: string, flags: AgentFlags, models: readonly string[], projectRoot = findProjectRoot(cwd)): RunScope {
  const maxSteps = parseMaxSteps(flags.maxSteps);
  const maxCost = parseMaxCost(flags.maxCost);
  checkPriced(maxCost, models);
  const addDirs = resolveAddDirs(cwd, flags.addDirs);
  if (addDirs.length > 0) widenWorkspace(cwd, addDirs);
  const appendix = flags.outputSchema ? readOutputSchemaFile(cwd, flags.outputSchema).instructions : "";
  const appended = [readAppendedPrompt(cwd, flags.appendSystemPrompt), appendix].filter(Boolean).join("\n\n");
  const subagentUsage = createUsageTally();
  let layered: RunRules = { layers: [], removed: [] };
  return {
    addDirs,
    appended,
    permissionLayers(tools) {
      const lists = { allowed: flags.allowedTools, disallowed: flags.disallowedTools };
      layered = layerRunRules(tools, lists, { root: projectRoot, cwd });
      return layered.layers;
    },
    withheld: (tools) => (layered.removed.length === 0 ? [] : tools.filter((tool) => isWithheld(layered, tool.name))),
    visible: (tools) => (layered.removed.length === 0 ? tools : tools.filter((tool) => !isWithheld(layered, tool.name))),
    subagentUsage,
    limits: (now) => ({
      maxSteps: () => maxSteps ?? now().steps,
      ...(maxCost === undefined ? {} : { beforeRequest: createCostBudget({ maxCost, subagents: () => subagentUsage.peek() }).check }),
    }),
  };
}

/** The `--add-dir` folders as absolute paths; each must be an existing folder. */
export function resolveAddDirs(cwd: string, dirs: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const dir of dirs ?? []) {
    const abs = resolve(cwd, dir);
    if (!statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--add-dir ${dir}: no such folder`);
    if (!out.includes(abs)) out.push(abs);
  }
  return out;
}

/** The text `--append-system-prompt` adds: the value itself, or with a leading `@` the file it names. */
export function readAppendedPrompt(cwd: string, value: string | undefined): string {
  if (value === undefined || value.trim() === "") return "";
  if (!value.startsWith("@")) return value.trim();
  const path = resolve(cwd, value.slice(1));
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    throw new UsageError(`--append-system-prompt ${value}: cannot read ${path}`);
  }
}
