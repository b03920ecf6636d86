/**
 * The `task` tool: delegates an investigation (or, with an approval channel, a piece of work) to a
 * subagent with its own context. The subagent runs the same loop with the same model, up to 20
 * steps, on a narrower tool set, and returns one text report — the only thing that enters the
 * parent's context. Its calls pass the parent's gate exactly as direct calls do (guards, rules,
 * the user), flagged as delegated.
 *
 * Kinds: `explore` (default: the built-in tools that declare a `read` effect), `review` (the same
 * tools, findings by severity), `worker` (those plus the built-in `write` and `exec` tools; offered
 * only when someone can answer approval questions, and never under a read-only agent variant).
 * Session tools (task itself, memory, the task list) are never a subagent's; its prompt carries
 * the agent-scoped notes kept under its kind's name (`shiro memory add … --scope agent --agent review`).
 *
 * Custom kinds (lib/store/agent-definitions.ts, `.claude/agents/*.md` and `.shiro/agents/*.md`)
 * join the list with their description; their body ends the subagent's system prompt, their
 * `tools` (Claude Code's names or shiro's) narrow the built-in tools to those named (absent: the
 * worker's set where someone can answer approvals, else explore's), and their `model` is used
 * when set. Their calls pass the same gate.
 */
import * as v from "valibot";
import type { ThinkingLevel } from "../vocabulary.ts";
import type { Usage } from "../messages.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { takeFields } from "../tools/claude-code.ts";
import description from "./task.md" with { type: "text" };
import { runTurn, type LoopGate, type TurnOptions } from "./loop.ts";
import type { AgentEvent } from "../events.ts";
import type { ModelClient } from "../providers/client.ts";
import { buildSystemPrompt } from "./prompt.ts";
import type { AgentDefinition } from "../store/agent-definitions.ts";
import { namedTools } from "../approval/run-rules.ts";
import { findProjectRoot } from "../config/project.ts";

export const SUBAGENT_MAX_STEPS = 20;

/** Whether a subagent of `kind` gets `tool`: built-in tools only, chosen by their declared effect. */
export function isSubagentTool(tool: Pick<ToolDefinition, "set" | "effect">, kind: "explore" | "review" | "worker"): boolean {
  if (tool.set === undefined) return false;
  return tool.effect === "read" || (kind === "worker" && (tool.effect === "write" || tool.effect === "exec"));
}

export const NO_FINDINGS = "Subagent returned no findings.";
export const WORKER_DENIED = "The user denied this call. Stop and report it.";

const _APPENDIX: Record<"explore" | "review" | "worker", string> = {
  explore:
    "You are a subagent exploring on behalf of another agent. Investigate, then reply with a report of at most about 30 lines: what you found, with file paths and line numbers, and what you could not establish. You cannot change anything.",
  review:
    "You are a subagent reviewing on behalf of another agent. Reply with findings ordered by severity (wrong behaviour, errors at trust boundaries, security, clarity), each with file, line, why it matters and the fix. You cannot change anything.",
  worker:
    "You are a subagent doing one piece of work on behalf of another agent. Do exactly the task, verify it, then reply with what you changed (paths) and how you checked it. If a call is denied, stop and report it.",
};

export interface TaskToolOptions {
  client: ModelClient;
  model: () => string;
  thinking: () => ThinkingLevel;
  /** Every registered tool; the subagent's set is picked from it by name. */
  tools: () => ToolDefinition[];
  gate: LoopGate;
  /** The session's hooks: a subagent's calls meet PreToolUse and PostToolUse, its end SubagentStop. */
  hooks?: TurnOptions["hooks"];
  /** Where the subagent's `hook` events go: the queue the run driver empties into the parent's stream. */
  hookEvents?: AgentEvent[];
  root: string;
  /** True when a person can answer approval questions: only then is `worker` offered. */
  canAsk: boolean;
  /** Why `worker` is refused right now (a read-only agent variant), or undefined when it is allowed. */
  workerBlocked?: () => string | undefined;
  /** Model usage of each subagent run and the model it ran on, for the parent's totals and their price. */
  onUsage?: (usage: Usage, model: string) => void;
  /** The memory section for a subagent of `kind` given its prompt (the kind's agent-scoped notes); none with --no-memory. */
  memory?: (kind: string, prompt: string) => string;
  /** Custom kinds people wrote (trusted ones only). */
  agents?: readonly AgentDefinition[];
}

type _BuiltinKind = "explore" | "review" | "worker";

