/**
 * The session's tools, in three steps: the toolbox (a lookup by name that parts opened before
 * the tools exist hold, filled once they do), the session's own tools (the task list, `ask`,
 * memory, `recall_discarded`, `task`, `skill`, the plugins'), and the registry over them and the
 * built-in ones: what a step offers (the tool sets, the variant's allow list, the run's rules,
 * MCP tools listed so far, a custom command's `allowed-tools`), what it may call (deferred
 * schemas and withheld tools included, so the gate refuses them with the reason) and which calls
 * ask first.
 */
import type { AgentFlags } from "../../config/flags.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { ModelClient } from "../../providers/client.ts";
import type { StartupNotice } from "../../notices.ts";
import { addDeclaredDefaults, evaluatePermission, mayAllow, type PermissionRules } from "../../approval/rules.ts";
import type { Gate } from "../../extensions/gate.ts";
import type { PluginHost } from "../../extension-api/plugin-api.ts";
import type { Skill } from "../../skills/skills.ts";
import { checkToolList, selectTools } from "../../tools/index.ts";
import { createAskTool, type AskUser } from "../../tools/ask.ts";
import { createRecallDiscardedTool } from "../../tools/recall-discarded.ts";
import { createSkillTool } from "../../tools/skill.ts";
import { createTodoTool } from "../../tools/todo.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { createToolDeferral, LOAD_TOOLS_DECLARATION } from "../context/tool-deferral.ts";
import type { ContextManager } from "../context/manager.ts";
import type { SessionMemory } from "../memory-session.ts";
import type { RunScope } from "../run-scope.ts";
import type { McpConnection } from "../session-extensions.ts";
import type { AgentDefinition } from "../../store/agent-definitions.ts";
import type { SessionHooks } from "../session-settings.ts";
import { createTaskTool } from "../subagent.ts";
import type { TurnNarrowing } from "../turn-tools.ts";
import type { SessionModes } from "./modes.ts";
import type { SessionPart } from "./session.ts";

/** The session's registered tools by name, for parts opened before the tools exist (memory provenance, `task`). */
export interface Toolbox {
  /** Empty until the registry opens. */
  registered: ToolDefinition[];
  /** A declaration by name: a registered tool, else an MCP tool listed so far. */
  find(name: string): ToolDefinition | undefined;
  /** The registered tools and the MCP tools listed so far. */
  all(): ToolDefinition[];
}

export function createToolbox(mcp: Pick<McpConnection, "hub">): Toolbox {
  const toolbox: Toolbox = {
    registered: [],
    find: (name) => toolbox.registered.find((tool) => tool.name === name) ?? mcp.hub?.tools().find((tool) => tool.name === name),
    all: () => (mcp.hub ? [...toolbox.registered, ...mcp.hub.tools()] : toolbox.registered),
  };
  return toolbox;
}

export interface SessionToolsOptions {
  cwd: string;
  flags: Pick<AgentFlags, "noSubagent">;
  client: ModelClient;
  modes: Pick<SessionModes, "variant" | "thinking" | "subagentModel">;
  session: Pick<SessionPart, "session" | "writer">;
  askUser?: AskUser;
  /** True when a person answers approval questions: only then may `task` start a worker. */
  canAsk: boolean;
  memory?: SessionMemory;
  context: Pick<ContextManager, "ledger">;
  gate: Gate;
  toolbox: Toolbox;
  scope: Pick<RunScope, "subagentUsage">;
  hooks?: SessionHooks;
  /** Where subagents' hook events go (the queue the run driver empties). */
  hookEvents: McpConnection["events"];
  skills: readonly Skill[];
  plugins: PluginHost;
  /** Custom subagent kinds (openCustomAgents: trusted ones only), read once before the run's bounds are checked. */
  agents: readonly AgentDefinition[];
}

/** The tools the session itself provides, in the order they are registered. */
export function createSessionTools(options: SessionToolsOptions, notices: StartupNotice[]): ToolDefinition[] {
  const { session, writer } = options.session;
  const { modes, gate, memory } = options;
  return [
    createTodoTool({
      get: () => session.notebook.todos,
      set: (todos) => {
        session.notebook.todos = todos;
        writer.markChanged();
      },
    }),
    ...(options.askUser ? [createAskTool(options.askUser)] : []),
    ...(memory?.tools ?? []),
    createRecallDiscardedTool(() => options.context.ledger()),
    ...(options.flags.noSubagent
      ? []
      : [
          createTaskTool({
            client: options.client,
            model: () => modes.subagentModel(),
            thinking: () => modes.thinking,
            tools: () => options.toolbox.registered,
            root: options.cwd,
            gate: { check: (call) => gate.check(call), newTurn: () => undefined, deniesPath: (tool, path, root) => gate.deniesPath!(tool, path, root) },
            canAsk: options.canAsk,
            workerBlocked: () =>
              modes.variant.allow ? `The worker kind is not available in the ${modes.variant.name} agent: it cannot change anything.` : undefined,
            onUsage: (used, model) => options.scope.subagentUsage.add(used, model),
            memory: memory ? (kind, prompt) => memory.subagentSection(kind, prompt) : undefined,
            hooks: options.hooks,
            hookEvents: options.hookEvents,
            agents: options.agents,
          }),
        ]),
    ...(options.skills.length > 0 ? [createSkillTool(options.skills)] : []),
    ...options.plugins.tools(),
  ];
}

