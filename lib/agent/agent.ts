/**
 * An agent session: everything one shiro process needs to run turns — resolved config, model
 * client, session record and its writer, project memory, tools, plugins, the approval gate,
 * the prompt builder and the context manager — wired once, in dependency order, then `turn()`
 * per prompt. The run lifecycle (ids, snapshot, event log, cancel, `done`) is run-driver.ts's;
 * what wiring found worth telling is returned as data (`startupNotices`), worded by the front end.
 * Front ends (headless, REPL, `runs resume`) only consume the AgentEvent stream.
 */
import type { ThinkingLevel } from "../vocabulary.ts";
import { createGate, type Gate } from "../extensions/gate.ts";
import { type DecisionSource } from "../approval/request.ts";
import { addDeclaredDefaults, defaultPermission, parsePermissionRules, evaluatePermission, mayAllow } from "../approval/rules.ts";
import { findProjectRoot } from "../config/project.ts";
import { detectSandbox } from "../sandbox/detect.ts";
import { createCommandSandbox } from "../sandbox/session.ts";
import { connectionFromConfig, createModelClient, type ModelClient } from "../providers/client.ts";
import { openEpisodes } from "../store/episodes.ts";
import { embeddingClientFromConfig } from "../search/embeddings.ts";
import { collectRunIds, recordSessionEpisode, summarizeEpisode } from "./episode-recorder.ts";
import { openSessionWriter, type SessionWriter } from "../store/sessions.ts";
import { renderSkillCatalogue } from "../skills/skills.ts";
import { builtinTools, checkToolList, selectTools } from "../tools/index.ts";
import { createSkillTool } from "../tools/skill.ts";
import { createRecallDiscardedTool } from "../tools/recall-discarded.ts";
import { createTodoTool } from "../tools/todo.ts";
import { createAskTool } from "../tools/ask.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { runOptionsFromFlags } from "../config/flags.ts";
import { createContextManager, type ContextManager } from "./context/manager.ts";
import { createToolDeferral, LOAD_TOOLS_DECLARATION } from "./context/tool-deferral.ts";
import { createContextWindow } from "./context/window.ts";
import { learnModelWindow } from "./context/window-learned.ts";
import { describePromptTooLarge, recoverFromOverflow } from "./context/overflow.ts";
import type { AgentEvent } from "../events.ts";
import { openSessionMemory } from "./memory-session.ts";
import { loadInstructions, renderInstructions } from "./instructions.ts";
import type { StartupNotice } from "../notices.ts";
import { buildSystemPrompt, renderTodosForPrompt } from "./prompt.ts";
import { createRunDriver, createRunIds } from "./run-driver.ts";
import { connectMcp, openCustomAgents, openPlugins, openSkills } from "./session-extensions.ts";
import { openSessionSettings } from "./session-settings.ts";
import { pickSession, resolveAgentConfig } from "./session-start.ts";
import { createTaskTool } from "./subagent.ts";
import { createTurnNarrowing } from "./turn-tools.ts";
import { runUserCommand } from "./user-command.ts";
import { DEFAULT_MAX_STEPS, VARIANTS, type AgentVariant } from "./variants.ts";
import type { CompleteFn } from "../providers/complete.ts";
import { readRunScope } from "./run-scope.ts";
import { traceFirstRequest, tracedStartup } from "./startup-trace.ts";

export type { Agent, AgentModeChange, CreateAgentOptions } from "./agent-api.ts";
import type { Agent, AgentModeChange, CreateAgentOptions } from "./agent-api.ts";

