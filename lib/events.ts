/**
 * The AgentEvent union: the one seam between lib/ and everything that shows or stores a run.
 * The REPL renderer, the headless printer (`--json` prints each event as one line), the run
 * log and the tests all consume this stream.
 *
 * Names and fields of the seed's headless vocabulary are kept so users' jq scripts keep working:
 * text, reasoning, tool-start, tool-call, tool-output, tool-result, tool-error, tool-denied,
 * compacted, notice, error, done. The rest is what a durable run log needs.
 *
 * Transient events (`text`, `reasoning`, `tool-output`) are deltas: the run log folds them into
 * `message` and `tool-result` and does not store them. docs/headless.md documents every event.
 */
import type { Todo } from "./notebook.ts";

/** `max-cost`: the next request would have taken the run past `--max-cost`. */
export type StopKind = "completed" | "error" | "aborted" | "blocked" | "max-steps" | "max-cost";

export type DenialSource = "user" | "rule" | "plugin" | "headless" | "hook";

export type AgentEvent =
  /** First event of every run. */
  | { type: "run-start"; runId: string; sessionId: string; cwd: string; provider: string; model: string; agent: string; protocol: string }
  /** Assistant text delta (transient). */
  | { type: "text"; text: string }
  /** Reasoning text delta (transient). */
  | { type: "reasoning"; text: string }
  /** The completed assistant text of one step (non-empty only). */
  | { type: "message"; text: string; step: number }
  /** A tool call began streaming; arguments not complete yet. */
  | { type: "tool-start"; id: string; name: string }
  /** A complete tool call, before approval. */
  | { type: "tool-call"; id: string; name: string; input: unknown }
  /** Live output of a running tool (transient). */
  | { type: "tool-output"; id: string; chunk: string }
  /** `bookkeeping`: the tool declares `memoryContent: false` (lib/tools/types.ts); indexes skip it. */
  | { type: "tool-result"; id: string; name: string; output: string; bookkeeping?: boolean }
  | { type: "tool-error"; id: string; name: string; error: string; bookkeeping?: boolean }
  /** The call never reached its tool. `reason` is what the model was told. */
  | { type: "tool-denied"; id: string; name: string; reason: string; by: DenialSource }
  /** A call needs a decision; `approvalId` names the persisted request. */
  | { type: "approval-required"; id: string; approvalId: string; name: string; input: unknown; subject: string; repeated?: boolean }
  /** The run stopped to wait for an approval (headless `--approvals block`). */
  | { type: "blocked"; approvalId: string; id: string; name: string; runId: string }
  /** History was shortened on the wire: message counts before and after, and the summary if one was written. */
  | { type: "compacted"; before: number; after: number; summary?: string; span?: { from: number; to: number } }
  /** Durable state changed: the whole task list, or a memory tool ran (`count`: notes stored after it). */
  | { type: "state"; todos?: Todo[]; memory?: { action: "remember" | "forget" | "recall"; count: number } }
  /**
   * What memory the run's prompt carries (first after `run-start`): each note, episode or past
   * session (one with no episode, by its best passage) injected, its scope (`episode`, `session`),
   * the session it came from, its estimated tokens, the section's estimated tokens, the budget and
   * the notes left out.
   */
  | {
      type: "memory";
      tokens: number;
      budget: number;
      leftOut: number;
      injected: { kind: "note" | "episode" | "session"; id: string; scope: string; session?: string; tokens: number; stale?: boolean }[];
    }
  /**
   * One hook command ran (docs/hooks.md): its event (`PreToolUse`, …), the command as configured
   * and the file it came from, its exit code (null when killed), how long it ran, and what it
   * decided: `block` (exit 2 or `decision: "block"`), `allow` / `deny` / `ask` (a PreToolUse
   * `permissionDecision`), `stop` (`continue: false`); absent when it decided nothing.
   * `timedOut` when it was killed at its timeout; `tool` names the call a tool event was for;
   * `output` is plain stdout that was only logged (its first 2000 characters; absent with
   * `suppressOutput`, or when stdout was JSON or became context).
   */
  | {
      type: "hook";
      event: string;
      command: string;
      source: string;
      exit: number | null;
      durationMs: number;
      decision?: "block" | "allow" | "deny" | "ask" | "stop";
      timedOut?: true;
      tool?: string;
      output?: string;
    }
  | { type: "mcp"; server: string; status: "connected" | "failed" | "closed"; tools?: number; error?: string }
  | { type: "notice"; text: string }
  | { type: "error"; error: string }
  /** Last event of every run. Token fields are absent when the provider reported no usage. */
  | {
      type: "done";
      runId: string;
      sessionId: string;
      stop: StopKind;
      steps: number;
      inputTokens?: number;
      outputTokens?: number;
      costUsd?: number;
      /** The subagents' share of the totals above (their model may differ: config `subagentModel`); absent when none ran. */
      subagents?: { inputTokens: number; outputTokens: number; costUsd?: number };
      /** Why a bound stopped the run (stop `max-cost`): one line naming the limit. */
      reason?: string;
      /** True when the run was stopped by `shiro runs cancel` (stop is then `aborted`). */
      cancelled?: boolean;
      /** The checkpoint of the workspace this run changed (`shiro rewind <id>`); absent when it changed nothing. */
      checkpoint?: string;
      /**
       * Context in use: the estimate (`tokens`) and its share of the compaction threshold (0–1+),
       * and the provider's own count for the last request (`reportedTokens`) when it gave one.
       */
      context?: { tokens: number; threshold: number; share: number; estimated: boolean; reportedTokens?: number };
    };

export type AgentEventType = AgentEvent["type"];

export const TRANSIENT_EVENTS: ReadonlySet<AgentEventType> = new Set(["text", "reasoning", "tool-output"]);
