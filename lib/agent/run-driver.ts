/**
 * Drives one loop turn as a logged run: every event goes to the run's event log before it is
 * yielded, `shiro runs cancel` is polled, and when the turn ends the session (usage, cost, the
 * exchange record) and the run snapshot are brought up to date and `done` closes the stream.
 * The agent session (agent.ts) opens the run log; this module owns everything after that.
 */
import type { Gate } from "../approval.ts";
import type { ThinkingLevel } from "../config.ts";
import type { PluginHost } from "../plugins.ts";
import { addUsage, type Message, type Usage } from "../providers/messages.ts";
import { costUsd } from "../providers/pricing.ts";
import type { MemoryStore } from "../store/memory.ts";
import type { Todo } from "../store/notebook.ts";
import { cancelRequested, clearCancelRequest, type RunLog } from "../store/runs.ts";
import { appendExchange, historyForResume, type SessionRecord } from "../store/sessions.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import type { ToolDefinition } from "../tools/types.ts";
import type { ContextManager } from "./context-manager.ts";
import type { AgentEvent } from "./events.ts";
import { runTurn, type ModelClient, type Suspension, type TurnInput, type TurnResult } from "./loop.ts";

export interface RunDriverOptions {
  session: SessionRecord;
  /** The session writer's change mark (it saves debounced). */
  markChanged: () => void;
  client: ModelClient;
  context: ContextManager;
  gate: Gate;
  plugins: PluginHost;
  memory?: MemoryStore;
  root: string;
  sandbox?: CommandSandbox;
  /** Read per run: the REPL can switch them between turns. */
  model: () => string;
  thinking: () => ThinkingLevel;
  maxSteps: () => number;
  /** Offered tools, asked on every step (MCP tools may join mid-turn). */
  tools: () => ToolDefinition[];
  systemPrompt: (offered: ToolDefinition[]) => string;
  /** Events raised outside the turn (MCP state changes); the driver empties it into the stream. */
  outside: AgentEvent[];
  /**
   * A resumed headless session sends only its last N exchanges on its first turn (config
   * `historyPairs`); 0 sends the whole transcript.
   */
  firstTurnPairs: number;
  /**
   * Writes the session at once. Called when a run first changes the history (its prompt joins
   * it), before the first request, so a run killed then still leaves its question saved.
   */
  saveNow?: () => void;
  /**
   * Start-up diagnostics of a headless session: the first run yields them as `notice` events
   * right after it starts (and logs them), so `--json` readers get them. The REPL shows its own.
   */
  startupNotices?: readonly string[];
}

export interface DriveRequest {
  input: TurnInput;
  log: RunLog;
  signal: AbortSignal;
  /** The whole question, for the exchange record. */
  query: string;
}

export interface RunDriver {
  drive(request: DriveRequest): AsyncGenerator<AgentEvent, void, undefined>;
  /** Adds a subagent's model usage to the current run's totals. */
  addSubagentUsage(usage: Usage): void;
}

const _CANCEL_POLL_MS = 200;