export async function createAgent(options: CreateAgentOptions): Promise<Agent> {
  const { flags, cwd } = options;
  const headless = options.mode === "headless";
  const notices: StartupNotice[] = [];
  const config = tracedStartup("config", await resolveAgentConfig(flags, options.env, notices));
  // Custom subagents may name their own model: --max-cost must be able to price it too.
  const customAgents = openCustomAgents(cwd, flags.noSubagent === true, notices);
  const scope = readRunScope(cwd, flags, [
    config.model,
    config.file.subagentModel ?? config.model,
    ...customAgents.flatMap((agent) => (agent.model ? [agent.model] : [])),
  ]);
  let variant: AgentVariant = VARIANTS[config.agent];
  let thinking: ThinkingLevel = config.thinking ?? variant.thinking;
  let model = config.model;
  const client: ModelClient = createModelClient({ connection: connectionFromConfig(config), preset: config.preset, protocolForced: config.protocolForced });

  const picked = pickSession(options, config, notices);
  const session = picked.session;
  const writer: SessionWriter = openSessionWriter(session);
  const resumedMessages = picked.resumed ? session.messages.length : 0;
  if (picked.resumed) notices.push({ code: "session-resumed", sessionId: session.id, messages: session.messages.length, tasks: session.notebook.todos.length });

  const projectRoot = findProjectRoot(cwd);
  // --no-memory opens no store of any scope, so no memory file is read or written.
  const onNotice = (text: string) => notices.push({ code: "store", text });
  const episodes = flags.noMemory ? undefined : openEpisodes(projectRoot, { onNotice });
  const embeddings = flags.noMemory ? undefined : embeddingClientFromConfig(config.file.memory?.embeddings, onNotice);
  /** Runs this process drove in this session: the next episode's material. */
  const episodeRuns: string[] = [];
  const sandboxStatus = detectSandbox({ config: config.file.sandbox, noSandbox: flags.noSandbox, env: options.env });
  if (sandboxStatus.notice) notices.push({ code: "sandbox", text: sandboxStatus.notice });
  const sandbox = createCommandSandbox(sandboxStatus, {
    decide: options.decide,
    sessionId: session.id,
    hidePaths: typeof config.file.sandbox === "object" ? config.file.sandbox.hidePaths : undefined,
  });

  const plugins = await openPlugins(cwd, config, sandbox, flags.noPlugins === true, notices, options.writeStderr);
  const skills = openSkills(cwd, flags.noSkills === true, notices);
  const mcp = await connectMcp({ cwd, config, sandboxStatus, sandbox, disabled: flags.noMcp === true, headless, extra: options.editor?.mcpServers }, notices);
  const instructions = flags.noInstructions ? [] : loadInstructions(cwd);
  const settings = await openSessionSettings({ ...options, config, sessionId: session.id, sandbox, outside: mcp.events, resumed: picked.resumed }, notices);
  const hooks = settings.hooks;

  const window = createContextWindow({ model: () => model, configured: config.file.contextWindow, threshold: config.file.compaction?.threshold });
  if (window.unknown()) learnModelWindow(window, connectionFromConfig(config), model, config.preset.id === "ollama");
  const context: ContextManager = createContextManager({
    session,
    client,
    model: () => model,
    thinking: () => thinking,
    markChanged: () => writer.markChanged(),
    threshold: () => window.threshold(),
    auto: config.file.compaction?.auto ?? true,
    onCompact: settings.onCompact,
  });
  const complete: CompleteFn = (system, prompt, signal) => context.complete(system, prompt, signal ?? new AbortController().signal);

  // The registered tools, filled below; the task tool's workers and the memory's provenance read it.
  const toolbox: { registered: ToolDefinition[] } = { registered: [] };
  // A blocked call is persisted under the run that is active when it asks.
  const runIds = createRunIds(options.runId);
  const memoryConfig = config.file.memory;
  const memoryScopes = flags.noMemory
    ? undefined
    : openSessionMemory({
        projectRoot,
        cwd,
        agent: variant.name,
        sessionId: session.id,
        runId: () => runIds.active,
        messages: () => session.messages,
        toolFor: (name) => toolbox.registered.find((tool) => tool.name === name) ?? mcp.hub?.tools().find((tool) => tool.name === name),
        episodes,
        embeddings,
        budget: memoryConfig?.budget,
        confirmWrites: memoryConfig?.confirmWrites,
        onNotice,
      });
  const memory = memoryScopes?.shelf.project;
  const blocking = headless && flags.approvals === "block" ? { runId: () => runIds.active, sessionId: session.id } : undefined;
  const decide: DecisionSource = settings.decider(options.decide, blocking);
  // One gate for the session: "always" grants last until exit, the loop resets the repeat guard
  // each turn. Only declared `decision`s say whether a call asks (session tools' join below).
  const builtins = builtinTools({ complete, allowHosts: config.file.webFetch?.allowHosts });
  const rules = parsePermissionRules(scope.permission(settings.permission(mcp.rules(config.file.permission), builtins), builtins), defaultPermission(builtins));
  const gate: Gate = createGate({
    rules,
    plugins,
    yolo: flags.yolo === true,
    decide,
    allowReadOnly: config.file.readOnlyCommands !== "ask",
    headless: headless && !options.decide,
    sessionId: session.id,
    preApproves: (tool, subjects) => narrowing.preApproves(tool, subjects),
  });

  const sessionTools: ToolDefinition[] = [
    createTodoTool({
      get: () => session.notebook.todos,
      set: (todos) => {
        session.notebook.todos = todos;
        writer.markChanged();
      },
    }),
    ...(options.askUser ? [createAskTool(options.askUser)] : []),
    ...(memoryScopes?.tools ?? []),
    createRecallDiscardedTool(() => context.ledger()),
    ...(flags.noSubagent
      ? []
      : [
          createTaskTool({
            client,
            model: () => config.file.subagentModel ?? model,
            thinking: () => thinking,
            tools: () => toolbox.registered,
            root: cwd,
            gate: { check: (call) => gate.check(call), newTurn: () => undefined, deniesPath: (tool, path, root) => gate.deniesPath!(tool, path, root) },
            canAsk: Boolean(options.decide),
            workerBlocked: () => (variant.allow ? `The worker kind is not available in the ${variant.name} agent: it cannot change anything.` : undefined),
            onUsage: (used, on) => scope.subagentUsage.add(used, on),
            memory: memoryScopes ? (kind, prompt) => memoryScopes.subagentSection(kind, prompt) : undefined,
            hooks,
            hookEvents: mcp.events,
            agents: customAgents,
          }),
        ]),
    ...(skills.length > 0 ? [createSkillTool(skills)] : []),
    ...plugins.tools(),
  ];
  const registered = checkToolList([...builtins, ...sessionTools]);
  toolbox.registered = tracedStartup("tools", registered);
  addDeclaredDefaults(rules, [...sessionTools, LOAD_TOOLS_DECLARATION]);
  let offered = scope.visible(selectTools(registered, { toolSets: config.file.toolSets, allow: variant.allow }).offered);
  // Where every question is denied, a tool no rule allows could only be refused: it is not offered.
  const deniesAsking = headless && !flags.yolo && flags.approvals !== "block" && !options.decide;
  const runnable = (tool: ToolDefinition) => !deniesAsking || mayAllow(rules, tool.name);
  const narrowing = createTurnNarrowing({ tools: () => [...registered, ...(mcp.hub?.tools() ?? [])], places: { root: projectRoot, cwd } }); // what a step offers: the selected tools, plus MCP tools listed so far (never under a read-only variant), within a custom command's allowed-tools
  const selectedNow = (): ToolDefinition[] => scope.visible(mcp.hub && !variant.allow ? [...offered, ...mcp.hub.tools()] : offered).filter(narrowing.allows);
  const offeredNow = (): ToolDefinition[] => selectedNow().filter(runnable);
  // A withheld tool the model calls anyway is refused by the gate with the reason, not "unknown".
  const callableNow = (): ToolDefinition[] => [...deferral.callable(offeredNow()), ...selectedNow().filter((t) => !runnable(t)), ...scope.withheld(registered)];
  const deferral = createToolDeferral({ enabled: config.file.deferTools !== false, mcpBudget: config.file.mcpSchemaBudget });
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
  if (flags.noPlugins) notices.push({ code: "plugins-off" });

  const instructionsSection = renderInstructions(instructions);
  const skillsSection = renderSkillCatalogue(skills);
  const systemPrompt = (tools: ToolDefinition[]) =>
    buildSystemPrompt({
      root: cwd,
      platform: `${process.platform}-${process.arch}`,
      tools,
      approvalTools: tools.map((tool) => tool.name).filter(asksFirst),
      instructions: instructionsSection,
      memory: memoryScopes?.section() ?? "",
      skills: skillsSection,
      appendix: variant.appendix,
      pluginAppendices: hooks?.contextSection() ? [...plugins.appendices(), hooks.contextSection()] : plugins.appendices(),
      todos: renderTodosForPrompt(session.notebook.todos),
    }) + (scope.appended ? `\n\n${scope.appended}` : "");

  // A new session is written before its first run starts, so a run killed in its first moments
  // still leaves a session that `-c` resumes.
  let persisted = picked.resumed;
  const driver = createRunDriver({
    session,
    markChanged: () => writer.markChanged(),
    client: traceFirstRequest(client),
    context,
    gate,
    plugins,
    memory,
    root: cwd,
    sandbox,
    files: options.editor?.files,
    model: () => model,
    thinking: () => thinking,
    ...scope.limits(() => ({ steps: variant.maxSteps ?? config.file.maxSteps ?? DEFAULT_MAX_STEPS })),
    tools: () => deferral.offer(offeredNow()),
    callable: callableNow,
    systemPrompt,
    outside: mcp.events,
    onOverflow: (message, attempt) =>
      recoverFromOverflow({ window, model, message, attempt, estimate: context.lastEstimate(), auto: config.file.compaction?.auto ?? true }),
    refusePrompt: (prompt) => describePromptTooLarge(prompt, window.current().window, model) ?? hooks?.userPromptSubmit(prompt),
    hooks,
    firstTurnPairs: headless && picked.resumed ? (config.file.historyPairs ?? 0) : 0,
    saveNow: () => writer.flush(),
    runIds,
    subagentUsage: scope.subagentUsage,
    provider: config.preset.id,
    protocol: client.protocol,
    agentName: () => variant.name,
    runOptions: runOptionsFromFlags(flags),
    detached: options.detached,
    runEnding: () => memoryScopes?.endRun() ?? [],
    checkpoints: { file: config.file, off: flags.noCheckpoints === true },
    persist: () => {
      if (persisted) return;
      writer.save();
      persisted = true;
    },
  });

  let closing: Promise<void> = Promise.resolve();
  return {
    hooks,
    config,
    session,
    memory,
    memoryScopes,
    plugins,
    instructions,
    skills,
    resumedMessages,
    sandbox: sandboxStatus,
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
        memoryScopes?.setAgent(variant.name);
        thinking = variant.thinking;
        offered = scope.visible(selectTools(registered, { toolSets: config.file.toolSets, allow: variant.allow }).offered);
      }
      if (change.thinking) thinking = change.thinking;
      if (change.model) model = change.model;
    },
    complete,
    startupNotices: () => notices,
    offeredTools: offeredNow,
    registeredTools: () => (mcp.hub ? [...registered, ...mcp.hub.tools()] : registered),
    todos: () => session.notebook.todos,
    turn(prompt, signal, turnOptions) {
      const events = [...(turnOptions?.events ?? []), ...(tracedStartup("memory", memoryScopes?.beginRun(prompt)) ?? [])];
      return narrowing.during(
        collectRunIds(driver.start(prompt, signal, { ...turnOptions, events }), episodeRuns),
        turnOptions?.allowedTools ? { allowedTools: turnOptions.allowedTools, preApproved: turnOptions.preApproved } : undefined,
      );
    },
    resumeRun(run, decision, signal, resumeOptions) {
      if (!episodeRuns.includes(run.id)) episodeRuns.push(run.id);
      // A run resumed in a new process carries the memory chosen for its prompt again.
      if (memoryScopes && !memoryScopes.injection()) memoryScopes.beginRun(run.prompt);
      return driver.resume(run, decision, signal, resumeOptions);
    },
    judgeAttachment(path) {
      const reader = registered.find((tool) => tool.effect === "read" && tool.pathInput);
      if (!reader?.pathInput) return Promise.resolve({ denied: "no tool in this session reads files", secretAllowed: false });
      return gate.judgeRead(reader, reader.pathInput(path), cwd);
    },
    runCommand: (command, signal, onOutput, confirmGuard) =>
      runUserCommand(command, { gate, tools: registered, root: cwd, sandbox, signal, onOutput, ...(confirmGuard ? { confirmGuard } : {}) }),
    save: () => writer.save(),
    mcpStatus: () => (mcp.hub?.status() ?? []).map((status) => ({ ...status, ...(mcp.sources[status.name] ? { source: mcp.sources[status.name] } : {}) })),
    close(reason) {
      const hasMessages = session.messages.length > 0;
      const episode =
        episodes && recordSessionEpisode({ store: episodes, session, cwd, runIds: episodeRuns.splice(0), tools: registered, warn: options.writeStderr });
      writer.close();
      const summary = episode && config.file.memory?.episodeSummary ? summarizeEpisode(episodes!, episode, complete, options.writeStderr) : undefined;
      closing = Promise.all([mcp.hub?.close(), summary, hooks?.sessionEnd(reason ?? "other")]).then(() => undefined);
      return hasMessages ? session.id : undefined;
    },
    get closed() {
      return closing;
    },
  };
}
