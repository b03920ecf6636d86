/**
 * An agent session: everything one shiro process needs to run turns, wired once, then `turn()`
 * per prompt. The wiring is a composition root of staged factories: each row below opens one
 * part of the session from the rows above it (lib/agent/compose/, each part's module says what
 * it holds), so no part reaches one opened after it; a part a later one fills (the toolbox)
 * is opened empty first. The run lifecycle (ids, snapshot, event log, cancel, `done`) is
 * run-driver.ts's; what wiring found worth telling is returned as data (`startupNotices`),
 * worded by the front end. Front ends (headless, REPL, `runs resume`) only consume the
 * AgentEvent stream.
 */
import { findProjectRoot } from "../config/project.ts";
import { noteFoldersBeforeWriting } from "../find/transcript-index.ts";
import { runOptionsFromFlags } from "../config/flags.ts";
import type { StartupNotice } from "../notices.ts";
import { createModelClient, connectionFromConfig, preconnectProvider, type ModelClient } from "../providers/client.ts";
import { builtinTools } from "../tools/index.ts";
import { openApprovalPart } from "./compose/approval.ts";
import { openContextPart } from "./compose/context.ts";
import { openExtensionsPart } from "./compose/extensions.ts";
import { openMemoryPart, openMemoryStores } from "./compose/memory.ts";
import { createSessionModes } from "./compose/modes.ts";
import { createSystemPrompt } from "./compose/prompt.ts";
import { openSandboxPart } from "./compose/sandbox.ts";
import { openSessionPart } from "./compose/session.ts";
import { createSessionTools, createToolbox, openToolRegistry } from "./compose/tools.ts";
import { collectRunIds, recordSessionEpisode, summarizeEpisode } from "./episode-recorder.ts";
import { keepIndexesCurrent } from "./index-upkeep.ts";
import { createRunDriver } from "./run-driver.ts";
import { createRunIds } from "./run-ids.ts";
import { readRunScope } from "./run-scope.ts";
import { openCustomAgents } from "./session-extensions.ts";
import { resolveAgentConfig } from "./session-start.ts";
import { traceFirstRequest, tracedStartup } from "./startup-trace.ts";
import { createTurnNarrowing } from "./turn-tools.ts";
import { runUserCommand } from "./user-command.ts";

export type { Agent, AgentModeChange, CreateAgentOptions } from "./agent-api.ts";
import type { Agent, CreateAgentOptions } from "./agent-api.ts";

