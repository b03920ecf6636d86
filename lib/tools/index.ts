/**
 * The tool registry: the built-in tools, the sets they belong to, and which tools a session
 * offers the model.
 *
 * Sets: `core` is always on; `edit-plus` and `git` are on by default; `net` is opt-in. The config's
 * `toolSets` names the sets wanted on top of core (`[]` = core only). Tools without a set
 * (session, plugin and MCP tools) are never gated by sets. An agent variant's filter (over each
 * tool's declared effect) is intersected with all of that. A withheld tool is left out of the request and the system prompt.
 */
import { TOOL_SET_NAMES, type ToolSetName } from "../vocabulary.ts";
import { bashTool } from "./bash.ts";
import { deleteFileTool, editFileTool, moveFileTool, multiEditTool } from "./edit.ts";
import { globTool, listDirTool, readFileTool, readManyFilesTool, writeFileTool } from "./fs.ts";
import { createGitTools } from "./git.ts";
import type { CompleteFn } from "../providers/complete.ts";
import { grepTool } from "./grep.ts";
import { applyPatchTool } from "./patch.ts";
import { toolSchemaBytes } from "./schema.ts";
import type { ToolDefinition, ToolEffect } from "./types.ts";
import { createWebFetchTool } from "./web.ts";

/** The sets on when config.json has no `toolSets`. */
export const DEFAULT_TOOL_SETS: readonly ToolSetName[] = ["core", "edit-plus", "git"];

export interface BuiltinToolsOptions {
  /** The one-shot model call git_commit_message makes; the loop supplies it. */
  complete: CompleteFn;
  /** config.json `webFetch.allowHosts`. */
  allowHosts?: string[];
  /**
   * Tools that belong to no set, built by their owners: todo_write, remember/recall/forget,
   * recall_discarded, ask, task, skill, plugin and MCP tools. Appended after the built-ins.
   */
  extraTools?: readonly ToolDefinition[];
}

/** The built-in tools, in the order they are offered. Registering a tool is its one line here. */
function _registeredTools(options: BuiltinToolsOptions): ToolDefinition[] {
  return [
    readFileTool,
    writeFileTool,
    editFileTool,
    globTool,
    grepTool,
    bashTool,
    multiEditTool,
    listDirTool,
    readManyFilesTool,
    applyPatchTool,
    moveFileTool,
    deleteFileTool,
    ...createGitTools({ complete: options.complete }),
    createWebFetchTool({ allowHosts: options.allowHosts }),
  ];
}

/** Every built-in tool, then `extraTools`. Throws when two tools share a name, or a tool misses a declaration. */
export function builtinTools(options: BuiltinToolsOptions): ToolDefinition[] {
  return checkToolList([..._registeredTools(options), ...(options.extraTools ?? [])]);
}

/** The names in each set, derived from each built-in tool's `set` declaration. */
export const TOOL_SETS: Readonly<Record<ToolSetName, readonly string[]>> = _groupBySet(_registeredTools({ complete: async () => "" }));

function _groupBySet(tools: readonly ToolDefinition[]): Record<ToolSetName, string[]> {
  return Object.fromEntries(TOOL_SET_NAMES.map((set) => [set, tools.filter((tool) => tool.set === set).map((tool) => tool.name)])) as Record<
    ToolSetName,
    string[]
  >;
}

const _EFFECTS: readonly ToolEffect[] = ["read", "write", "exec", "net"];

/**
 * `tools` unchanged. Throws when two tools share a name, a tool declares no `effect` (plugin and
 * MCP tools are built at run time, past the type-check), or a write tool declares no paths.
 */
export function checkToolList(tools: ToolDefinition[]): ToolDefinition[] {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) throw new Error(`two tools are named "${tool.name}"; rename one of them`);
    if (!_EFFECTS.includes(tool.effect)) throw new Error(`${tool.name} declares no effect; add \`effect: "read" | "write" | "exec" | "net"\``);
    // The guards and path rules see only declared paths: a write tool without them would pass both.
    if (tool.effect === "write" && !tool.paths) throw new Error(`${tool.name} changes files but declares no paths; add a \`paths\` declaration`);
    seen.add(tool.name);
  }
  return tools;
}

