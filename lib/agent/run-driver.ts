/**
 * The run lifecycle, all of it: each turn (or resumed run) gets a run id, a snapshot in runs/
 * and an event log in events/, opened here; `run-start` opens the stream; every event goes to
 * the log before it is yielded; `shiro runs cancel` is polled; and when the turn ends the
 * session (usage, cost, the exchange record) and the snapshot are brought up to date and
 * `done` closes the stream. The agent session (agent.ts) only wires what a run needs.
 */
import type { Gate } from "../extensions/gate.ts";
import type { ThinkingLevel } from "../vocabulary.ts";
import type { PluginHost } from "../extension-api/plugin-api.ts";
import { addUsage, type Message, type Usage, type UserMessage } from "../messages.ts";
import { costUsd } from "../providers/pricing.ts";
import type { MemoryStore } from "../store/memory.ts";
import type { Todo } from "../notebook.ts";
import { cancelRequested, clearCancelRequest, openRunLog, type RunLog, type RunSnapshot } from "../store/runs.ts";
import { type RunOptions } from "../config/flags.ts";
import { shortApprovalId, shortRunId } from "../store/short-ids.ts";
import { UserError } from "../platform/errors.ts";
import { appendExchange, historyForResume, type SessionRecord } from "../store/session-record.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import type { ToolDefinition, WorkspaceFiles } from "../tools/types.ts";
import type { ContextManager } from "./context/manager.ts";
import type { AgentEvent } from "../events.ts";
import { markFailed, markInterrupted } from "./interruption.ts";
import { addSubagentShare, type UsageTally } from "./usage-tally.ts";
import { runTurn, type TurnInput, type TurnOptions, type TurnResult } from "./loop.ts";
import { openTurnCheckpoints, type CheckpointSource } from "./turn-checkpoint.ts";
import type { ModelClient } from "../providers/client.ts";
import { redactText } from "../secrets/redact.ts";
import { tracedStartup } from "./startup-trace.ts";
import type { RunIds } from "./run-ids.ts";

/**
 * What the driver is given, in four records: the session the runs belong to, what each turn runs
 * with, what is read afresh at each run's start, and what each run records.
 */
export interface RunDriverOptions {
  session: RunSessionParts;
  turn: RunTurnParts;
  now: RunModes;
  runs: RunRecordParts;
}

/** The session the runs belong to, and how it reaches the disk. */
export interface RunSessionParts {
  record: SessionRecord;
  /** The session writer's change mark (it saves debounced). */
  markChanged: () => void;
  /**
   * Writes the session at once. Called when a run first changes the history (its prompt joins
   * it), before the first request, so a run killed then still leaves its question saved.
   */
  saveNow?: () => void;
  /** Writes a session that is not on disk yet; called before a run starts. */
  persist: () => void;
  /**
   * A resumed headless session sends only its last N exchanges on its first turn (config
   * `historyPairs`); 0 sends the whole transcript.
   */
  firstTurnPairs: number;
}

/** What each turn runs with (loop.ts's options, and what the driver adds around them). */
export interface RunTurnParts {
  client: ModelClient;
  context: ContextManager;
  gate: Gate;
  plugins: PluginHost;
  root: string;
  sandbox?: CommandSandbox;
  /** The editor's file buffers (ACP), passed to every tool call. */
  files?: WorkspaceFiles;
  /** Offered tools, asked on every step (MCP tools may join mid-turn). */
  tools: () => ToolDefinition[];
  /** Tools the model may call on a step (deferred ones included); default `tools`. */
  callable?: () => ToolDefinition[];
  systemPrompt: (offered: ToolDefinition[]) => string;
  /** A context-length error: retry the step after compacting, or end the turn (loop.ts `onOverflow`). */
  onOverflow?: TurnOptions["onOverflow"];
  /** Why a new prompt cannot be sent at all (it alone exceeds the window), or undefined. */
  refusePrompt?: (prompt: string) => string | undefined | Promise<string | undefined>;
  /** User hooks the loop runs (PreToolUse, PostToolUse, Stop; lib/extensions/hooks/). */
  hooks?: TurnOptions["hooks"];
  /** `--max-cost`: why the next request must not start (run-limits.ts), given the run's own usage so far. */
  beforeRequest?: TurnOptions["beforeRequest"];
  /** Events raised outside the turn (MCP state changes); the driver empties it into the stream. */
  outside: AgentEvent[];
  /** The memory store whose count a memory tool's `state` event carries. */
  memory?: MemoryStore;
}