export interface ToolRegistry {
  registered: ToolDefinition[];
  /** Registered tools and the MCP tools listed so far. */
  all(): ToolDefinition[];
  /** What a step offers, before the schema deferral. */
  offered(): ToolDefinition[];
  /** What a request carries: `offered` with deferred schemas behind `load_tools`. */
  requestTools(): ToolDefinition[];
  /** What the model may call on a step: deferred tools, withheld ones (refused with the reason) included. */
  callable(): ToolDefinition[];
  /** True when no rule allows a call of `name` without asking. */
  asksFirst(name: string): boolean;
  /** Picks the offered tools again after the variant changed (its allow list). */
  reselect(): void;
}

export interface ToolRegistryOptions {
  headless: boolean;
  flags: Pick<AgentFlags, "yolo" | "approvals">;
  /** True when the front end answers questions. */
  canAsk: boolean;
  config: Pick<ResolvedConfig, "file">;
  builtins: ToolDefinition[];
  sessionTools: ToolDefinition[];
  rules: PermissionRules;
  scope: Pick<RunScope, "visible" | "withheld">;
  modes: Pick<SessionModes, "variant">;
  mcp: Pick<McpConnection, "hub">;
  toolbox: Toolbox;
  /** A custom command's `allowed-tools` for the turn it starts: only the tools they name are offered. */
  narrowing: Pick<TurnNarrowing, "allows">;
}

/** The registry; fills the toolbox, joins the session tools' declared defaults to the rules, and tells the approvals policy. */
export function openToolRegistry(options: ToolRegistryOptions, notices: StartupNotice[]): ToolRegistry {
  const { config, rules, scope, modes, mcp, headless, flags, narrowing } = options;
  const registered = checkToolList([...options.builtins, ...options.sessionTools]);
  options.toolbox.registered = registered;
  addDeclaredDefaults(rules, [...options.sessionTools, LOAD_TOOLS_DECLARATION]);
  const select = () => scope.visible(selectTools(registered, { toolSets: config.file.toolSets, allow: modes.variant.allow }).offered);
  let offered = select();
  // Where every question is denied, a tool no rule allows could only be refused: it is not offered.
  const deniesAsking = headless && !flags.yolo && flags.approvals !== "block" && !options.canAsk;
  const runnable = (tool: ToolDefinition) => !deniesAsking || mayAllow(rules, tool.name);
  const deferral = createToolDeferral({ enabled: config.file.deferTools !== false, mcpBudget: config.file.mcpSchemaBudget });
  // The selected tools, plus MCP tools listed so far (never under a read-only variant), within a custom command's allowed-tools.
  const selectedNow = (): ToolDefinition[] =>
    scope.visible(mcp.hub && !modes.variant.allow ? [...offered, ...mcp.hub.tools()] : offered).filter(narrowing.allows);
  // The selected tools split once: those offered (runnable) and those only a gate could refuse.
  const splitNow = (): { offered: ToolDefinition[]; refused: ToolDefinition[] } => {
    const split = { offered: [] as ToolDefinition[], refused: [] as ToolDefinition[] };
    for (const tool of selectedNow()) (runnable(tool) ? split.offered : split.refused).push(tool);
    return split;
  };
  const offeredNow = (): ToolDefinition[] => splitNow().offered;
  const asksFirst = (name: string) => evaluatePermission(rules, name, []).decision !== "allow";
  if (headless && !flags.yolo)
    notices.push({ code: "headless-approvals", mode: flags.approvals, asking: offered.map((tool) => tool.name).filter(asksFirst), mcp: mcp.hub !== undefined });
  if (!headless)
    notices.push({
      code: "approvals",
      yolo: flags.yolo === true,
      ruled: Object.keys(config.file.permission ?? {}),
      asking: offered.map((tool) => tool.name).filter(asksFirst),
    });
  return {
    registered,
    all: options.toolbox.all,
    offered: offeredNow,
    requestTools: () => deferral.offer(offeredNow()),
    // A withheld tool the model calls anyway is refused by the gate with the reason, not "unknown".
    callable: () => {
      const { offered: offeredTools, refused } = splitNow();
      return [...deferral.callable(offeredTools), ...refused, ...scope.withheld(registered)];
    },
    asksFirst,
    reselect() {
      offered = select();
    },
  };
}
