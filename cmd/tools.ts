/**
 * `shiro tools [--json]`: every built-in tool with its set, whether config.json's `toolSets`
 * offers it, and the bytes its schema adds to each request; then the totals per set.
 * Session, plugin and MCP tools exist only inside a session: `/tools` lists those.
 */
import { defineCommand } from "citty";
import { writeOut } from "../lib/ui/output.ts";

export default defineCommand({
  meta: { name: "tools", description: "list the built-in tools, their sets and schema bytes" },
  args: {
    json: { type: "boolean", description: "print one JSON object instead of tables" },
  },
  async run({ args }) {
    const { loadConfigFile } = await import("../lib/config/config.ts");
    const { builtinTools, measureToolCosts } = await import("../lib/tools/index.ts");
    const config = loadConfigFile();
    const tools = builtinTools({ complete: _noModelHere, allowHosts: config.webFetch?.allowHosts });
    const costs = measureToolCosts(tools, { toolSets: config.toolSets });
    if (args.json) {
      writeOut(`${JSON.stringify(costs)}\n`);
      return;
    }
    const toolRows = costs.tools.map((t) => [t.name, t.set ?? "-", t.offered ? "offered" : "withheld", String(t.bytes)]);
    const setRows = costs.sets.map((s) => [s.set, String(s.tools), s.active ? "on" : "off", String(s.bytes)]);
    const offeredCount = costs.tools.filter((t) => t.offered).length;
    writeOut([
      ..._table(["tool", "set", "this session", "bytes"], toolRows),
      "",
      ..._table(["set", "tools", "this session", "bytes"], setRows),
      "",
      `${offeredCount} of ${costs.tools.length} tools offered: ${costs.offeredBytes} bytes of schema per request`,
      "",
    ].join("\n"));
  },
});

// `shiro tools` lists tools and never runs one, so git_commit_message gets no model to call.
async function _noModelHere(): Promise<string> {
  throw new Error("git_commit_message cannot run from `shiro tools`");
}

/** Left-aligned columns, the last one right-aligned (numbers). */
function _table(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  return all.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ").trimEnd());
}
