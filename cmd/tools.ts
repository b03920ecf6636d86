/**
 * `shiro tools [--json]`: every built-in tool with its set, whether config.json's `toolSets`
 * offers it, and the bytes of its schema; the totals per set; then what a default request really
 * sends of them, after the schema deferral (`deferTools`).
 * Session, plugin and MCP tools exist only inside a session: `/tools` lists those.
 */
import { defineCommand } from "citty";
import { writeOut } from "../lib/ui/output.ts";
import { renderToolCosts } from "../lib/ui/tool-costs-table.ts";

export default defineCommand({
  meta: { name: "tools", description: "list the built-in tools, their sets and schema bytes" },
  args: {
    json: { type: "boolean", description: "print one JSON object instead of tables" },
  },
  async run({ args }) {
    const { loadConfigFile } = await import("../lib/config/config.ts");
    const { builtinTools, measureToolCosts } = await import("../lib/tools/index.ts");
    const { createToolDeferral } = await import("../lib/agent/context/tool-deferral.ts");
    const config = loadConfigFile();
    const tools = builtinTools({ complete: _noModelHere, allowHosts: config.webFetch?.allowHosts });
    // What a default request sends: the session's deferral over the offered built-in tools.
    const deferral = createToolDeferral({ enabled: config.deferTools !== false, mcpBudget: config.mcpSchemaBudget });
    const costs = measureToolCosts(tools, { toolSets: config.toolSets }, (offered) => deferral.offer(offered));
    if (args.json) {
      writeOut(`${JSON.stringify(costs)}\n`);
      return;
    }
    writeOut(renderToolCosts(costs));
  },
});

// `shiro tools` lists tools and never runs one, so git_commit_message gets no model to call.
async function _noModelHere(): Promise<string> {
  throw new Error("git_commit_message cannot run from `shiro tools`");
}
