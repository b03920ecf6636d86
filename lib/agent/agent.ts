/**
 * An agent session: everything one shiro process needs to run turns — resolved config, model
 * client, session record and its writer, project memory, tools, plugins, the approval gate,
 * the prompt builder and the context manager — wired once, then `turn()` per prompt.
 *
 * Each turn is a run: it gets a UUIDv7 run id, a snapshot in runs/ and an event log in
 * events/, both written as the events flow. Front ends (headless, REPL, `runs resume`) only
 * consume the AgentEvent stream.
 */
import { UserError } from "../errors.ts";
import { uuidv7 } from "../ids.ts";
import { resolveConfig, type AgentName, type ResolvedConfig, type ThinkingLevel } from "../config.ts";
import { createBlockingDecision, createGate, denyAll, type DecisionSource, type Gate } from "../approval.ts";
import { defaultPermission, parsePermissionRules, evaluatePermission, type PermissionRules } from "../permissions.ts";
import { createDisabledPluginHost, createPluginHost, type PluginHost } from "../plugins.ts";
import { findProjectRoot } from "../project.ts";
import { detectSandbox, type SandboxStatus } from "../sandbox/detect.ts";
import { createCommandSandbox } from "../sandbox/session.ts";
import { connectionFromConfig, createModelClient, type ModelClient } from "../providers/client.ts";
import { shortApprovalId, shortRunId, shortSessionId } from "../store/short-ids.ts";
import { openGlobalMemory, openMemory, renderMemoryForPrompt, type MemoryStore } from "../store/memory.ts";
import { openEpisodes } from "../store/episodes.ts";
import { createEmbeddingClient, type EmbeddingClient } from "../search/embeddings.ts";
import { recordSessionEpisode, summarizeEpisode } from "./episode-recorder.ts";
import { renderTodosForPrompt, type Todo } from "../store/notebook.ts";
import { openRunLog, type RunOptions, type RunSnapshot } from "../store/runs.ts";
import { createSession, findSession, newestForCwd, openSessionWriter, type SessionRecord, type SessionWriter } from "../store/sessions.ts";
import { loadSkills, renderSkillCatalogue, type Skill } from "../skills.ts";
import { stateDir } from "../paths.ts";
import { builtinTools, selectTools } from "../tools/index.ts";
import { createSkillTool } from "../tools/skill.ts";
import { createMemoryTools } from "../tools/memory-tools.ts";
import { createRecallDiscardedTool } from "../tools/recall-discarded.ts";
import { createTodoTool } from "../tools/todo.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { createContextManager, type ContextManager } from "./context-manager.ts";
import { createTaskTool } from "./subagent.ts";
import type { McpHub, McpServerStatus } from "../mcp.ts";
import type { AgentEvent } from "./events.ts";
import { loadInstructions, renderInstructions, type InstructionFile } from "./instructions.ts";
import { buildSystemPrompt } from "./prompt.ts";
import { createRunDriver } from "./run-driver.ts";
import { DEFAULT_MAX_STEPS, VARIANTS, type AgentVariant } from "./variants.ts";

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

export interface CreateAgentOptions {
  cwd: string;
  flags: AgentFlags;
  mode: "headless" | "interactive";
  /** Run id of the first turn (detached runs are given theirs by the parent). */
  runId?: string;
  detached?: boolean;
  /** Interactive approval prompt; headless uses the --approvals policy. */
  decide?: DecisionSource;
  /** Continue exactly this session (used by `shiro runs resume`). */
  sessionId?: string;
  env?: NodeJS.ProcessEnv;
}

/** What the REPL may switch mid-session (`/agent`, `/think`, `/model`). */
export interface AgentModeChange {
  agent?: AgentName;
  thinking?: ThinkingLevel;
  model?: string;
}