/** Read at each run's start: the REPL can switch them between turns. */
export interface RunModes {
  model: () => string;
  thinking: () => ThinkingLevel;
  maxSteps: () => number;
  agentName: () => string;
}

/** What each run records (its snapshot, its `done`), and what it adds at its end. */
export interface RunRecordParts {
  /** Run ids of this session (the blocking approval source reads the active one). */
  runIds: RunIds;
  provider: string;
  protocol: string;
  runOptions: RunOptions;
  detached?: boolean;
  /** Model usage of subagents, each share priced at the model that answered it, added to the current run's totals. */
  subagentUsage: UsageTally;
  /** Events logged and yielded just before `done` (the notes written during the run). */
  runEnding?: () => AgentEvent[];
  /** Checkpoints of the workspace around each run's changes (config `checkpoints`; `off`: --no-checkpoints). */
  checkpoints?: CheckpointSource;
}

/** Lines the front end worded from the session's start-up notices; yielded as `notice` events after the run starts. */
export interface RunStartOptions {
  runId?: string;
  notices?: readonly string[];
  /** Events logged and yielded right after `run-start` (the memory the prompt carries). */
  events?: readonly AgentEvent[];
  /** Images attached to the prompt (`@pic.png`), sent with it and kept in the session. */
  images?: UserMessage["images"];
}

export interface RunDriver {
  /** One turn as a new run. */
  start(prompt: string, signal: AbortSignal, options?: RunStartOptions): AsyncGenerator<AgentEvent, void, undefined>;
  /** Continues a blocked run after its approval was decided. */
  resume(run: RunSnapshot, decision: "approved" | "denied", signal: AbortSignal, options?: RunStartOptions): AsyncGenerator<AgentEvent, void, undefined>;
}

interface _DriveRequest {
  input: TurnInput;
  log: RunLog;
  signal: AbortSignal;
  /** The whole question, for the exchange record. */
  query: string;
  notices: readonly string[];
  /** Messages of the session before this turn's prompt (a rewind of the conversation cuts there). */
  messageIndex: number;
}

const _CANCEL_POLL_MS = 200;

