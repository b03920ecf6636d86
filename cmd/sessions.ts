/**
 * `shiro sessions`: list the saved sessions, show one, and compact or uncompact one. Compacting
 * and uncompacting take the session's lease, so they refuse a session open in a live process.
 */
import { defineCommand } from "citty";
import { renderProgressBar, renderTodoLines } from "../lib/store/notebook.ts";
import { findSession, formatLocalMinute, formatSessionLines, listSessions, openSessionWriter, type SessionRecord } from "../lib/store/sessions.ts";
import { shortRunId } from "../lib/store/short-ids.ts";
import { writeOut, writeErr } from "./_output.ts";

const _print = (text: string) => writeOut(`${text}\n`);

const _jsonFlag = { json: { type: "boolean", description: "print JSON instead of text" } } as const;

export default defineCommand({
  meta: { name: "sessions", description: "list saved sessions, newest first, or show one" },
  args: _jsonFlag,
  subCommands: {
    show: defineCommand({
      meta: { description: "print one session: metadata, usage, task list and last exchange" },
      args: { id: { type: "positional", description: "session id or a unique prefix of it" }, ..._jsonFlag },
      async run({ args }) {
        const session = findSession(String(args.id));
        const context = await _contextOf(session);
        _print(args.json ? JSON.stringify({ ...session, context }, null, 2) : `${renderSessionDetails(session)}\n${_contextLine(context)}`);
      },
    }),
    compact: defineCommand({
      meta: { description: "replace the transcript with the model's summary (the messages are kept in the session's archive)" },
      args: {
        id: { type: "positional", description: "session id or a unique prefix of it" },
        focus: { type: "string", description: "what the summary should pay most attention to" },
      },
      async run({ args }) {
        const { resolveConfig } = await import("../lib/config.ts");
        const { completeOnce } = await import("../lib/providers/complete.ts");
        const { compactSession } = await import("../lib/agent/session-compaction.ts");
        const config = resolveConfig();
        await _withWriter(String(args.id), async (session, save) => {
          const outcome = await compactSession(session, (system, prompt, signal) => completeOnce(config, system, prompt, signal), args.focus ? String(args.focus) : undefined);
          if (outcome.changed) save();
          _print(outcome.message);
        });
      },
    }),
    uncompact: defineCommand({
      meta: { description: "put the full history back on the wire (undo a compaction)" },
      args: { id: { type: "positional", description: "session id or a unique prefix of it" } },
      async run({ args }) {
        const { uncompactSession } = await import("../lib/agent/session-compaction.ts");
        await _withWriter(String(args.id), async (session, save) => {
          const outcome = uncompactSession(session);
          if (outcome.changed) save();
          _print(outcome.message);
        });
      },
    }),
  },
  run({ args }) {
    const { sessions, notices } = listSessions();
    for (const notice of notices) writeErr(`shiro: ${notice}\n`);
    if (args.json) return _print(JSON.stringify(sessions, null, 2));
    if (sessions.length === 0) return _print("no saved sessions");
    for (const line of formatSessionLines(sessions)) _print(line);
  },
});

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

/** Runs `fn` holding the session's one writer (its lease); `save` writes now. */
async function _withWriter(id: string, fn: (session: SessionRecord, save: () => void) => Promise<void>): Promise<void> {
  const writer = openSessionWriter(findSession(id));
  try {
    await fn(writer.session, () => writer.save());
  } finally {
    writer.close();
  }
}

interface ContextInfo {
  tokens: number;
  threshold: number;
  share: number;
  estimated: boolean;
  spans: number;
  archived: number;
}

async function _contextOf(session: SessionRecord): Promise<ContextInfo> {
  const { loadConfigFile } = await import("../lib/config.ts");
  const { DEFAULT_COMPACTION_THRESHOLD, estimateTokens } = await import("../lib/agent/context.ts");
  const { readCompactionState } = await import("../lib/agent/context-manager.ts");
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

function _contextLine(context: ContextInfo): string {
  const parts = [`context   ~${context.tokens} tokens (estimate), ${Math.round(context.share * 100)}% of the ${context.threshold} compaction threshold`];
  if (context.spans > 0) parts.push(`; ${context.spans} span${context.spans === 1 ? "" : "s"} compacted`);
  if (context.archived > 0) parts.push(`; ${context.archived} transcript${context.archived === 1 ? "" : "s"} archived by compact`);
  return parts.join("");
}