export interface Agent {
  readonly config: ResolvedConfig;
  readonly variant: AgentVariant;
  readonly thinking: ThinkingLevel;
  readonly model: string;
  /** Switches variant, thinking level or model for the next turns. A new variant resets thinking to its own unless given. */
  configure(change: AgentModeChange): void;
  /** One tool-less model call with this session's client (compaction, memory, commit messages). */
  complete(system: string, prompt: string, signal?: AbortSignal): Promise<string>;
  readonly session: SessionRecord;
  readonly memory?: MemoryStore;
  readonly plugins: PluginHost;
  /** Where shell commands run: the sandbox mode in force and why (`shiro sandbox` prints the same). */
  readonly sandbox: SandboxStatus;
  readonly instructions: InstructionFile[];
  /** Skills loaded for this session (none with --no-skills). */
  readonly skills: readonly Skill[];
  /** Messages restored from an earlier session (0 for a new one). */
  readonly resumedMessages: number;
  /** Lines for stderr / the banner: resume notes, skipped files, the headless policy. */
  startupNotices(): string[];
  offeredTools(): ToolDefinition[];
  registeredTools(): ToolDefinition[];
  todos(): Todo[];
  turn(prompt: string, signal: AbortSignal, options?: { runId?: string }): AsyncGenerator<AgentEvent, void, undefined>;
  /** Continues a blocked run after its approval was decided. */
  resumeRun(run: RunSnapshot, decision: "approved" | "denied", signal: AbortSignal): AsyncGenerator<AgentEvent, void, undefined>;
  /** Saves now (e.g. `/save`). */
  save(): void;
  /** MCP servers of this session and their state (empty with --no-mcp or none configured). */
  mcpStatus(): McpServerStatus[];
  /** Flushes the session and releases its lease; returns the session id when anything was saved. */
  close(): string | undefined;
  /** Settles once everything `close` started (MCP servers stopping) is done. */
  readonly closed: Promise<void>;
}

