/** The bell plugin: rings the terminal bell (BEL on stderr) when a turn ends. */
import type { Plugin, PluginContext } from "../lib/extension-api/plugin-api.ts";

export function createBellPlugin(context: Pick<PluginContext, "writeStderr">): Plugin {
  return {
    name: "bell",
    description: "rings the terminal bell when a turn ends",
    afterTurn() {
      context.writeStderr("\u0007");
    },
  };
}
