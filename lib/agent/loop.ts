/**
 * One turn: a loop of model steps and tool calls, exposed as an async generator of AgentEvents.
 *
 * Each step rebuilds the system prompt from live state, prepares the wire view of the history
 * (compaction), streams one model response, then answers every tool call of that response in
 * order: approval first (plugin guards, rules, the user), then the tool. A tool that throws, an
 * unknown tool name, and arguments that fail the tool's schema all become error results the
 * model reads, so every call of a step is answered and the history stays valid.
 *
 * The turn ends when the model stops calling tools, on the step cap, on abort, on a provider
 * error, or — with a blocking approval policy — suspended on a call that awaits a decision.
 * The caller owns `messages` (the session's history): the loop appends to it and calls
 * `onHistoryChange` after each change so the session can autosave.
 */
import { findPlaceholderKinds, placeholderFor } from "../secrets/redact.ts";
import { addUsage, assistantText, toolCalls, type AssistantMessage, type Message, type ToolResultPart, type Usage, type UserMessage } from "../messages.ts";
import type { ToolCallPart } from "../messages.ts";
import type { ModelRequest } from "../providers/types.ts";
import type { ThinkingLevel } from "../vocabulary.ts";
import { toToolSpec } from "../tools/schema.ts";
import { capResult, type ToolDefinition, type WorkspaceFiles } from "../tools/types.ts";
import { USER_DENIED_REASON, type Gate } from "../extensions/gate.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import type { ModelClient } from "../providers/client.ts";
import type { Suspension } from "../store/runs.ts";
import type { AgentEvent, StopKind } from "../events.ts";
import { collectToolCall, validateToolCall } from "./tool-call.ts";
import { describeUnshrunk, requestSize } from "./context/overflow.ts";
import { executeWithHooks, runPreToolHooks } from "./tool-hooks.ts";
import type { SessionHooks } from "../extensions/hooks/session-hooks.ts";

/** The approval gate the loop consults before every call (lib/extensions/gate.ts implements it). */
export type LoopGate = Pick<Gate, "check" | "newTurn" | "deniesPath">;

export interface WirePreparation {
  messages: Message[];
  events?: AgentEvent[];
}

export interface TurnOptions {
  /** The part of the session's model client the loop uses. */
  client: Pick<ModelClient, "stream">;
  model: string;
  thinking: ThinkingLevel;
  /** History of the session; the loop appends to it. */
  messages: Message[];
  /** Tools offered on this step (called every step: MCP tools may join mid-turn). */
  tools: () => ToolDefinition[];
  /** Tools the model may call this step; default `tools`. Wider when schemas are deferred (context/tool-deferral.ts). */
  callable?: () => ToolDefinition[];
  systemPrompt: (offered: ToolDefinition[]) => string;
  gate: LoopGate;
  root: string;
  /** Passed to every tool call (bash runs in it). */
  sandbox?: CommandSandbox;
  /** The editor's file buffers (ACP), passed to every tool call. */
  files?: WorkspaceFiles;
  maxSteps: number;
  signal: AbortSignal;
  maxOutputTokens?: number;
  /** Shortens the history for the wire (compaction). Default: send it as is. */
  prepareWire?: (messages: Message[], system: string, signal: AbortSignal, fixed: string) => Promise<WirePreparation>;
  /**
   * A context-length error on attempt `attempt` (1, 2, …) of a step: retry the step (after the
   * callee shrank the window, so prepareWire compacts), or end the turn with `error`.
   */
  onOverflow?: (message: string, attempt: number) => { retry: true; notice: string } | { retry: false; error: string };
  /** Called after every change to `messages`. */
  onHistoryChange?: () => void;
  /** Extra events after a tool ran (e.g. `state` after todo_write). */
  afterTool?: (name: string, input: unknown, output: string) => AgentEvent[] | undefined;
  /** Awaited before a `write` or `exec` tool runs: the checkpoint's "before" snapshot (turn-checkpoint.ts). */
  beforeChange?: () => Promise<void>;
  /** What a checkpoint covers this turn, told to the gate for a `write` or `exec` call (a guard refusal it can take back asks instead); undefined: none. */
  checkpoint?: () => { maxFileBytes: number } | undefined;
  /** Why a request must not be sent (`--max-cost`); the turn then stops with `max-cost` before it. `spent`: this turn's usage so far. */
  beforeRequest?: (spent: Usage | undefined, request: ModelRequest) => string | undefined;
  /** User hooks (lib/extensions/hooks/): PreToolUse before the gate, PostToolUse after a result, Stop when the model stops. */
  hooks?: Pick<SessionHooks, "preToolUse" | "postToolUse" | "stop">;
  /** A subagent's turn: its Stop hooks are SubagentStop. */
  subagent?: boolean;
}

