/** `shiro sessions show` as text: the session's metadata, usage, task list, last exchange and context. */
import { loadConfigFile } from "../config/config.ts";
import { readCompactionState } from "../agent/context/manager.ts";
import { estimateTokens } from "../agent/context/planner.ts";
import { createContextWindow, type WindowSource } from "../agent/context/window.ts";
import type { ConfigFile } from "../config/config.ts";
import { renderTodoLines } from "../notebook.ts";
import type { SessionRecord } from "../store/session-record.ts";
import { shortRunId } from "../store/short-ids.ts";
import { formatUsd } from "../providers/pricing.ts";
import { formatLocalMinute } from "./session-lines.ts";
import { renderProgressBar } from "./todo-progress.ts";
import { showControls } from "./terminal-text.ts";

export interface UsageShare {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
}

/** The session's totals split into the parent agent's share and the subagents'; undefined while no subagent ran. */
export function splitUsage(session: SessionRecord): { parent: UsageShare; subagents: UsageShare } | undefined {
  const sub = session.subagents;
  if (!sub) return undefined;
  const parentCost = session.costUsd !== undefined ? session.costUsd - (sub.costUsd ?? 0) : undefined;
  return {
    parent: {
      inputTokens: session.inputTokens - sub.inputTokens,
      outputTokens: session.outputTokens - sub.outputTokens,
      ...(parentCost !== undefined ? { costUsd: parentCost } : {}),
    },
    subagents: { inputTokens: sub.inputTokens, outputTokens: sub.outputTokens, ...(sub.costUsd !== undefined ? { costUsd: sub.costUsd } : {}) },
  };
}

/** One share as `/cost` and `sessions show` print it: `12 in / 3 out, $0.0100`. */
export function formatUsageShare(share: UsageShare): string {
  return `${share.inputTokens} in / ${share.outputTokens} out${share.costUsd !== undefined ? `, ${formatUsd(share.costUsd)}` : ""}`;
}

/** The details `shiro sessions show` prints; the title, folder, prompt, answer and tools pass `showControls`. */
export function renderSessionDetails(session: SessionRecord): string {
  const split = splitUsage(session);
  const lines = [
    `session   ${session.id}`,
    `title     ${session.title}`,
    `directory ${session.cwd}`,
    `model     ${session.provider}/${session.model}`,
    `created   ${formatLocalMinute(session.createdAt)}`,
    `updated   ${formatLocalMinute(session.updatedAt)}`,
    `messages  ${session.messages.length}`,
    `tokens    ${session.inputTokens} in, ${session.outputTokens} out`,
    `cost      ${session.costUsd === undefined ? "not priced" : `$${session.costUsd.toFixed(4)}`}`,
    ...(split ? [`  this agent: ${formatUsageShare(split.parent)}`, `  subagents: ${formatUsageShare(split.subagents)}`] : []),
    `exchanges ${session.exchanges.length}`,
  ];
  const todos = session.notebook.todos;
  if (todos.length > 0) lines.push("", renderProgressBar(todos), ...renderTodoLines(todos));
  const last = session.exchanges[session.exchanges.length - 1];
  if (last) {
    lines.push(
      "",
      `last exchange (${last.status}, ${last.steps} ${last.steps === 1 ? "step" : "steps"}, run ${shortRunId(last.runId)}, ${formatLocalMinute(last.at)}):`,
      `> ${last.query}`,
      last.answer || "(no answer)",
    );
    if (last.toolsSummary) lines.push(`tools: ${last.toolsSummary}`);
  }
  return showControls(lines.join("\n"));
}

/**
 * Where the session's context stands against the compaction threshold (`sessions show --json`
 * prints it). The threshold follows the session model's window as a run would start it
 * (lib/agent/context/window.ts): config `contextWindow`, else the model table, else the default.
 */
export interface ContextInfo {
  tokens: number;
  threshold: number;
  window: number;
  windowSource: WindowSource;
  share: number;
  estimated: boolean;
  spans: number;
  archived: number;
}

export function describeContext(session: SessionRecord): ContextInfo {
  let config: Partial<ConfigFile> = {};
  try {
    config = loadConfigFile();
  } catch {
    // a broken config.json does not stop `sessions show`; the model's own window is shown
  }
  const window = createContextWindow({ model: () => session.model, configured: config.contextWindow, threshold: config.compaction?.threshold });
  const threshold = window.threshold();
  const { window: size, source } = window.current();
  const tokens = estimateTokens(session.messages);
  const state = readCompactionState(session);
  return {
    tokens,
    threshold,
    window: size,
    windowSource: source,
    share: Math.round((tokens / threshold) * 1000) / 1000,
    estimated: true,
    spans: state.spans.length,
    archived: state.archive?.length ?? 0,
  };
}

const _SOURCE_LABELS: Record<WindowSource, string> = {
  config: "config contextWindow",
  learned: "learned",
  provider: "reported by the provider",
  "model table": "model table",
  default: "unknown model: the default",
};

export function renderContextLine(context: ContextInfo): string {
  const parts = [
    `context   ~${context.tokens} tokens (estimate), ${Math.round(context.share * 100)}% of the ${context.threshold} compaction threshold (window ${context.window}, ${_SOURCE_LABELS[context.windowSource]})`,
  ];
  if (context.spans > 0) parts.push(`; ${context.spans} span${context.spans === 1 ? "" : "s"} compacted`);
  if (context.archived > 0) parts.push(`; ${context.archived} transcript${context.archived === 1 ? "" : "s"} archived by compact`);
  return parts.join("");
}