export function createRunDriver(options: RunDriverOptions): RunDriver {
  const { session } = options;
  let subagentUsage: Usage | undefined;
  let firstTurn = true;
  let startupNotices = options.startupNotices;

  async function* drive({ input, log, signal, query }: DriveRequest): AsyncGenerator<AgentEvent, void, undefined> {
    const cancel = new AbortController();
    const poll = setInterval(() => {
      if (cancelRequested(log.id)) cancel.abort();
    }, _CANCEL_POLL_MS);
    const merged = AbortSignal.any([signal, cancel.signal]);
    const trimmed = firstTurn && options.firstTurnPairs > 0 && "prompt" in input;
    const working: Message[] = trimmed ? historyForResume(session, options.firstTurnPairs) : session.messages;
    const base = working.length;
    firstTurn = false;
    const emit = (event: AgentEvent): AgentEvent => {
      log.append(event);
      return event;
    };
    let result: TurnResult | undefined;
    let saved = false;
    const onHistoryChange = () => {
      options.markChanged();
      if (saved) return;
      saved = true;
      options.saveNow?.();
    };
    try {
      const startup = startupNotices ?? [];
      startupNotices = undefined;
      for (const text of startup) yield emit({ type: "notice", text });
      const turn = runTurn(input, {
        client: options.client, model: options.model(), thinking: options.thinking(), messages: working, tools: options.tools,
        systemPrompt: options.systemPrompt, gate: options.gate, root: options.root, sandbox: options.sandbox, maxSteps: options.maxSteps(), signal: merged,
        prepareWire: trimmed ? undefined : (messages, system, s) => options.context.prepareWire(messages, system, s, log.id),
        onHistoryChange,
        afterTool: (name) => _stateAfterTool(name, session.notebook.todos, options.memory),
      });
      for (;;) {
        // Events raised outside the turn since the last one join the stream here.
        while (options.outside.length > 0) yield emit(options.outside.shift()!);
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
    if (trimmed) session.messages.push(...working.slice(base));
    const cancelled = cancel.signal.aborted;
    if (cancelled) clearCancelRequest(log.id);
    const usage: Usage | undefined = subagentUsage ? addUsage(result.usage ?? { inputTokens: 0, outputTokens: 0 }, subagentUsage) : result.usage;
    subagentUsage = undefined;
    if (usage) {
      session.inputTokens += usage.inputTokens;
      session.outputTokens += usage.outputTokens;
    }
    const cost = usage ? costUsd(options.model(), usage) : undefined;
    if (cost !== undefined) session.costUsd = (session.costUsd ?? 0) + cost;
    if (result.stop !== "blocked") {
      appendExchange(session, {
        query, answer: result.answer, status: result.stop, steps: result.steps, runId: log.id,
        toolsSummary: _toolsSummary(session.messages, base),
      });
    }
    options.markChanged();
    if (result.stop !== "blocked") {
      for (const failure of await options.plugins.runAfterTurn()) yield emit({ type: "notice", text: `plugin ${failure.name}: ${failure.error}` });
    }
    const done: AgentEvent = {
      type: "done", runId: log.id, sessionId: session.id, stop: result.stop, steps: result.steps,
      ...(usage ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } : {}),
      ...(cost !== undefined ? { costUsd: cost } : {}),
      context: options.context.share(session.messages, result.lastInputTokens),
      ...(cancelled ? { cancelled: true } : {}),
    };
    yield emit(done);
    // A resumed run's snapshot already holds what the run spent before it blocked.
    const before = log.snapshot;
    const runUsage = usage && before.usage ? addUsage(before.usage, usage) : usage ?? before.usage;
    const runCost = cost !== undefined && before.costUsd !== undefined ? before.costUsd + cost : cost ?? before.costUsd;
    log.update({
      status: cancelled ? "cancelled" : result.stop, endedAt: result.stop === "blocked" ? undefined : new Date().toISOString(),
      steps: result.steps, stop: result.stop, ...(runUsage ? { usage: { inputTokens: runUsage.inputTokens, outputTokens: runUsage.outputTokens } } : {}),
      ...(runCost !== undefined ? { costUsd: runCost } : {}), ...(result.error ? { error: result.error } : {}),
      suspended: result.suspended as Suspension | undefined,
    });
  }

  return {
    drive,
    addSubagentUsage(used) {
      subagentUsage = addUsage(subagentUsage ?? { inputTokens: 0, outputTokens: 0 }, used);
    },
  };
}

/** The `state` event after a tool that changed (or read) durable state. */
function _stateAfterTool(name: string, todos: Todo[], memory: MemoryStore | undefined): AgentEvent[] | undefined {
  if (name === "todo_write") return [{ type: "state", todos }];
  if (memory && (name === "remember" || name === "forget" || name === "recall")) return [{ type: "state", memory: { action: name, count: memory.list().length } }];
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
