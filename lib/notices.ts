/**
 * Start-up notices as data: what the agent session found while it was wired (a resumed session,
 * a plugin that failed, the approvals policy in force). Each has a `code` and the fields its
 * wording needs; lib/ never words them. The front ends do: the REPL banner and the headless
 * `notice` events both read `describeNotice` (lib/ui/notices.ts).
 *
 * `store` carries a line a store already worded (a corrupt file skipped, a memory file that
 * could not be read): those modules report through `onNotice(text)` callbacks.
 */
export type StartupNotice =
  /** No key configured: a local model server found running stands in. */
  | { code: "local-server"; server: string; baseURL: string; model: string }
  | { code: "session-resumed"; sessionId: string; messages: number; tasks: number }
  /** `-c` found a newer session open in another process: continued an older one, or started afresh. */
  | { code: "session-live"; sessionId: string; pid: number; outcome: "continue-other" | "start-new" }
  | { code: "store"; text: string }
  | { code: "sandbox"; text: string }
  | { code: "plugin-failed"; name: string; error: string }
  | { code: "skill-skipped"; path: string; reason: string }
  /** MCP servers configured but not connected (`--no-mcp`). */
  | { code: "mcp-off"; servers: number }
  /** Headless did not hold its first request for these servers, still connecting: their tools join from the next step. */
  | { code: "mcp-pending"; servers: string[] }
  /** The headless policy for calls that would ask. */
  | { code: "headless-approvals"; mode: "deny" | "block"; asking: string[]; mcp: boolean }
  /** The interactive approvals summary: `--yolo`, the tools with rules, or the tools that ask. */
  | { code: "approvals"; yolo: boolean; ruled: string[]; asking: string[] }
  | { code: "plugins-off" };

export type StartupNoticeCode = StartupNotice["code"];
