/**
 * The guard plugin as the plugin host sees it: its name, its description and its hook. What it
 * judges and how (the rules, the shell reading) is guard.ts, loaded at the first call of a tool
 * that declares a shell command, so a session that runs no command never loads the rules.
 */
import type { Plugin } from "../lib/extension-api/plugin-api.ts";

export function createGuardPlugin(): Plugin {
  return {
    name: "guard",
    description: "refuses destructive bash commands (rm -rf, git reset --hard, force pushes, piping into a shell, …) and asks about commands it cannot read",
    // Every call of a tool that declares a shell command (its `command`), whatever its name.
    async beforeToolCall({ command, cwd, checkpoint }) {
      if (typeof command !== "string") return undefined;
      return (await import("./guard.ts")).judgeCommand(command, { cwd, checkpoint });
    },
  };
}
