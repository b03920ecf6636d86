/**
 * A tool call as one readable line, from what the tool declares: its `summary`, else its declared
 * paths, else its subjects (bash's command, a URL), else its string arguments as `key: value`.
 * Never JSON; newlines are flattened and the line is cut at `max` characters.
 */
import type { ToolDefinition } from "../tools/types.ts";

export function summarizeCall(tool: ToolDefinition | undefined, input: unknown, root: string, max = 100): string {
  return _cut(_derive(tool, input, root), max);
}

function _derive(tool: ToolDefinition | undefined, input: unknown, root: string): string {
  const tries: (() => string | undefined)[] = [
    () => tool?.summary?.(input),
    () => tool?.paths?.(input, root).join(", "),
    () => tool?.subjects?.(input).join(" "),
  ];
  for (const attempt of tries) {
    try {
      const text = attempt();
      if (text && text.trim()) return text;
    } catch {
      // a declaration that cannot read this input: the next one is asked
    }
  }
  if (!input || typeof input !== "object") return typeof input === "string" ? input : "";
  return Object.entries(input as Record<string, unknown>)
    .filter(([, value]) => typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(", ");
}

function _cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
