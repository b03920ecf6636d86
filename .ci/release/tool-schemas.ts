/**
 * The JSON Schemas of shiro's own tools, converted once when the binary is built and carried in
 * it as SHIRO_TOOL_SCHEMAS (lib/tools/schema.ts), so a start does not run the valibot converter:
 * every built-in tool, every tool a session declares itself and the bundled plugins' tools
 * (plugins/), in each form it takes without anything the user wrote (the memory tools with and
 * without their scopes, `task` with and without `worker`). A tool in another form (`task` listing
 * custom kinds) misses and is converted at run time, as every tool is in a source run. Build
 * tooling, not runtime: runs under Bun from the sources.
 */
import { createTaskTool, type TaskToolOptions } from "../../lib/agent/subagent.ts";
import { createLoadToolsTool } from "../../lib/agent/context/tool-deferral.ts";
import type { MemoryShelf } from "../../lib/store/memory-scopes.ts";
import type { MemoryStore } from "../../lib/store/memory.ts";
import { createAskTool } from "../../lib/tools/ask.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import { createRecallDiscardedTool } from "../../lib/tools/recall-discarded.ts";
import { convertInputSchema, schemaFingerprint, type BakedToolSchemas } from "../../lib/tools/schema.ts";
import { createSkillTool } from "../../lib/tools/skill.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import { createTimePlugin } from "../../plugins/time.ts";

/** Every tool declaration shiro makes itself, in each of its fixed forms (never called: only their schemas are read). */
export function ownToolDeclarations(): ToolDefinition[] {
  const unused = (): never => {
    throw new Error("a tool built for its schema was called");
  };
  const store = {} as MemoryStore;
  const task = (canAsk: boolean) => createTaskTool({ canAsk, root: "/", model: unused, thinking: unused, tools: unused } as unknown as TaskToolOptions);
  return [
    ...builtinTools({ complete: unused }),
    createTodoTool({ get: unused, set: unused }),
    createAskTool(unused),
    ...createMemoryTools(store),
    ...createMemoryTools(store, { global: store }),
    ...createMemoryTools(store, { shelf: {} as MemoryShelf }),
    createRecallDiscardedTool(unused),
    task(true),
    task(false),
    createSkillTool([]),
    createLoadToolsTool([], unused),
    ...(createTimePlugin().tools ?? []),
  ];
}

/** Tool name → valibot schema as JSON → its JSON Schema: the value of SHIRO_TOOL_SCHEMAS. */
export function bakeToolSchemas(tools: readonly ToolDefinition[] = ownToolDeclarations()): BakedToolSchemas {
  const baked: BakedToolSchemas = {};
  for (const tool of tools) {
    if (tool.jsonSchema) continue;
    (baked[tool.name] ??= {})[schemaFingerprint(tool.schema)] = convertInputSchema(tool.schema);
  }
  return baked;
}