export interface TurnResult {
  stop: StopKind;
  steps: number;
  usage?: Usage;
  /** Input tokens the provider reported for the last request: the real size of the context. */
  lastInputTokens?: number;
  /** The last step's assistant text: the answer. */
  answer: string;
  error?: string;
  /** Why a bound stopped the turn (`max-cost`), one line. */
  reason?: string;
  suspended?: Suspension;
}

export type TurnInput = { prompt: string; images?: UserMessage["images"] } | { resume: Suspension; decision: "approved" | "denied" };

const _NOT_RUN_ABORTED = "Not run: the user interrupted the turn before this call.";

/** Runs one turn. The generator's return value summarises it; the last yielded event is not `done` (the caller adds it). */
export async function* runTurn(input: TurnInput, options: TurnOptions): AsyncGenerator<AgentEvent, TurnResult, undefined> {
  const { messages } = options;
  let usage: Usage | undefined;
  let steps = 0;
  let answer = "";
  let lastInputTokens: number | undefined;
  /** Context-length errors this turn; each one retries its step once the window has shrunk. */
  let overflows = 0;
  let retryStep = false;
  let overflowedSize: number | undefined; // of the request that last overflowed: a retry sends less, never the same body

  /** Claude Code's `stop_hook_active`: this turn already went on because a Stop hook blocked. */
  let stopHookActive = false;

  if ("prompt" in input) {
    options.gate.newTurn();
    messages.push({ role: "user", content: input.prompt, ...(input.images?.length ? { images: input.images } : {}) });
    options.onHistoryChange?.();
  } else {
    steps = input.resume.steps;
    const assistant = messages[input.resume.assistantIndex];
    if (!assistant || assistant.role !== "assistant") throw new Error("the suspended run's history does not match its session");
    answer = assistantText(assistant);
    const answered = yield* _answerCalls(assistant, input.resume.results, options, { callId: input.resume.callId, decision: input.decision });
    if (answered.suspended)
      return {
        stop: "blocked",
        steps,
        usage,
        lastInputTokens,
        answer,
        suspended: { ...answered.suspended, assistantIndex: input.resume.assistantIndex, steps },
      };
    _commitResults(messages, input.resume.assistantIndex, answered.results, options);
    if (options.signal.aborted) return { stop: "aborted", steps, usage, lastInputTokens, answer };
    if (answered.halted !== undefined) return yield* _halt(answered.halted, { stop: "completed", steps, usage, lastInputTokens, answer });
  }

  while (steps < options.maxSteps) {
    if (options.signal.aborted) return { stop: "aborted", steps, usage, lastInputTokens, answer };
    steps += 1;
    const offered = options.tools();
    const system = options.systemPrompt(offered);
    const specs = offered.map(toToolSpec);
    let wire: Message[] = messages;
    if (options.prepareWire) {
      const prepared = await options.prepareWire(messages, system, options.signal, JSON.stringify(specs));
      for (const event of prepared.events ?? []) yield event;
      wire = prepared.messages;
    }
    const request: ModelRequest = {
      model: options.model,
      system,
      messages: wire,
      tools: specs,
      thinking: options.thinking,
      maxOutputTokens: options.maxOutputTokens,
      signal: options.signal,
    };
    const over = options.beforeRequest?.(usage, request);
    if (over) return { stop: "max-cost", steps: steps - 1, usage, lastInputTokens, answer, reason: over };
    const size = requestSize(request);
    const unshrunk = describeUnshrunk(size, overflowedSize);
    if (unshrunk) return yield* _fail(unshrunk, { stop: "error", steps, usage, lastInputTokens, answer, error: unshrunk });
    overflowedSize = undefined;

    let final: AssistantMessage | undefined;
    for await (const event of options.client.stream(request)) {
      switch (event.type) {
        case "text-delta":
          yield { type: "text", text: event.text };
          break;
        case "reasoning-delta":
          yield { type: "reasoning", text: event.text };
          break;
        case "tool-call-start":
          yield { type: "tool-start", id: event.id, name: event.name };
          break;
        case "tool-call-delta":
          break;
        case "retry":
          yield { type: "notice", text: `retrying (${event.attempt}) in ${Math.round(event.delayMs / 100) / 10}s: ${event.reason}` };
          break;
        case "notice":
          yield { type: "notice", text: event.text };
          break;
        case "finish":
          usage = _addReported(usage, event.usage);
          if (event.usage.inputTokens > 0) lastInputTokens = event.usage.inputTokens;
          final = event.message;
          break;
        case "error": {
          usage = _addReported(usage, event.usage);
          if (event.error.kind === "context-overflow" && options.onOverflow && !event.partial) {
            overflows += 1;
            const recovery = options.onOverflow(event.error.message, overflows);
            if (recovery.retry) {
              overflowedSize = size;
              yield { type: "notice", text: recovery.notice };
              retryStep = true;
              break;
            }
            yield { type: "error", error: recovery.error };
            return { stop: "error", steps, usage, lastInputTokens, answer, error: recovery.error };
          }
          _keepPartialText(messages, event.partial, options);
          yield { type: "error", error: event.error.message };
          return { stop: "error", steps, usage, lastInputTokens, answer: event.partial ? assistantText(event.partial) : answer, error: event.error.message };
        }
        case "aborted":
          usage = _addReported(usage, event.usage);
          _keepPartialText(messages, event.partial, options);
          return { stop: "aborted", steps, usage, lastInputTokens, answer: event.partial ? assistantText(event.partial) : answer };
      }
    }
    if (retryStep) {
      retryStep = false;
      steps -= 1;
      continue;
    }
    if (!final) {
      yield { type: "error", error: "the model stream ended without a final message" };
      return { stop: "error", steps, usage, lastInputTokens, answer, error: "the model stream ended without a final message" };
    }

    messages.push(final);
    options.onHistoryChange?.();
    const assistantIndex = messages.length - 1;
    const text = assistantText(final);
    if (text.trim()) {
      answer = text;
      yield { type: "message", text, step: steps };
    }
    const calls = toolCalls(final);
    if (calls.length === 0) {
      const ended =
        options.hooks && (await options.hooks.stop({ answer: text || answer, active: stopHookActive, subagent: options.subagent === true }, options.signal));
      for (const event of ended?.events ?? []) yield event;
      if (ended?.block === undefined || options.signal.aborted) return { stop: "completed", steps, usage, lastInputTokens, answer: text || answer };
      stopHookActive = true;
      messages.push({ role: "user", content: ended.block });
      options.onHistoryChange?.();
      continue;
    }

    const answered = yield* _answerCalls(final, [], options);
    if (answered.suspended) return { stop: "blocked", steps, usage, lastInputTokens, answer, suspended: { ...answered.suspended, assistantIndex, steps } };
    _commitResults(messages, assistantIndex, answered.results, options);
    if (options.signal.aborted) return { stop: "aborted", steps, usage, lastInputTokens, answer };
    if (answered.halted !== undefined) return yield* _halt(answered.halted, { stop: "completed", steps, usage, lastInputTokens, answer });
  }
  return { stop: "max-steps", steps, usage, lastInputTokens, answer };
}

