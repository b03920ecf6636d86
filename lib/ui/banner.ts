/** The REPL's first lines (the session, its agent, what loaded, the start-up notices) and its last ones. */
import type { Agent } from "../agent/agent.ts";
import { describeSandbox } from "../sandbox/detect.ts";
import { renderProgressBar } from "./todo-progress.ts";
import { shortSessionId } from "../store/short-ids.ts";
import { PRODUCT, VERSION } from "../platform/version.ts";
import { describeNotices } from "./notices.ts";

/**
 * The banner: the first line plain, the rest through `dim`; each line wrapped by words to `width`
 * (the terminal's; no wrapping off a terminal), continued lines indented by two spaces.
 */
export function renderBanner(agent: Agent, dim: (text: string) => string, width = process.stdout.isTTY ? process.stdout.columns || 80 : Infinity): string {
  const lines = [
    `${PRODUCT} ${VERSION}  ${agent.config.preset.id}/${agent.model}  session ${shortSessionId(agent.session.id)}`,
    `agent: ${agent.variant.name}  thinking: ${agent.thinking}`,
    `cwd: ${process.cwd()}`,
    ...(agent.resumedMessages > 0 ? [`resumed ${agent.resumedMessages} messages`] : []),
    agent.instructions.length > 0 ? `instructions: ${agent.instructions.map((file) => file.label).join(", ")}` : "no AGENTS.md found - /init writes one",
    agent.skills.length > 0 ? `skills: ${agent.skills.map((skill) => skill.name).join(", ")}` : "skills: none",
    agent.plugins.disabled
      ? "plugins: none (--no-plugins)"
      : `plugins: ${
          agent.plugins
            .active()
            .map((p) => p.name)
            .join(", ") || "none"
        }`,
    agent.memory ? `memory: ${agent.memory.list().length} notes about this project` : "memory: off (--no-memory)",
    ...(agent.sandbox.notice ? [] : [describeSandbox(agent.sandbox)]),
    ...(agent.mcpStatus().length > 0
      ? [
          `mcp: connecting ${agent
            .mcpStatus()
            .map((server) => server.name)
            .join(", ")} (/mcp shows them)`,
        ]
      : []),
    ...describeNotices(agent.startupNotices()),
    ...(agent.todos().length > 0 ? [renderProgressBar(agent.todos())] : []),
    "/help for commands",
  ];
  return `${lines
    .map((line, index) =>
      wrapWords(line, width)
        .map((part) => (index === 0 ? part : dim(part)))
        .join("\n"),
    )
    .join("\n")}\n`;
}

/** `line` broken at spaces so no piece is wider than `width` (a longer word stands alone); pieces after the first indented by two. */
export function wrapWords(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const pieces: string[] = [];
  let current = "";
  for (const word of line.split(/ +/)) {
    const next = current === "" ? word : `${current} ${word}`;
    if (next.length <= width || current.trim() === "") current = next;
    else {
      pieces.push(current);
      current = `  ${word}`;
    }
  }
  if (current.trim() !== "") pieces.push(current);
  return pieces;
}

/** What the REPL prints when it ends: what was saved and how to resume it. */
export function renderFarewell(agent: Agent): string {
  const session = agent.session;
  if (session.messages.length === 0) return "\nGood bye. Nothing to save from this session.\n";
  const title = session.title.length > 52 ? `${session.title.slice(0, 52)}…` : session.title;
  const id8 = shortSessionId(session.id);
  return `\nGood bye.\nSaved ${session.messages.length} message(s): "${title}"\n\nResume it with:\n  shiro -c ...newest session in this directory\n  shiro -r ${id8} ...this session by id\n`;
}
