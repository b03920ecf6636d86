/** `shiro sessions show` as text: the session's metadata, usage, task list, last exchange and context. */
import { loadConfigFile } from "../config/config.ts";
import { readCompactionState } from "../agent/context/manager.ts";
import { DEFAULT_COMPACTION_THRESHOLD, estimateTokens } from "../agent/context/planner.ts";
import { renderTodoLines } from "../store/notebook.ts";
import type { SessionRecord } from "../store/session-record.ts";
import { shortRunId } from "../store/short-ids.ts";
import { formatLocalMinute } from "./session-lines.ts";
import { renderProgressBar } from "./todo-progress.ts";

export function renderSessionDetails(session: SessionRecord): string {
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
  return lines.join("\n");
}

/** Where the session's context stands against the compaction threshold (`sessions show --json` prints it). */
export interface ContextInfo {
  tokens: number;
  threshold: number;
  share: number;
  estimated: boolean;
  spans: number;
  archived: number;
}

export function describeContext(session: SessionRecord): ContextInfo {
  let threshold = DEFAULT_COMPACTION_THRESHOLD;
  try {
    threshold = loadConfigFile().compaction?.threshold ?? threshold;
  } catch {
    // a broken config.json does not stop `sessions show`; the default threshold is shown
  }
  const tokens = estimateTokens(session.messages);
  const state = readCompactionState(session);
  return { tokens, threshold, share: Math.round((tokens / threshold) * 1000) / 1000, estimated: true, spans: state.spans.length, archived: state.archive?.length ?? 0 };
}

export function renderContextLine(context: ContextInfo): string {
  const parts = [`context   ~${context.tokens} tokens (estimate), ${Math.round(context.share * 100)}% of the ${context.threshold} compaction threshold`];
  if (context.spans > 0) parts.push(`; ${context.spans} span${context.spans === 1 ? "" : "s"} compacted`);
  if (context.archived > 0) parts.push(`; ${context.archived} transcript${context.archived === 1 ? "" : "s"} archived by compact`);
  return parts.join("");
}
