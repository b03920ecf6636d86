/**
 * Deferred tool schemas: what a step puts on the wire of the tools a session may call.
 *
 * Eager tools (the `core` set, and every tool that declares `deferral: "eager"`: the task list,
 * `task`, `skill`, `ask`) go with their full schema on every request; tools that declare
 * `deferral: "budgeted"` (MCP tools) do too while their schemas together stay within `mcpBudget`
 * bytes, in the order the hub lists them. Every other tool is deferred: it is named, with its one line of
 * purpose, in the description of `load_tools`, and its full schema joins the request from the
 * step after the model loads it (`load_tools {names}` or `{query}`). A loaded tool stays loaded
 * for the session. Deferral changes only what is sent: a deferred tool is still callable (the
 * loop runs a direct call of one through the same gate, rules and approvals), and a tool the
 * session withholds (a set that is off, `--no-*`, a variant, a headless run's denials) is never
 * listed at all.
 */
import * as v from "valibot";
import { toolSchemaBytes } from "../../tools/schema.ts";
import type { ToolDefinition } from "../../tools/types.ts";

/** Bytes of MCP schemas sent in full before the rest of the MCP tools are deferred. */
export const DEFAULT_MCP_SCHEMA_BUDGET = 2_000;

export const LOAD_TOOLS = "load_tools";
/** What the rules read of `load_tools`, which the deferral makes anew each step: it never asks. */
export const LOAD_TOOLS_DECLARATION = { name: LOAD_TOOLS, decision: "allow" } as const;

/** Whether `tool`'s schema goes on every request, as it declares (the `core` set always does). */
export function isEager(tool: ToolDefinition): boolean {
  return tool.set === "core" || tool.deferral === "eager";
}

export interface ToolDeferralOptions {
  /** Bytes of MCP tool schemas sent in full; the rest are deferred. */
  mcpBudget?: number;
  /** False sends every schema in full (config `deferTools: false`). */
  enabled?: boolean;
}

export interface ToolDeferral {
  /** What this step sends: eager and loaded tools in full, then `load_tools` while anything is left deferred. */
  offer(tools: readonly ToolDefinition[]): ToolDefinition[];
  /** Every tool the model may call this step: all of `tools`, plus `load_tools` when it is offered. */
  callable(tools: readonly ToolDefinition[]): ToolDefinition[];
  /** Names loaded so far. */
  loaded(): ReadonlySet<string>;
}

export function createToolDeferral(options: ToolDeferralOptions = {}): ToolDeferral {
  const loaded = new Set<string>();
  const mcpBudget = options.mcpBudget ?? DEFAULT_MCP_SCHEMA_BUDGET;
  const split = (tools: readonly ToolDefinition[]): { full: ToolDefinition[]; deferred: ToolDefinition[] } => {
    if (options.enabled === false) return { full: [...tools], deferred: [] };
    const full: ToolDefinition[] = [];
    const deferred: ToolDefinition[] = [];
    let mcpBytes = 0;
    for (const tool of tools) {
      if (isEager(tool) || loaded.has(tool.name)) full.push(tool);
      else if (tool.deferral === "budgeted" && mcpBytes + toolSchemaBytes(tool) <= mcpBudget) {
        mcpBytes += toolSchemaBytes(tool);
        full.push(tool);
      } else deferred.push(tool);
    }
    return { full, deferred };
  };
  // The same tools deferred out of the same list get the same load_tools (its description and its
  // spec are made once, not at every step: a turn offers and checks the list several times).
  let last: { tools: readonly ToolDefinition[]; deferred: readonly ToolDefinition[]; tool: ToolDefinition } | undefined;
  const loader = (tools: readonly ToolDefinition[], deferred: ToolDefinition[]): ToolDefinition => {
    if (last && _sameTools(last.tools, tools) && _sameTools(last.deferred, deferred)) return last.tool;
    const tool = createLoadToolsTool(
      deferred,
      (names) => {
        for (const name of names) loaded.add(name);
      },
      tools,
    );
    last = { tools: [...tools], deferred, tool };
    return tool;
  };
  return {
    offer(tools) {
      const { full, deferred } = split(tools);
      return deferred.length > 0 ? [...full, loader(tools, deferred)] : full;
    },
    callable(tools) {
      const { deferred } = split(tools);
      return deferred.length > 0 ? [...tools, loader(tools, deferred)] : [...tools];
    },
    loaded: () => loaded,
  };
}

