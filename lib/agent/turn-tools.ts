/**
 * A custom command's `allowed-tools` (lib/ui/slash/custom-commands.ts): for the turn it starts,
 * only the named tools are offered and callable. A name matches a tool's own name or its Claude
 * Code counterpart's (`Bash`, `Read`, `Edit`…, the tool's `claudeCode` declaration). The narrowing
 * lasts while the turn's events are read and is lifted when the turn ends, however it ends.
 */
import type { AgentEvent } from "../events.ts";
import type { RunStartOptions } from "./run-driver.ts";
import type { ToolDefinition } from "../tools/types.ts";

/** A turn's options: a run's, plus a custom command's `allowed-tools`, the only tools the turn offers. */
export type TurnOptions = RunStartOptions & { allowedTools?: readonly string[] };

export interface TurnNarrowing {
  /** True when no narrowing is in force, or the tool is one of the allowed. */
  allows(tool: ToolDefinition): boolean;
  /** `events` with the tools narrowed to `allowed` while they run; `events` itself without it. */
  during(events: AsyncGenerator<AgentEvent, void, undefined>, allowed: readonly string[] | undefined): AsyncGenerator<AgentEvent, void, undefined>;
}

export function createTurnNarrowing(): TurnNarrowing {
  let allowed: ReadonlySet<string> | undefined;
  return {
    allows: (tool) => !allowed || allowed.has(tool.name) || (tool.claudeCode !== undefined && allowed.has(tool.claudeCode.name)),
    during(events, names) {
      if (!names) return events;
      return (async function* () {
        allowed = new Set(names);
        try {
          yield* events;
        } finally {
          allowed = undefined;
        }
      })();
    },
  };
}