/** A hook's `continue: false` ends the turn: its stop reason is for the user, not the model. */
async function* _halt(reason: string, result: TurnResult): AsyncGenerator<AgentEvent, TurnResult, undefined> {
  yield { type: "notice", text: `a hook stopped the turn: ${reason}` };
  return result;
}

/** Adds a step's usage; a step that reported none (or only zeros, as an interrupted stream does) adds nothing. */
function _addReported(total: Usage | undefined, step: Usage | undefined): Usage | undefined {
  if (!step || (step.inputTokens === 0 && step.outputTokens === 0)) return total;
  return addUsage(total ?? { inputTokens: 0, outputTokens: 0 }, step);
}

function _commitResults(messages: Message[], assistantIndex: number, results: ToolResultPart[], options: TurnOptions): void {
  // History messages are never mutated in place (the context manager caches their sizes).
  const next = messages[assistantIndex + 1];
  if (next && next.role === "tool") messages[assistantIndex + 1] = { role: "tool", results };
  else messages.splice(assistantIndex + 1, 0, { role: "tool", results });
  options.onHistoryChange?.();
}

/** An aborted or failed stream keeps what the user already saw (its text), never half a tool call. */
function _keepPartialText(messages: Message[], partial: AssistantMessage | undefined, options: TurnOptions): void {
  if (!partial) return;
  const text = assistantText(partial);
  if (!text.trim()) return;
  messages.push({ role: "assistant", parts: [{ type: "text", text }] });
  options.onHistoryChange?.();
}

