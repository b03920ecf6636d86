/**
 * How MCP servers read in a terminal: `shiro mcp list` and the REPL's `/mcp`. A server's name,
 * command and error come from its config or the server itself: they pass `showControls`.
 */
import type { McpServerStatus } from "../extensions/mcp/hub.ts";
import { showControls } from "./terminal-text.ts";

/** One row per server, `- \`name\` (local) - 3 tools`, then its command line or URL, indented, then the file it comes from when known. */
export function renderServerList(statuses: readonly (McpServerStatus & { source?: string })[]): string {
  return showControls(
    statuses
      .map(
        (status) => `- \`${status.name}\` (${status.kind}) - ${describeState(status)}\n  ${status.target}${status.source ? `\n  from ${status.source}` : ""}`,
      )
      .join("\n"),
  );
}

export function describeState(status: McpServerStatus): string {
  switch (status.state) {
    case "connected":
      return `${status.tools} ${status.tools === 1 ? "tool" : "tools"}`;
    case "failed":
      return `failed: ${status.error ?? "unknown error"}`;
    case "connecting":
      return "still connecting";
    case "closed":
      return status.error ?? "not connected";
  }
}
