/**
 * Wires the context functions (planner.ts, state.ts, span-summaries.ts) into a session:
 * once per step it plans the wire view, asks the model to summarise a span the first time it
 * leaves the wire, records the span (with or without its summary) in the session, and emits the
 * `compacted` events. A failed or empty summary never stops the turn: the span stays off the
 * wire with a marker pointing at recall_discarded, and a notice says so.
 *
 * A view that is not the session's own history (a resumed turn's `historyPairs` pairs) is
 * compacted the same way, every span summarised, but its spans index that view: they live with
 * the view for the rest of the turn, never in the session's record.
 */
import * as v from "valibot";
import type { ThinkingLevel } from "../../vocabulary.ts";
import type { Message } from "../../messages.ts";
import type { SessionRecord } from "../../store/session-record.ts";
import { DEFAULT_COMPACTION_THRESHOLD, estimateTokens, planWire, spanSource } from "./planner.ts";
import { CompactionStateSchema, createCompactionState, recordSpan, type CompactionState } from "../../context-state/state.ts";
import { buildSpanSummaryRequest, parseSummary } from "../../context-state/span-summaries.ts";
import type { AgentEvent } from "../../events.ts";
import type { ModelClient } from "../../providers/client.ts";
import { completeWith } from "../../providers/complete.ts";
import type { WirePreparation } from "../loop.ts";

export interface ContextManagerOptions {
  session: SessionRecord;
  client: ModelClient;
  /** Read on every call: the REPL can switch model and thinking mid-session. */
  model: () => string;
  thinking: () => ThinkingLevel;
  markChanged: () => void;
  /** Estimated tokens above which the wire is compacted; a function is read on every step (the window can be learned mid-turn). */
  threshold?: number | (() => number);
  auto: boolean;
  /** Around a compaction the planner starts on its own: PreCompact (`before`) and SessionStart `compact` (`after`) hooks. */
  onCompact?: (phase: "before" | "after") => Promise<AgentEvent[]>;
}

export interface ContextShare {
  /** Estimated tokens of the last wire view (JSON length / 4). */
  tokens: number;
  threshold: number;
  /** tokens / threshold. */
  share: number;
  estimated: true;
  /** Input tokens the provider reported for the last request, when it did. */
  reportedTokens?: number;
}

export interface ContextManager {
  /** `fixed` is what else every request carries (the tool schemas as JSON): counted in the estimate. */
  prepareWire(messages: Message[], system: string, signal: AbortSignal, runId: string, fixed?: string): Promise<WirePreparation>;
  /** Estimated tokens of the last wire view, system prompt and tool schemas included. */
  lastEstimate(): number | undefined;
  /** The session's compaction state (valid, or a fresh one). */
  state(): CompactionState;
  ledger(): { messages: Message[]; state: CompactionState };
  /** Context in use as a share of the threshold, for `done` and `sessions show`. */
  share(messages: Message[], reportedTokens?: number): ContextShare;
  /** One tool-less model call (summaries, commit messages). Throws on error or abort. */
  complete(system: string, prompt: string, signal?: AbortSignal): Promise<string>;
}

/** Reads a session's `compaction` field; anything unreadable counts as no compaction yet. */
export function readCompactionState(session: { compaction?: unknown }): CompactionState {
  const parsed = v.safeParse(CompactionStateSchema, session.compaction);
  return parsed.success ? parsed.output : createCompactionState();
}

export function createContextManager(options: ContextManagerOptions): ContextManager {
  const thresholdNow = (): number => (typeof options.threshold === "function" ? options.threshold() : (options.threshold ?? DEFAULT_COMPACTION_THRESHOLD));
  let threshold = thresholdNow();
  let lastEstimate: number | undefined;
  let announcedRun: string | undefined;
  // The compaction of views that are not the session's history, by view (the loop keeps one array per turn).
  const views = new WeakMap<Message[], CompactionState>();

  const complete = (system: string, prompt: string, signal?: AbortSignal): Promise<string> =>
    completeWith(options.client, options.model(), system, prompt, signal);

  const plan = (messages: Message[], system: string, state: CompactionState) =>
    planWire(messages, {
      threshold,
      protocol: options.client.protocol,
      thinking: options.thinking() !== "off",
      state,
      system,
      auto: options.auto,
    });

  return {
    state: () => readCompactionState(options.session),
    ledger: () => ({ messages: options.session.messages, state: readCompactionState(options.session) }),
    lastEstimate: () => lastEstimate,
    share(messages, reportedTokens) {
      threshold = thresholdNow();
      const tokens = lastEstimate ?? estimateTokens(messages);
      return {
        tokens,
        threshold,
        share: Math.round((tokens / threshold) * 1000) / 1000,
        estimated: true,
        ...(reportedTokens !== undefined ? { reportedTokens } : {}),
      };
    },
    complete,
    async prepareWire(messages, system, signal, runId, fixed = "") {
      threshold = thresholdNow();
      // The planner counts only the length of what it is given as the system text.
      system = fixed ? `${system}${fixed}` : system;
      // Spans index the history they were planned over: the session's, or a trimmed resume view's (historyPairs).
      const owned = messages === options.session.messages;
      let state = owned ? readCompactionState(options.session) : (views.get(messages) ?? createCompactionState());
      let wire = plan(messages, system, state);
      const events: AgentEvent[] = [];
      if (wire.newSpan) {
        events.push(...((await options.onCompact?.("before")) ?? []));
        const span = wire.newSpan;
        let summary: string | undefined;
        let failure: string | undefined;
        // Summaries pile up over a very long session; past a quarter of the threshold they are
        // rolled into the new one, which then stands for all the history it covers.
        const earlier = state.spans.flatMap((entry) => (entry.summary ? [entry.summary] : []));
        const rollUp = earlier.length > 0 && earlier.join("").length / 4 > threshold / 4;
        try {
          const request = buildSpanSummaryRequest(spanSource(messages, span), rollUp ? { earlier } : {});
          summary = parseSummary(await complete(request.system, request.prompt, signal));
          if (!summary) failure = "the model returned an empty summary";
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
        }
        if (signal.aborted) return { messages: wire.messages, events };
        if (failure)
          events.push({
            type: "notice",
            text: `compaction: could not summarise messages ${span.from + 1}–${span.to} (${failure}); they are off the wire without a summary, and recall_discarded can still search them`,
          });
        state =
          summary && rollUp
            ? { ...state, spans: [{ from: state.spans[0]!.from, to: span.to, summary, createdAt: new Date().toISOString(), runId }] }
            : recordSpan(state, span, { ...(summary ? { summary } : {}), runId });
        if (owned) {
          options.session.compaction = state;
          options.markChanged();
        } else views.set(messages, state);
        wire = plan(messages, system, state);
        const covered = summary && rollUp ? { from: state.spans[0]!.from, to: span.to } : span;
        events.push({ type: "compacted", before: wire.before, after: wire.after, ...(summary ? { summary } : {}), span: covered });
        announcedRun = runId;
        events.push(...((await options.onCompact?.("after")) ?? []));
      } else if (wire.pruned && announcedRun !== runId) {
        events.push({ type: "compacted", before: wire.before, after: wire.after });
        announcedRun = runId;
      }
      lastEstimate = wire.estimate;
      return { messages: wire.messages, events };
    },
  };
}