/** Config flags as lib/config.ts wants them. */
function _configFlags(flags: AgentFlags) {
  return { provider: flags.provider, protocol: flags.protocol, model: flags.model, baseURL: flags.baseURL, agent: flags.agent, thinking: flags.think };
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

/** No key for the chosen provider: headless exits 1 with this; the REPL opens provider setup instead. */
export class MissingKeyError extends UserError {
  override name = "MissingKeyError";
}

function _missingKey(config: ResolvedConfig): UserError {
  const env = config.preset.keyEnv ? `${config.preset.keyEnv} / SHIRO_API_KEY` : "SHIRO_API_KEY";
  return new MissingKeyError(`No API key for provider "${config.preset.id}". Run shiro and use /provider to set one, or set ${env}, or add "apiKey" to ${config.configPath}`);
}

function _pickSession(options: CreateAgentOptions, config: ResolvedConfig, notices: string[]): { session: SessionRecord; resumed: boolean } {
  const { flags, cwd } = options;
  if (options.sessionId) return { session: findSession(options.sessionId), resumed: true };
  if (flags.resume) return { session: findSession(flags.resume), resumed: true };
  if (flags.continue) {
    const found = newestForCwd(cwd);
    notices.push(...found.notices);
    if (found.session) {
      for (const live of found.live) notices.push(`session ${shortSessionId(live.id)} is open in process ${live.pid}; continuing the newest one that is not`);
      return { session: found.session, resumed: true };
    }
    if (found.live.length === 0) throw new UserError("no saved session for this directory");
    // Two processes never write one session: the live one keeps it, this one starts afresh.
    for (const live of found.live) notices.push(`session ${shortSessionId(live.id)} is open in process ${live.pid}; starting a new one`);
  }
  return { session: createSession({ cwd, provider: config.preset.id, model: config.model }), resumed: false };
}

/** Resolves the config; without a key or an explicit provider, a local model server found running stands in. */
async function _resolveConfig(options: CreateAgentOptions, notices: string[]): Promise<ResolvedConfig> {
  const { flags } = options;
  const env = options.env ?? process.env;
  const config = resolveConfig({ flags: _configFlags(flags), env: options.env });
  if (config.apiKey) return config;
  if (!flags.provider && !env.SHIRO_PROVIDER && !config.file.provider) {
    const { detectLocalServer } = await import("../providers/models.ts");
    const local = await detectLocalServer();
    if (local) {
      // The preset's default model may not be pulled on this server: take one it lists.
      const asked = flags.model || env.SHIRO_MODEL || config.file.model;
      const chosen = asked ?? (local.models.includes(local.preset.defaultModel) ? undefined : local.models[0]);
      const found = resolveConfig({ flags: { ..._configFlags(flags), provider: local.preset.id, baseURL: flags.baseURL ?? local.baseURL, model: chosen }, env: options.env, file: config.file });
      notices.push(`no API key configured; using the ${local.preset.label} server on ${local.baseURL} with ${found.model}`);
      if (found.apiKey) return found;
      throw _missingKey(found);
    }
  }
  throw _missingKey(config);
}

export async function createAgent(options: CreateAgentOptions): Promise<Agent> {
  const { flags, cwd } = options;
  const notices: string[] = [];
  const config = await _resolveConfig(options, notices);
  let variant: AgentVariant = VARIANTS[config.agent];
  let thinking: ThinkingLevel = config.thinking ?? variant.thinking;
  let model = config.model;
  const client: ModelClient = createModelClient({ connection: connectionFromConfig(config), preset: config.preset, protocolForced: config.protocolForced });

  const picked = _pickSession(options, config, notices);
  const session = picked.session;
  const writer: SessionWriter = openSessionWriter(session);
  const resumedMessages = picked.resumed ? session.messages.length : 0;
  if (picked.resumed) notices.push(`resumed session ${shortSessionId(session.id)} (${session.messages.length} messages${session.notebook.todos.length ? `, ${session.notebook.todos.length} tasks` : ""})`);

  const projectRoot = findProjectRoot(cwd);
  // --no-memory opens neither store, so neither file is read or written.
  const memory = flags.noMemory ? undefined : openMemory(projectRoot, { onNotice: (text) => notices.push(text) });
  const globalMemory = flags.noMemory ? undefined : openGlobalMemory({ onNotice: (text) => notices.push(text) });
  const memorySection = memory ? renderMemoryForPrompt(memory.top(20), globalMemory?.top(10)) : "";
  const episodes = flags.noMemory ? undefined : openEpisodes(projectRoot, { onNotice: (text) => notices.push(text) });
  const embeddings = flags.noMemory ? undefined : _embeddingClient(config, notices);
  /** Runs this process drove in this session: the next episode's material. */
  const episodeRuns: string[] = [];

  const sandboxStatus = detectSandbox({ config: config.file.sandbox, noSandbox: flags.noSandbox, env: options.env });
  if (sandboxStatus.notice) notices.push(sandboxStatus.notice);
  const sandbox = createCommandSandbox(sandboxStatus, { decide: options.decide, sessionId: session.id });
  const wrapCommand = (argv: readonly string[]) => sandbox.wrap(argv, cwd);

  const plugins = flags.noPlugins ? createDisabledPluginHost() : createPluginHost({ cwd, enabled: config.file.plugins, wrapCommand });
  // Plugins installed from the registry always load (declarative deny rules), unless --no-plugins.
  if (!flags.noPlugins) {
    const { loadInstalledPlugins } = await import("../registry.ts");
    const installed = loadInstalledPlugins();
    if (installed.manifests.length > 0) plugins.loadInstalled(installed.manifests);
    for (const failure of installed.failures) notices.push(`plugin ${failure.name}: ${failure.error}`);
  }
  for (const failure of plugins.failures()) notices.push(`plugin ${failure.name}: ${failure.error}`);

  const loadedSkills = flags.noSkills ? { skills: [], skipped: [] } : loadSkills({ cwd, stateDir: stateDir() });
  for (const skip of loadedSkills.skipped) notices.push(`skill ${skip.path} skipped: ${skip.reason}`);
  const skills = loadedSkills.skills;
  const skillsSection = renderSkillCatalogue(skills);

  // MCP servers connect in the background; their tools join the step after they are listed.
  // The MCP module (and the SDK behind it) is loaded only when servers are configured.
  const mcpServers = config.file.mcpServers ?? {};
  let hub: McpHub | undefined;
  const mcpEvents: AgentEvent[] = [];
  if (!flags.noMcp && Object.keys(mcpServers).length > 0) {
    const { createMcpHub } = await import("../mcp.ts");
    hub = createMcpHub(mcpServers, { cwd, ...(sandboxStatus.mcp ? { wrapCommand: (argv, dir) => sandbox.wrap(argv, dir) } : {}) });
    hub.onChange((status) => {
      if (status.state === "connecting") return;
      mcpEvents.push({ type: "mcp", server: status.name, status: status.state, tools: status.tools, ...(status.error ? { error: status.error } : {}) });
    });
    hub.start();
    // A headless run has one turn: it waits (15 s at most) so the servers' tools are there for it.
    if (options.mode === "headless") await hub.ready();
  } else if (flags.noMcp && Object.keys(mcpServers).length > 0) {
    notices.push(`mcp: ${Object.keys(mcpServers).length} configured, not connected (--no-mcp)`);
  }

  const instructions = flags.noInstructions ? [] : loadInstructions(cwd);
  const instructionsSection = renderInstructions(instructions);

  const context: ContextManager = createContextManager({
    session, client, model: () => model, thinking: () => thinking, markChanged: () => writer.markChanged(),
    threshold: config.file.compaction?.threshold, auto: config.file.compaction?.auto ?? true,
  });

  const sessionTools: ToolDefinition[] = [
    createTodoTool({ get: () => session.notebook.todos, set: (todos) => { session.notebook.todos = todos; writer.markChanged(); } }),
    ...(memory ? createMemoryTools(memory, { global: globalMemory, source: () => ({ sessionId: session.id }), episodes, cwd, embeddings }) : []),
    createRecallDiscardedTool(() => context.ledger()),
    ...(flags.noSubagent ? [] : [createTaskTool({
      client, model: () => model, thinking: () => thinking, tools: () => registered, root: cwd,
      gate: { check: (call) => gate.check(call), newTurn: () => undefined, deniesPath: (tool, path, root) => gate.deniesPath!(tool, path, root) },
      canAsk: Boolean(options.decide),
      workerBlocked: () => (variant.allow ? `The worker kind is not available in the ${variant.name} agent: it cannot change anything.` : undefined),
      onUsage: (used) => driver.addSubagentUsage(used),
    })]),
    ...(skills.length > 0 ? [createSkillTool(skills)] : []),
    ...plugins.tools(),
  ];
  const complete = (system: string, prompt: string, signal: AbortSignal) => context.complete(system, prompt, signal);
  const registered = builtinTools({ extraTools: sessionTools, complete, allowHosts: config.file.webFetch?.allowHosts });
  let offered = selectTools(registered, { toolSets: config.file.toolSets, allow: variant.allow }).offered;

  const rules: PermissionRules = parsePermissionRules(config.file.permission, defaultPermission(registered));
  const autoApprove = new Set(sessionTools.map((tool) => tool.name));
  const autoApproveAll = new Set([...autoApprove, ...plugins.autoApprove()]);
  const asksFirst = (name: string) => evaluatePermission(rules, name, [], { autoApprove: autoApproveAll }).decision !== "allow";

  const headless = options.mode === "headless";
  if (headless && !flags.yolo) {
    notices.push(flags.approvals === "block"
      ? "headless with --approvals block: a call that needs approval stops the run (exit 3) until `shiro approve <id>`"
      : `headless denies tools that need approval (${[...offered.map((tool) => tool.name).filter(asksFirst), ...(hub ? ["mcp tools"] : [])].join(", ") || "none"}) unless --yolo is passed, and reads of files that may hold secrets unless a rule names them`);
  }
  if (!headless) notices.push(_approvalsLine(flags.yolo, Object.keys(config.file.permission ?? {}), offered.map((tool) => tool.name).filter(asksFirst)));
  if (flags.noPlugins) notices.push("plugins: none (--no-plugins), so the guard is off");

  // The first turn may have been given its id (detached runs); later turns get fresh ones.
  let nextRunId = options.runId ?? uuidv7();
  let activeRunId = nextRunId;
  const decide: DecisionSource = options.decide ?? (headless && flags.approvals === "block"
    // A blocked call is persisted under the run that is active when it asks.
    ? createBlockingDecision({ get runId() { return activeRunId; }, sessionId: session.id })
    : denyAll);
  // One gate for the whole session: "always" grants last until the process ends; the repeat
  // guard is reset by the loop at the start of every turn.
  const gate: Gate = createGate({ rules, plugins, yolo: flags.yolo, decide, autoApprove, headless: headless && !options.decide, sessionId: session.id });

  /** What a step offers: the selected tools, plus MCP tools listed so far (never under a read-only variant). */
  const offeredNow = (): ToolDefinition[] => (hub && !variant.allow ? [...offered, ...hub.tools()] : offered);

  const systemPrompt = (offeredNow: ToolDefinition[]) => buildSystemPrompt({
    root: cwd, platform: `${process.platform}-${process.arch}`, tools: offeredNow,
    approvalTools: offeredNow.map((tool) => tool.name).filter(asksFirst),
    instructions: instructionsSection, memory: memorySection, skills: skillsSection, appendix: variant.appendix,
    pluginAppendices: plugins.appendices(), todos: renderTodosForPrompt(session.notebook.todos),
  });

  const driver = createRunDriver({
    session, markChanged: () => writer.markChanged(), client, context, gate, plugins, memory, root: cwd, sandbox,
    model: () => model, thinking: () => thinking, maxSteps: () => variant.maxSteps ?? config.file.maxSteps ?? DEFAULT_MAX_STEPS,
    tools: offeredNow, systemPrompt, outside: mcpEvents,
    firstTurnPairs: headless && picked.resumed ? config.file.historyPairs ?? 0 : 0,
    saveNow: () => writer.flush(), startupNotices: headless ? notices : undefined,
  });
  // A new session is written before its first run starts, so a run killed in its first moments
  // still leaves a session that `-c` resumes.
  let persisted = picked.resumed;
  const runOptions = runOptionsFromFlags(flags);

  let closing: Promise<void> = Promise.resolve();
  const agent: Agent = {
    config, session, memory, plugins, instructions, skills, resumedMessages, sandbox: sandboxStatus,
    get variant() {
      return variant;
    },
    get thinking() {
      return thinking;
    },
    get model() {
      return model;
    },
    configure(change) {
      if (change.agent) {
        variant = VARIANTS[change.agent];
        thinking = variant.thinking;
        offered = selectTools(registered, { toolSets: config.file.toolSets, allow: variant.allow }).offered;
      }
      if (change.thinking) thinking = change.thinking;
      if (change.model) model = change.model;
    },
    complete,
    startupNotices: () => notices,
    offeredTools: offeredNow,
    registeredTools: () => (hub ? [...registered, ...hub.tools()] : registered),
    todos: () => session.notebook.todos,
    async *turn(prompt, signal, turnOptions = {}) {
      activeRunId = turnOptions.runId ?? nextRunId;
      nextRunId = uuidv7();
      const runId = activeRunId;
      episodeRuns.push(runId);
      // A resumed session records the provider and model it is continued with.
      session.provider = config.preset.id;
      session.model = model;
      const snapshot: RunSnapshot = {
        version: 1, id: runId, sessionId: session.id, cwd, provider: config.preset.id, model,
        protocol: client.protocol, agent: variant.name, prompt: prompt.slice(0, 200), status: "running", pid: process.pid,
        startedAt: new Date().toISOString(), steps: 0, options: runOptions, ...(options.detached ? { detached: true } : {}),
      };
      if (!persisted) {
        writer.save();
        persisted = true;
      }
      const log = openRunLog(snapshot, { fresh: true });
      const start: AgentEvent = { type: "run-start", runId, sessionId: session.id, cwd, provider: config.preset.id, model, agent: variant.name, protocol: client.protocol };
      log.append(start);
      yield start;
      yield* driver.drive({ input: { prompt }, log, signal, query: prompt });
    },
    async *resumeRun(run, decision, signal) {
      if (!run.suspended) throw new UserError(`run ${shortRunId(run.id)} is not waiting for an approval`);
      activeRunId = run.id;
      if (!episodeRuns.includes(run.id)) episodeRuns.push(run.id);
      const log = openRunLog({ ...run, status: "running", pid: process.pid, suspended: undefined }, { fresh: false });
      const notice: AgentEvent = { type: "notice", text: `resuming run ${shortRunId(run.id)}: approval ${shortApprovalId(run.suspended.approvalId)} was ${decision}` };
      log.append(notice);
      yield notice;
      // The exchange records the whole question; the snapshot keeps only its first 200 characters.
      const asked = session.messages.slice(0, run.suspended.assistantIndex).findLast((message) => message.role === "user");
      yield* driver.drive({ input: { resume: run.suspended, decision }, log, signal, query: asked?.role === "user" ? asked.content : run.prompt });
    },
    save: () => writer.save(),
    mcpStatus: () => hub?.status() ?? [],
    close() {
      const hasMessages = session.messages.length > 0;
      const episode = episodes && recordSessionEpisode({ store: episodes, session, cwd, runIds: episodeRuns.splice(0) });
      writer.close();
      const summary = episode && config.file.memory?.episodeSummary ? summarizeEpisode(episodes!, episode, complete) : undefined;
      closing = Promise.all([hub?.close(), summary]).then(() => undefined);
      return hasMessages ? session.id : undefined;
    },
    get closed() {
      return closing;
    },
  };
  return agent;
}

/** Config `memory.embeddings` as a client; the key comes from the environment variable it names. */
function _embeddingClient(config: ResolvedConfig, notices: string[]): EmbeddingClient | undefined {
  const settings = config.file.memory?.embeddings;
  if (!settings) return undefined;
  const apiKey = settings.apiKeyEnv ? process.env[settings.apiKeyEnv] : undefined;
  if (settings.apiKeyEnv && !apiKey) notices.push(`memory.embeddings: ${settings.apiKeyEnv} is not set; asking ${settings.baseURL} without a key`);
  return createEmbeddingClient({ baseURL: settings.baseURL, model: settings.model, ...(apiKey ? { apiKey } : {}) });
}

/** The banner's approvals line (seed wording). */
function _approvalsLine(yolo: boolean, ruled: string[], asking: string[]): string {
  if (yolo) return "approvals: OFF (--yolo), but deny rules and the guard still apply";
  if (ruled.length > 0) return `approvals: rules for ${ruled.join(", ")}, defaults elsewhere`;
  return `approvals: ask for ${[...asking, "mcp__*"].join(", ")}`;
}