export interface SelectToolsOptions {
  /** config.json `toolSets`; undefined means DEFAULT_TOOL_SETS. `core` is on either way. */
  toolSets?: readonly ToolSetName[];
  /** The agent variant's filter over the tools' declarations; undefined allows every tool. */
  allow?: (tool: ToolDefinition) => boolean;
}

export interface ToolSelection {
  /** What the model is offered this step: in the request and in the system prompt. */
  offered: ToolDefinition[];
  /** Every tool known this session, offered or not (the `/tools` denominator). */
  registered: ToolDefinition[];
}

/** Splits `all` into what is offered and what is registered; order is kept. */
export function selectTools(all: readonly ToolDefinition[], options: SelectToolsOptions = {}): ToolSelection {
  const sets = activeToolSets(options.toolSets);
  const offered = all.filter((tool) => (tool.set === undefined || sets.has(tool.set)) && (!options.allow || options.allow(tool)));
  return { offered, registered: [...all] };
}

/** The sets in force for a config `toolSets` value: core always, the defaults when undefined. */
export function activeToolSets(toolSets?: readonly ToolSetName[]): Set<ToolSetName> {
  return new Set<ToolSetName>(["core", ...(toolSets ?? DEFAULT_TOOL_SETS)]);
}

export interface ToolCostEntry {
  name: string;
  set?: ToolSetName;
  /** Bytes of name, description and JSON Schema as sent on every request (toToolSpec as JSON). */
  bytes: number;
  offered: boolean;
}

export interface ToolSetCost {
  set: ToolSetName;
  tools: number;
  bytes: number;
  /** On under the given `toolSets`. */
  active: boolean;
}

export interface ToolCosts {
  tools: ToolCostEntry[];
  sets: ToolSetCost[];
  /** Total bytes of the offered tools, were every schema sent in full. */
  offeredBytes: number;
  /** What a request really carries: the tools sent with their schema (`load_tools` among them when any are deferred), those deferred behind it, and the bytes of what is sent. */
  request: { full: string[]; deferred: string[]; bytes: number };
}

/**
 * What each tool and each set costs on the wire, and what `options` offers. `send` is what a
 * request puts on the wire of the offered tools (the session's deferral, lib/agent/context/
 * tool-deferral.ts); without it every offered schema is sent in full.
 */
export function measureToolCosts(
  all: readonly ToolDefinition[],
  options: SelectToolsOptions = {},
  send: (offered: ToolDefinition[]) => ToolDefinition[] = (offered) => offered,
): ToolCosts {
  const offered = new Set(selectTools(all, options).offered);
  const active = activeToolSets(options.toolSets);
  const tools = all.map((tool) => ({ name: tool.name, set: tool.set, bytes: toolSchemaBytes(tool), offered: offered.has(tool) }));
  const sets = TOOL_SET_NAMES.map((set) => {
    const members = tools.filter((tool) => tool.set === set);
    return { set, tools: members.length, bytes: members.reduce((sum, tool) => sum + tool.bytes, 0), active: active.has(set) };
  });
  const offeredBytes = tools.filter((tool) => tool.offered).reduce((sum, tool) => sum + tool.bytes, 0);
  const sent = send(all.filter((tool) => offered.has(tool)));
  const full = new Set(sent.map((tool) => tool.name));
  const request = {
    full: sent.map((tool) => tool.name),
    deferred: all.filter((tool) => offered.has(tool) && !full.has(tool.name)).map((tool) => tool.name),
    bytes: sent.reduce((sum, tool) => sum + toolSchemaBytes(tool), 0),
  };
  return { tools, sets, offeredBytes, request };
}