export function createTaskTool(options: TaskToolOptions): ToolDefinition {
  const custom = new Map((options.agents ?? []).map((agent) => [agent.name, agent]));
  const kinds = [...(options.canAsk ? ["explore", "review", "worker"] : ["explore", "review"]), ...custom.keys()];
  const schema = v.object({
    description: v.pipe(v.string(), v.minLength(1), v.description("a few words naming the task")),
    prompt: v.pipe(v.string(), v.minLength(1), v.description("everything the subagent needs to know: it sees nothing else")),
    kind: v.optional(v.picklist(kinds as [string, ...string[]])),
  });
  const listed = [...custom.values()].map((agent) => `- \`${agent.name}\`: ${agent.description.replace(/\s+/g, " ")}`);
  return {
    name: "task",
    description: listed.length > 0 ? `${description.trim()}\n\nCustom kinds:\n${listed.join("\n")}` : description,
    schema,
    // Delegating changes nothing by itself: every call the subagent makes passes the gate.
    effect: "read",
    parallel: true,
    decision: "allow",
    deferral: "eager",
    guidance: "delegate an investigation to a subagent with its own context",
    subjects: (input: { description: string }) => [input.description],
    summary: (input) => {
      const record = (input ?? {}) as { description?: unknown; kind?: unknown };
      return `${typeof record.kind === "string" ? `${record.kind}: ` : ""}${typeof record.description === "string" ? record.description : ""}`;
    },
    claudeCode: {
      name: "Task",
      input: (args: { description: string; prompt: string; kind?: string }) => ({
        description: args.description,
        prompt: args.prompt,
        subagent_type: args.kind ?? "explore",
      }),
      args: (input) =>
        takeFields(input, [
          ["description", "description", "string"],
          ["prompt", "prompt", "string"],
          ["subagent_type", "kind", "string"],
        ]),
    },
    async execute(input: v.InferOutput<typeof schema>, ctx) {
      const kind = input.kind ?? "explore";
      const agent = custom.get(kind);
      // What its requests name and its usage is priced at: a custom agent's own model, else the subagents' model.
      const model = agent?.model ?? options.model();
      if (kind === "worker" && !options.canAsk) throw new Error("The worker kind needs an approval channel, which this session has not provided.");
      const blocked = kind === "worker" ? options.workerBlocked?.() : undefined;
      if (blocked) throw new Error(blocked);
      const tools = agent
        ? _customTools(agent, options.tools(), options.canAsk, options.root)
        : options.tools().filter((tool) => isSubagentTool(tool, kind as _BuiltinKind));
      const gate: LoopGate = {
        newTurn: () => undefined,
        deniesPath: options.gate.deniesPath,
        async check(call) {
          const verdict = await options.gate.check({ ...call, subagent: true });
          if (!verdict.allowed && verdict.by === "user") return { ...verdict, reason: WORKER_DENIED };
          return verdict;
        },
      };
      const memory = options.memory?.(kind, input.prompt) ?? "";
      const system = (offered: ToolDefinition[]) =>
        buildSystemPrompt({
          root: ctx.root,
          platform: `${process.platform}-${process.arch}`,
          tools: offered,
          approvalTools: kind === "worker" || agent ? offered.filter((tool) => tool.effect !== "read").map((tool) => tool.name) : [],
          appendix: agent ? agent.prompt : _APPENDIX[kind as _BuiltinKind],
          memory,
        });
      const turn = runTurn(
        { prompt: input.prompt },
        {
          client: options.client,
          model,
          thinking: options.thinking(),
          messages: [],
          tools: () => tools,
          systemPrompt: system,
          gate,
          root: options.root,
          sandbox: ctx.sandbox,
          maxSteps: SUBAGENT_MAX_STEPS,
          signal: ctx.signal,
          // The parent turn's checkpoint: a worker's write and exec calls snapshot the workspace first.
          beforeChange: ctx.beforeChange,
          checkpoint: ctx.checkpoint,
          hooks: options.hooks,
          subagent: true,
        },
      );
      for (;;) {
        const next = await turn.next();
        if (next.done) {
          const result = next.value;
          if (result.usage) options.onUsage?.(result.usage, model);
          if (result.stop === "aborted") throw new Error("The subagent was interrupted before it finished.");
          if (result.stop === "error") throw new Error(`The subagent failed: ${result.error ?? "unknown error"}`);
          const report = result.answer.trim();
          const capped = result.stop === "max-steps" ? `${report || NO_FINDINGS}\n\n[the subagent reached its ${SUBAGENT_MAX_STEPS}-step limit]` : report;
          return capped || NO_FINDINGS;
        }
        const event = next.value;
        if (event.type === "tool-call") ctx.emitOutput(`[${input.description}] ${event.name} ${_short(event.input)}\n`);
        else if (event.type === "tool-denied") ctx.emitOutput(`[${input.description}] ${event.name} denied\n`);
        else if (event.type === "hook") options.hookEvents?.push(event);
      }
    },
  };
}

/** A custom kind's tools: the built-in ones its `tools` name, or the default set when it names none. */
function _customTools(agent: AgentDefinition, registered: ToolDefinition[], canAsk: boolean, root: string): ToolDefinition[] {
  if (!agent.tools) return registered.filter((tool) => isSubagentTool(tool, canAsk ? "worker" : "explore"));
  const named = new Set(namedTools(agent.tools, registered, { root: findProjectRoot(root), cwd: root }));
  return registered.filter((tool) => tool.set !== undefined && named.has(tool.name));
}

function _short(input: unknown): string {
  const text = JSON.stringify(input) ?? "";
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