export function createRunDriver(options: RunDriverOptions): RunDriver {
  const { turn: parts, now, runs } = options;
  const session = options.session.record;
  const checkpoints = runs.checkpoints && openTurnCheckpoints(parts.root, runs.checkpoints);
  let firstTurn = true;

  async function* drive({ input, log, signal, query, notices, messageIndex }: _DriveRequest): AsyncGenerator<AgentEvent, void, undefined> {
    checkpoints?.start();
    const cancel = new AbortController();
    const poll = setInterval(() => {
      if (cancelRequested(log.id)) cancel.abort();
    }, _CANCEL_POLL_MS);
    const merged = AbortSignal.any([signal, cancel.signal]);
    const trimmed = firstTurn && options.session.firstTurnPairs > 0 && "prompt" in input;
    const working: Message[] = trimmed ? historyForResume(session, options.session.firstTurnPairs) : session.messages;
    const base = working.length;
    firstTurn = false;
    const emit = (event: AgentEvent): AgentEvent => {
      log.append(event);
      return event;
    };
    let result: TurnResult | undefined;
    let saved = false;
    const onHistoryChange = () => {
      options.session.markChanged();
      if (saved) return;
      saved = true;
      options.session.saveNow?.();
    };
    try {
      for (const text of notices) yield emit({ type: "notice", text });
      const refused = "prompt" in input ? await parts.refusePrompt?.(input.prompt) : undefined;
      while (parts.outside.length > 0) yield emit(parts.outside.shift()!);
      if (refused) throw new Error(refused);
      const turn = runTurn(input, {
        client: parts.client,
        model: now.model(),
        thinking: now.thinking(),
        messages: working,
        tools: parts.tools,
        callable: parts.callable,
        systemPrompt: (offered) => tracedStartup("prompt", parts.systemPrompt(offered)),
        gate: parts.gate,
        root: parts.root,
        sandbox: parts.sandbox,
        files: parts.files,
        maxSteps: now.maxSteps(),
        signal: merged,
        prepareWire: (messages, system, s, fixed) => parts.context.prepareWire(messages, system, s, log.id, fixed),
        onOverflow: parts.onOverflow,
        onHistoryChange,
        afterTool: (name) => _stateAfterTool(name, session.notebook.todos, parts.memory),
        beforeChange: checkpoints?.beforeChange,
        checkpoint: checkpoints?.coverage,
        beforeRequest: parts.beforeRequest,
        hooks: parts.hooks,
      });
      for (;;) {
        // Events raised outside the turn since the last one join the stream here.
        while (parts.outside.length > 0) yield emit(parts.outside.shift()!);
        const next = await turn.next();
        if (next.done) {
          result = next.value;
          break;
        }
        const event = next.value.type === "blocked" ? { ...next.value, runId: log.id } : next.value;
        yield emit(event);
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      yield emit({ type: "error", error: message });
      result = { stop: "error", steps: 0, answer: "", error: message };
    } finally {
      clearInterval(poll);
    }
    if (result.stop === "aborted") markInterrupted(working, base, "prompt" in input);
    else if (result.stop === "error") markFailed(working, base, "prompt" in input);
    // A trimmed view's new messages start where the session's history ends.
    const exchangeFrom = trimmed ? session.messages.length : base;
    if (trimmed) session.messages.push(...working.slice(base));
    const cancelled = cancel.signal.aborted;
    if (cancelled) clearCancelRequest(log.id);
    const subagents = runs.subagentUsage.take();
    const subagentUsage = subagents?.usage;
    const usage: Usage | undefined = subagentUsage ? addUsage(result.usage ?? { inputTokens: 0, outputTokens: 0 }, subagentUsage) : result.usage;
    if (usage) {
      session.inputTokens += usage.inputTokens;
      session.outputTokens += usage.outputTokens;
    }
    // Subagents may run on other models (config `subagentModel`, a custom agent's `model`): the tally priced each share at its own.
    const parentCost = result.usage ? costUsd(now.model(), result.usage) : undefined;
    const subagentCost = subagents?.costUsd;
    const cost = parentCost === undefined && subagentCost === undefined ? undefined : (parentCost ?? 0) + (subagentCost ?? 0);
    if (cost !== undefined) session.costUsd = (session.costUsd ?? 0) + cost;
    if (subagentUsage) session.subagents = addSubagentShare(session.subagents, subagentUsage, subagentCost);
    if (result.stop !== "blocked") {
      appendExchange(session, {
        query,
        answer: result.answer,
        status: result.stop,
        steps: result.steps,
        runId: log.id,
        toolsSummary: _toolsSummary(session.messages, exchangeFrom),
      });
    }
    options.session.markChanged();
    if (result.stop !== "blocked") {
      for (const failure of await parts.plugins.runAfterTurn()) yield emit({ type: "notice", text: `plugin ${failure.name}: ${failure.error}` });
    }
    for (const event of runs.runEnding?.() ?? []) yield emit(event);
    const taken = await checkpoints?.finish({ sessionId: session.id, runId: log.id, prompt: query, messageIndex });
    if (taken?.notice) yield emit({ type: "notice", text: taken.notice });
    const checkpoint = taken?.id ?? log.snapshot.checkpoint;
    const done: AgentEvent = {
      type: "done",
      runId: log.id,
      sessionId: session.id,
      stop: result.stop,
      steps: result.steps,
      ...(usage ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } : {}),
      ...(cost !== undefined ? { costUsd: cost } : {}),
      ...(subagentUsage
        ? {
            subagents: {
              inputTokens: subagentUsage.inputTokens,
              outputTokens: subagentUsage.outputTokens,
              ...(subagentCost !== undefined ? { costUsd: subagentCost } : {}),
            },
          }
        : {}),
      context: parts.context.share(session.messages, result.lastInputTokens),
      ...(result.reason ? { reason: result.reason } : {}),
      ...(cancelled ? { cancelled: true } : {}),
      ...(checkpoint ? { checkpoint } : {}),
    };
    // The snapshot is final before `done` is logged, so a reader that stops at `done` sees it.
    // A resumed run's snapshot already holds what the run spent before it blocked.
    const before = log.snapshot;
    const runUsage = usage && before.usage ? addUsage(before.usage, usage) : (usage ?? before.usage);
    const runCost = cost !== undefined && before.costUsd !== undefined ? before.costUsd + cost : (cost ?? before.costUsd);
    log.update({
      status: cancelled ? "cancelled" : result.stop,
      endedAt: result.stop === "blocked" ? undefined : new Date().toISOString(),
      steps: result.steps,
      stop: result.stop,
      ...(runUsage ? { usage: { inputTokens: runUsage.inputTokens, outputTokens: runUsage.outputTokens } } : {}),
      ...(runCost !== undefined ? { costUsd: runCost } : {}),
      ...(result.error ? { error: result.error } : {}),
      suspended: result.suspended,
      ...(checkpoint ? { checkpoint } : {}),
    });
    yield emit(done);
  }

  return {
    async *start(prompt, signal, startOptions = {}) {
      const runId = runs.runIds.begin(startOptions.runId);
      const model = now.model();
      // A resumed session records the provider and model it is continued with.
      session.provider = runs.provider;
      session.model = model;
      const snapshot: RunSnapshot = {
        version: 1,
        id: runId,
        sessionId: session.id,
        cwd: parts.root,
        provider: runs.provider,
        model,
        protocol: runs.protocol,
        agent: now.agentName(),
        // Redacted before the cut: a key cut short would no longer match its shape at the store.
        prompt: redactText(prompt).text.slice(0, 200),
        status: "running",
        pid: process.pid,
        startedAt: new Date().toISOString(),
        steps: 0,
        options: runs.runOptions,
        ...(runs.detached ? { detached: true } : {}),
      };
      options.session.persist();
      const log = openRunLog(snapshot, { fresh: true });
      const start: AgentEvent = {
        type: "run-start",
        runId,
        sessionId: session.id,
        cwd: parts.root,
        provider: runs.provider,
        model,
        agent: now.agentName(),
        protocol: runs.protocol,
      };
      log.append(start);
      yield start;
      for (const event of startOptions.events ?? []) {
        log.append(event);
        yield event;
      }
      yield* drive({
        input: { prompt, ...(startOptions.images?.length ? { images: startOptions.images } : {}) },
        log,
        signal,
        query: prompt,
        notices: startOptions.notices ?? [],
        messageIndex: session.messages.length,
      });
    },
    async *resume(run, decision, signal, startOptions = {}) {
      if (!run.suspended) throw new UserError(`run ${shortRunId(run.id)} is not waiting for an approval`);
      runs.runIds.begin(run.id);
      const log = openRunLog({ ...run, status: "running", pid: process.pid, suspended: undefined }, { fresh: false });
      const notice: AgentEvent = {
        type: "notice",
        text: `resuming run ${shortRunId(run.id)}: approval ${shortApprovalId(run.suspended.approvalId)} was ${decision}`,
      };
      log.append(notice);
      yield notice;
      // The exchange records the whole question; the snapshot keeps only its first 200 characters.
      const before = session.messages.slice(0, run.suspended.assistantIndex);
      const askedAt = before.findLastIndex((message) => message.role === "user");
      const asked = before[askedAt];
      yield* drive({
        input: { resume: run.suspended, decision },
        log,
        signal,
        query: asked?.role === "user" ? asked.content : run.prompt,
        notices: startOptions.notices ?? [],
        messageIndex: Math.max(0, askedAt),
      });
    },
  };
}

/** The `state` event after a tool that changed (or read) durable state. */
function _stateAfterTool(name: string, todos: Todo[], memory: MemoryStore | undefined): AgentEvent[] | undefined {
  if (name === "todo_write") return [{ type: "state", todos }];
  if (memory && (name === "remember" || name === "forget" || name === "recall"))
    return [{ type: "state", memory: { action: name, count: memory.list().length } }];
  return undefined;
}

/** `read_file×3, bash×1` for the exchange record. */
function _toolsSummary(messages: Message[], from: number): string | undefined {
  const counts = new Map<string, number>();
  for (const message of messages.slice(from)) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) if (part.type === "tool-call") counts.set(part.name, (counts.get(part.name) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  return [...counts].map(([name, count]) => `${name}×${count}`).join(", ");
}
