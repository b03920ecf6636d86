/**
 * What a logged call did, read from its tool's declaration: the files it read or changed (its
 * `paths`, as `touches` says, or changed for a `write` tool), the shell command it ran (its
 * `command`) and whether it was bookkeeping. Episodes and note provenance (so staleness) read
 * calls through this, so a new tool is recorded as it declares, with no list of names.
 */
import type { CallFacts, DescribeCall } from "../store/episode-build.ts";
import type { ToolDefinition } from "./types.ts";

const _NOTHING: CallFacts = { reads: [], changes: [], bookkeeping: false };

/**
 * The describer over `tools` (a list, or a lookup by name); `root` is the folder declared paths
 * are read against (move_file expands folders).
 */
export function describeToolCalls(tools: readonly ToolDefinition[] | ((name: string) => ToolDefinition | undefined), root: string): DescribeCall {
  const byName = typeof tools === "function" ? undefined : new Map(tools.map((tool) => [tool.name, tool]));
  const lookup = typeof tools === "function" ? tools : (name: string) => byName!.get(name);
  return (name, input) => {
    const tool = lookup(name);
    if (!tool) return _NOTHING;
    const touches = tool.touches ?? (tool.effect === "write" ? "changes" : undefined);
    const paths = touches ? _paths(tool, input, root) : [];
    const command = tool.command ? _command(tool, input) : undefined;
    return {
      reads: touches === "reads" ? paths : [],
      changes: touches === "changes" ? paths : [],
      ...(command !== undefined ? { command } : {}),
      bookkeeping: tool.bookkeeping === true,
    };
  };
}

function _paths(tool: ToolDefinition, input: unknown, root: string): string[] {
  try {
    const declared: unknown = tool.paths?.(input, root) ?? [];
    return Array.isArray(declared) ? declared.filter((path): path is string => typeof path === "string" && path !== "") : [];
  } catch {
    return [];
  }
}

function _command(tool: ToolDefinition, input: unknown): string | undefined {
  try {
    return tool.command!(input);
  } catch {
    return undefined;
  }
}
