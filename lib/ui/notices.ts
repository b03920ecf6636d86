/**
 * Words the agent session's start-up notices (lib/notices.ts) for people: one line each,
 * shown in the REPL banner and sent as `notice` events by headless runs.
 */
import type { StartupNotice } from "../notices.ts";
import { shortSessionId } from "../store/short-ids.ts";
import { showControls } from "./terminal-text.ts";

export function describeNotice(notice: StartupNotice): string {
  switch (notice.code) {
    case "local-server":
      return `no API key configured; using the ${notice.server} server on ${notice.baseURL} with ${notice.model}`;
    case "session-resumed":
      return `resumed session ${shortSessionId(notice.sessionId)} (${notice.messages} messages${notice.tasks ? `, ${notice.tasks} tasks` : ""})`;
    case "session-live":
      return `session ${shortSessionId(notice.sessionId)} is open in process ${notice.pid}; ${notice.outcome === "continue-other" ? "continuing the newest one that is not" : "starting a new one"}`;
    case "store":
    case "sandbox":
      return notice.text;
    case "plugin-failed":
      return `plugin ${notice.name}: ${notice.error}`;
    case "skill-skipped":
      return `skill ${notice.path} skipped: ${notice.reason}`;
    case "mcp-off":
      return `mcp: ${notice.servers} configured, not connected (--no-mcp)`;
    case "mcp-pending":
      return `mcp: ${notice.servers.join(", ")} still connecting; the first request goes without their tools, which join from the next step`;
    case "headless-approvals":
      return notice.mode === "block"
        ? "headless with --approvals block: a call that needs approval stops the run (exit 3) until `shiro approve <id>`"
        : `headless withholds tools that need approval (${[...notice.asking, ...(notice.mcp ? ["mcp tools"] : [])].join(", ") || "none"}) unless --yolo is passed or a rule allows them, and denies reads of files that may hold secrets unless a rule names them`;
    case "approvals":
      if (notice.yolo) return "approvals: OFF (--yolo), but deny rules and the guard still apply";
      if (notice.ruled.length > 0) return `approvals: rules for ${notice.ruled.join(", ")}, defaults elsewhere`;
      return `approvals: ask for ${[...notice.asking, "mcp__*"].join(", ")}`;
    case "plugins-off":
      return "plugins: none (--no-plugins), so the guard is off";
  }
}

/** Each notice in words; names in them (an MCP server's, a plugin's) pass `showControls`. */
export function describeNotices(notices: readonly StartupNotice[]): string[] {
  return notices.map((notice) => showControls(describeNotice(notice)));
}