interface AnswerOutcome {
  results: ToolResultPart[];
  suspended?: Omit<Suspension, "assistantIndex" | "steps">;
  /** A hook said `continue: false`: the turn ends once these results are in; its stop reason. */
  halted?: string;
}

async function* _answerCalls(
  assistant: AssistantMessage,
  already: ToolResultPart[],
  options: TurnOptions,
  resumed?: { callId: string; decision: "approved" | "denied" },
): AsyncGenerator<AgentEvent, AnswerOutcome, undefined> {
  const results = [...already];
  let halted: string | undefined;
  const done = new Set(already.map((result) => result.callId));
  const known = new Map((options.callable ?? options.tools)().map((tool) => [tool.name, tool]));
  // Calls of tools that declare `parallel` start at once and are collected in call order.
  const running: { slot: number; run: Promise<{ events: AgentEvent[]; result: ToolResultPart }> }[] = [];
  async function* settle(): AsyncGenerator<AgentEvent, void, undefined> {
    for (const { slot, run } of running.splice(0)) {
      const { events, result } = await run;
      for (const event of events) yield event;
      results[slot] = result;
    }
  }
  const execute = (call: ToolCallPart, tool: ToolDefinition, input: unknown, secretsAllowed: boolean) =>
    executeWithHooks(call, tool, input, options, secretsAllowed, (reason) => (halted ??= reason));
  for (const call of toolCalls(assistant)) {
    if (done.has(call.id)) continue;
    if (options.signal.aborted || halted !== undefined) {
      results.push({ type: "tool-result", callId: call.id, name: call.name, output: halted !== undefined ? _NOT_RUN_HALTED : _NOT_RUN_ABORTED, isError: true });
      continue;
    }
    if (!resumed || resumed.callId !== call.id) yield { type: "tool-call", id: call.id, name: call.name, input: call.input };
    const tool = known.get(call.name);
    // Nothing to approve for a call that cannot run: it is answered with the error at once.
    const checked = validateToolCall(call, tool, options);
    if (!checked.ok) {
      yield { type: "tool-error", id: call.id, name: call.name, error: checked.error };
      results.push({ type: "tool-result", callId: call.id, name: call.name, output: capResult(checked.error), isError: true });
      continue;
    }
    // PreToolUse hooks run before the gate, which judges the input they leave (a resumed call too: its rewrite was not stored).
    const hooked = options.hooks ? yield* runPreToolHooks(call, checked.tool, checked.input, options) : { input: checked.input };
    if (hooked.stop !== undefined) halted ??= hooked.stop;
    if (hooked.refused !== undefined) {
      results.push({ type: "tool-result", callId: call.id, name: call.name, output: capResult(hooked.refused), isError: true });
      continue;
    }
    const input = hooked.input;

    let verdictAllowsSecrets = false;
    if (resumed && resumed.callId === call.id) {
      if (resumed.decision !== "approved") {
        yield { type: "tool-denied", id: call.id, name: call.name, reason: USER_DENIED_REASON, by: "user" };
        results.push({ type: "tool-result", callId: call.id, name: call.name, output: USER_DENIED_REASON, isError: true, bookkeeping: true });
        continue;
      }
      // The stored call went through the redactor: running it would use the placeholder, not the secret.
      const lost = findPlaceholderKinds(call.input);
      if (lost.length > 0) {
        const error = `Not run: this call's arguments held a secret (${lost.join(", ")}), which shiro never saves, so while it waited for approval the value became ${lost.map(placeholderFor).join(", ")}. Get the value again from where it lives and repeat the call.`;
        yield { type: "tool-error", id: call.id, name: call.name, error };
        results.push({ type: "tool-result", callId: call.id, name: call.name, output: error, isError: true });
        continue;
      }
    } else {
      // Only a write or exec call changes what a checkpoint covers; asking costs a `git --version` once per process.
      const covered = checked.tool.effect === "write" || checked.tool.effect === "exec" ? options.checkpoint?.() : undefined;
      const verdict = await options.gate.check({
        callId: call.id,
        tool,
        name: call.name,
        input,
        cwd: options.root,
        ...(covered ? { checkpoint: covered } : {}),
        ...(hooked.permission ? { hook: hooked.permission } : {}),
      });
      if (verdict.allowed === false && verdict.by === "block") {
        yield { type: "approval-required", id: call.id, approvalId: verdict.request.id, name: call.name, input, subject: verdict.request.subject };
        yield { type: "blocked", approvalId: verdict.request.id, id: call.id, name: call.name, runId: "" };
        yield* settle();
        return { results, suspended: { results, callId: call.id, approvalId: verdict.request.id } };
      }
      // A headless denial asked nobody and persisted nothing: there is no approval to report.
      if (verdict.asked && !(verdict.allowed === false && verdict.by === "headless")) {
        yield { type: "approval-required", id: call.id, approvalId: verdict.asked.id, name: call.name, input, subject: verdict.asked.subject };
      }
      if (!verdict.allowed) {
        yield { type: "tool-denied", id: call.id, name: call.name, reason: verdict.reason, by: verdict.by };
        results.push({ type: "tool-result", callId: call.id, name: call.name, output: verdict.reason, isError: true, bookkeeping: true });
        continue;
      }
      verdictAllowsSecrets = verdict.secretsAllowed === true;
    }
    // A call approved from another process (a resumed run) was put to a person, secrets and all.
    const secretsAllowed = resumed?.callId === call.id || verdictAllowsSecrets;
    if (checked.tool.parallel) {
      running.push({ slot: results.length, run: collectToolCall(execute(call, checked.tool, input, secretsAllowed)) });
      results.push({ type: "tool-result", callId: call.id, name: call.name, output: "", isError: true });
      continue;
    }
    results.push(yield* execute(call, checked.tool, input, secretsAllowed));
  }
  yield* settle();
  return { results, ...(halted !== undefined ? { halted } : {}) };
}

const _NOT_RUN_HALTED = "Not run: a hook stopped the turn before this call.";

async function* _fail(error: string, result: TurnResult): AsyncGenerator<AgentEvent, TurnResult, undefined> {
  yield { type: "error", error };
  return result;
}
