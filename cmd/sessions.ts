/** `shiro sessions`: list the saved sessions, or show one (`shiro sessions show <id>`). */
import { defineCommand } from "citty";
import { renderProgressBar, renderTodoLines } from "../lib/store/notebook.ts";
import { findSession, formatLocalMinute, formatSessionLine, listSessions, type SessionRecord } from "../lib/store/sessions.ts";

const _print = (text: string) => process.stdout.write(`${text}\n`);

const _jsonFlag = { json: { type: "boolean", description: "print JSON instead of text" } } as const;

export default defineCommand({
  meta: { name: "sessions", description: "list saved sessions, newest first, or show one" },
  args: _jsonFlag,
  subCommands: {
    show: defineCommand({
      meta: { description: "print one session: metadata, usage, task list and last exchange" },
      args: { id: { type: "positional", description: "session id or a unique prefix of it" }, ..._jsonFlag },
      run({ args }) {
        const session = findSession(String(args.id));
        _print(args.json ? JSON.stringify(session, null, 2) : renderSessionDetails(session));
      },
    }),
  },
  run({ args }) {
    const { sessions, notices } = listSessions();
    for (const notice of notices) process.stderr.write(`shiro: ${notice}\n`);
    if (args.json) return _print(JSON.stringify(sessions, null, 2));
    if (sessions.length === 0) return _print("no saved sessions");
    for (const summary of sessions) _print(formatSessionLine(summary));
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
      `last exchange (${last.status}, ${last.steps} ${last.steps === 1 ? "step" : "steps"}, run ${last.runId.slice(0, 8)}, ${formatLocalMinute(last.at)}):`,
      `> ${last.query}`,
      last.answer || "(no answer)",
    );
    if (last.toolsSummary) lines.push(`tools: ${last.toolsSummary}`);
  }
  return lines.join("\n");
}