function _sameTools(a: readonly ToolDefinition[], b: readonly ToolDefinition[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const _schema = v.object({
  names: v.optional(v.pipe(v.array(v.string()), v.description("tool names from the list"))),
  query: v.optional(v.pipe(v.string(), v.description("words to search the list for"))),
});

/**
 * The `load_tools` tool over the deferred tools of one step. `load` records the names to send in
 * full from the next step. Names may be any of `all` (an already-loaded one is answered kindly);
 * a query loads every deferred tool whose name or description holds each of its words.
 */
export function createLoadToolsTool(
  deferred: readonly ToolDefinition[],
  load: (names: string[]) => void,
  all: readonly ToolDefinition[] = deferred,
): ToolDefinition<v.InferOutput<typeof _schema>> {
  return {
    ...LOAD_TOOLS_DECLARATION,
    description: `Loads more tools by name or query: their schemas arrive on your next step, then call them. Not loaded yet:\n${describeDeferred(deferred).join("\n")}`,
    schema: _schema,
    effect: "read",
    memoryContent: false,
    async execute(input) {
      const known = new Map(all.map((tool) => [tool.name, tool]));
      const picked = new Set<string>();
      const unknown: string[] = [];
      for (const name of input.names ?? []) known.has(name) ? picked.add(name) : unknown.push(name);
      const words = (input.query ?? "").toLowerCase().split(/\W+/).filter(Boolean);
      if (words.length > 0) {
        for (const tool of deferred) {
          const text = `${tool.name} ${tool.description}`.toLowerCase();
          if (words.every((word) => text.includes(word))) picked.add(tool.name);
        }
      }
      if (picked.size === 0) {
        const why = unknown.length > 0 ? `no tool is named ${unknown.join(", ")}` : input.query ? `nothing matches "${input.query}"` : "give names or a query";
        throw new Error(`Nothing loaded: ${why}. Loadable: ${deferred.map((tool) => tool.name).join(", ") || "none"}.`);
      }
      load([...picked]);
      const skipped = unknown.length > 0 ? ` Unknown, skipped: ${unknown.join(", ")}.` : "";
      return `Loaded ${[...picked].join(", ")}: call them from your next step.${skipped}`;
    },
  };
}

/**
 * One line per deferred tool: its declared guidance, or its description's first sentence cut at
 * a word near PURPOSE_CHARS (MCP_PURPOSE_CHARS for MCP tools), without the small words a cut
 * leaves dangling. Tools sharing a guidance share a line; MCP tools are grouped under one line
 * per server, named without the `mcp__<server>__` prefix, and those of a server sharing a guidance
 * share an item there (an empty guidance, for tools whose names say it all, lists just the names).
 */
export function describeDeferred(tools: readonly ToolDefinition[]): string[] {
  const groups = new Map<string, string[]>();
  const servers = new Map<string, { names: string[]; purpose: string; declared: boolean }[]>();
  for (const tool of tools) {
    const mcp = /^mcp__(.+?)__(.+)$/.exec(tool.name);
    if (mcp) {
      const items = servers.get(mcp[1]!) ?? [];
      servers.set(mcp[1]!, items);
      const shared = tool.guidance === undefined ? undefined : items.find((item) => item.declared && item.purpose === tool.guidance);
      if (shared) shared.names.push(mcp[2]!);
      else items.push({ names: [mcp[2]!], purpose: tool.guidance ?? _purpose(tool.description, MCP_PURPOSE_CHARS), declared: tool.guidance !== undefined });
      continue;
    }
    const purpose = tool.guidance ?? _purpose(tool.description);
    groups.set(purpose, [...(groups.get(purpose) ?? []), tool.name]);
  }
  const item = ({ names, purpose }: { names: string[]; purpose: string }) => (purpose ? `${names.join(", ")}: ${purpose}` : names.join(", "));
  return [
    ...[...groups].map(([purpose, names]) => `- ${names.join(", ")}: ${purpose}`),
    ...[...servers].map(([server, items]) => `- MCP server ${server}, as mcp__${server}__<name>: ${items.map(item).join("; ")}`),
  ];
}

export const PURPOSE_CHARS = 48;
/** Shorter for MCP tools: servers bring dozens of them, and their names say much already. */
export const MCP_PURPOSE_CHARS = 32;

/** Words a cut purpose does not end on: "Read the contents of a..." reads as "Read the contents...". */
const _DANGLING = /(?:[\s,;:(-]+(?:a|an|the|of|to|for|in|on|at|and|or|as|by|from|with|into|all|its|their|using))+[\s,;:(-]*$|[\s,;:(-]+$/i;

function _purpose(text: string, limit = PURPOSE_CHARS): string {
  const line = (text.trim().split(/(?<=[.!?])\s|\n/)[0] ?? "").replace(/\.$/, "");
  if (line.length <= limit) return line;
  const cut = line.slice(0, limit);
  const word = cut.slice(0, Math.max(cut.lastIndexOf(" "), limit / 2));
  const trimmed = word.replace(_DANGLING, "");
  return `${trimmed.length >= limit / 2 ? trimmed : word}...`;
}
