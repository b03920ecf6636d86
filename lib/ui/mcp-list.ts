/** How MCP servers read in a terminal: `shiro mcp list` and the REPL's `/mcp`. */
import type { McpServerStatus } from "../extensions/mcp/hub.ts";

/** One row per server, `- \`name\` (local) - 3 tools`, then its command line or URL, indented. */
export function renderServerList(statuses: readonly McpServerStatus[]): string {
  return statuses.map((status) => `- \`${status.name}\` (${status.kind}) - ${describeState(status)}\n  ${status.target}`).join("\n");
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
      return "not connected";
  }
}