export async function createAgent(options: CreateAgentOptions): Promise<Agent> {
  const { flags, cwd, afterFirstRequest } = options;
  const headless = options.mode === "headless";
  const canAsk = Boolean(options.decide);
  const notices: StartupNotice[] = [];
  const projectRoot = findProjectRoot(cwd);

  const config = tracedStartup("config", await resolveAgentConfig(flags, options.env, notices));
  // Custom subagents may name their own model: --max-cost must be able to price it too.
  const customAgents = openCustomAgents(cwd, flags.noSubagent === true, notices, projectRoot);
  const agentModels = customAgents.flatMap((agent) => (agent.model ? [agent.model] : []));
  const scope = readRunScope(cwd, flags, [config.model, config.file.subagentModel ?? config.model, ...agentModels], projectRoot);
  const modes = createSessionModes(config);
  const connection = connectionFromConfig(config);
  const client = createModelClient({ connection, preset: config.preset, protocolForced: config.protocolForced });
  // A headless run's first request follows within milliseconds: its handshake overlaps the rest of start-up.
  if (headless) preconnectProvider(connection.baseURL, options.env);
  // Before the session's lease and file: a recall in this process takes the transcript index as it finds it.
  noteFoldersBeforeWriting();
  const owner = openSessionPart(options, config, notices);
  const { session, writer } = owner;
  const stores = openMemoryStores(projectRoot, config, flags, notices);
  // The sandbox's notice is a start-up notice while those are unread, else an event of the run that needed it.
  let noticesRead = false;
  const sandbox = openSandboxPart({ config, flags, env: options.env, decide: options.decide, sessionId: session.id }, (text) =>
    noticesRead ? ext.mcp.events.push({ type: "notice", text }) : notices.push({ code: "sandbox", text }),
  );
  const ext = await openExtensionsPart({ ...options, projectRoot, config, sandbox, sessionId: session.id, resumed: owner.resumed }, notices);
  const hooks = ext.settings.hooks;
  const context = openContextPart({ config, client, modes, session: owner, onCompact: ext.settings.onCompact });
  const toolbox = createToolbox(ext.mcp);
  // What a step offers within a custom command's allowed-tools, and the calls they pre-approve.
  const narrowing = createTurnNarrowing({ tools: toolbox.all, places: { root: projectRoot, cwd } });
  // A blocked call is persisted under the run that is active when it asks.
  const runIds = createRunIds(options.runId);
  const memory = openMemoryPart({
    projectRoot,
    cwd,
    config,
    flags,
    agent: modes.variant.name,
    session,
    runId: () => runIds.active,
    toolFor: toolbox.find,
    stores,
  });
  const builtins = builtinTools({ complete: context.complete, allowHosts: config.file.webFetch?.allowHosts });
  const approval = openApprovalPart({
    headless,
    flags,
    config,
    decide: options.decide,
    tools: builtins,
    scope,
    settings: ext.settings,
    mcp: ext.mcp,
    plugins: ext.plugins,
    sessionId: session.id,
    runId: () => runIds.active,
    turnRules: narrowing.preApproved,
  });
  const { gate } = approval;
  const sessionTools = createSessionTools(
    {
      cwd,
      flags,
      client,
      modes,
      session: owner,
      askUser: options.askUser,
      canAsk,
      memory,
      context: context.manager,
      gate,
      toolbox,
      scope,
      hooks,
      hookEvents: ext.mcp.events,
      skills: ext.skills,
      plugins: ext.plugins,
      agents: customAgents,
    },
    notices,
  );
  const tools = tracedStartup(
    "tools",
    openToolRegistry(
      { headless, flags, canAsk, config, builtins, sessionTools, rules: approval.rules, scope, modes, mcp: ext.mcp, toolbox, narrowing },
      notices,
    ),
  );
  if (flags.noPlugins) notices.push({ code: "plugins-off" });
  const systemPrompt = createSystemPrompt({
    cwd,
    session,
    modes,
    instructions: ext.instructions,
    skills: ext.skills,
    memory,
    plugins: ext.plugins,
    hooks,
    asksFirst: tools.asksFirst,
    appended: scope.appended,
  });
  const limits = scope.limits(() => ({ steps: modes.steps() }));
  const driver = createRunDriver({
    session: {
      record: session,
      markChanged: () => writer.markChanged(),
      saveNow: () => writer.flush(),
      persist: owner.persist,
      firstTurnPairs: headless && owner.resumed ? (config.file.historyPairs ?? 0) : 0,
    },
    turn: {
      client: traceFirstRequest(afterFirstRequest ? _afterFirstRequest(client, () => afterFirstRequest(session.id)) : client),
      context: context.manager,
      gate,
      plugins: ext.plugins,
      root: cwd,
      sandbox: sandbox.sandbox,
      files: options.editor?.files,
      tools: tools.requestTools,
      callable: tools.callable,
      systemPrompt,
      onOverflow: context.onOverflow,
      refusePrompt: (prompt) => context.tooLarge(prompt) ?? hooks?.userPromptSubmit(prompt),
      hooks,
      beforeRequest: limits.beforeRequest,
      outside: ext.mcp.events,
      memory: memory?.shelf.project,
    },
    now: {
      model: () => modes.model,
      thinking: () => modes.thinking,
      maxSteps: limits.maxSteps,
      agentName: () => modes.variant.name,
    },
    runs: {
      runIds,
      provider: config.preset.id,
      protocol: client.protocol,
      runOptions: runOptionsFromFlags(flags),
      detached: options.detached,
      subagentUsage: scope.subagentUsage,
      runEnding: () => memory?.endRun() ?? [],
      checkpoints: { file: config.file, off: flags.noCheckpoints === true },
    },
  });

  /** Runs this process drove in this session: the next episode's material. */
  const episodeRuns: string[] = [];
  let closing: Promise<void> = Promise.resolve();
  return {
    hooks,
    config,
    session,
    memory: memory?.shelf.project,
    memoryScopes: memory,
    plugins: ext.plugins,
    instructions: ext.instructions,
    skills: ext.skills,
    resumedMessages: owner.resumedMessages,
    get sandbox() {
      return sandbox.status;
    },
    get variant() {
      return modes.variant;
    },
    get thinking() {
      return modes.thinking;
    },
    get model() {
      return modes.model;
    },
    configure(change) {
      if (!modes.configure(change)) return;
      memory?.setAgent(modes.variant.name);
      tools.reselect();
    },
    complete: context.complete,
    startupNotices: () => {
      noticesRead = true;
      return notices;
    },
    offeredTools: tools.offered,
    registeredTools: tools.all,
    permissionRules: () => approval.rules,
    todos: () => session.notebook.todos,
    turn(prompt, signal, turnOptions) {
      const events = [...(turnOptions?.events ?? []), ...(tracedStartup("memory", memory?.beginRun(prompt)) ?? [])];
      return narrowing.during(
        collectRunIds(driver.start(prompt, signal, { ...turnOptions, events }), episodeRuns),
        turnOptions?.allowedTools ? { allowedTools: turnOptions.allowedTools, preApproved: turnOptions.preApproved } : undefined,
      );
    },
    resumeRun(run, decision, signal, resumeOptions) {
      if (!episodeRuns.includes(run.id)) episodeRuns.push(run.id);
      // A run resumed in a new process carries the memory chosen for its prompt again.
      if (memory && !memory.injection()) memory.beginRun(run.prompt);
      return driver.resume(run, decision, signal, resumeOptions);
    },
    judgeAttachment(path) {
      const reader = tools.registered.find((tool) => tool.effect === "read" && tool.pathInput);
      if (!reader?.pathInput) return Promise.resolve({ denied: "no tool in this session reads files", secretAllowed: false });
      return gate.judgeRead(reader, reader.pathInput(path), cwd);
    },
    runCommand: (command, signal, onOutput, confirmGuard) =>
      runUserCommand(command, {
        gate,
        tools: tools.registered,
        root: cwd,
        sandbox: sandbox.sandbox,
        signal,
        onOutput,
        ...(confirmGuard ? { confirmGuard } : {}),
      }),
    save: () => writer.save(),
    mcpStatus: () =>
      (ext.mcp.hub?.status() ?? []).map((status) => ({ ...status, ...(ext.mcp.sources[status.name] ? { source: ext.mcp.sources[status.name] } : {}) })),
    close(reason) {
      const hasMessages = session.messages.length > 0;
      const { episodes } = stores;
      const ranIds = [...episodeRuns];
      const episode =
        episodes && recordSessionEpisode({ store: episodes, session, cwd, runIds: episodeRuns.splice(0), tools: tools.registered, warn: options.writeStderr });
      writer.close();
      keepIndexesCurrent({
        ...(hasMessages ? { sessionId: session.id } : {}),
        runIds: ranIds,
        projectRoot,
        ...(memory ? { stores: memory.shelf.stores(), episodes } : {}),
        onNotice: (text) => options.writeStderr(`${text}\n`),
      });
      const summary = episode && config.file.memory?.episodeSummary ? summarizeEpisode(episodes!, episode, context.complete, options.writeStderr) : undefined;
      closing = Promise.all([ext.mcp.hub?.close(), summary, hooks?.sessionEnd(reason ?? "other")]).then(() => undefined);
      return hasMessages ? session.id : undefined;
    },
    get closed() {
      return closing;
    },
  };
}

/**
 * `client`, calling `then` once, at the first event of an answer (the first request's: every
 * stream yields one, ModelClient's contract): the request is on the wire by then, so what `then`
 * starts does not compete with sending it.
 */
function _afterFirstRequest(client: ModelClient, then: () => void): ModelClient {
  let pending = true;
  return {
    async *stream(request) {
      for await (const event of client.stream(request)) {
        if (pending) {
          pending = false;
          then();
        }
        yield event;
      }
    },
    get protocol() {
      return client.protocol;
    },
  };
}
