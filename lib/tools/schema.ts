/** Derives the JSON Schema the model sees from a tool's valibot schema. */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { ToolSpec } from "../providers/types.ts";
import type { ToolDefinition } from "./types.ts";

const _cache = new WeakMap<ToolDefinition, ToolSpec>();

export function toToolSpec(tool: ToolDefinition): ToolSpec {
  const cached = _cache.get(tool);
  if (cached) return cached;
  let inputSchema: Record<string, unknown>;
  if (tool.jsonSchema) inputSchema = tool.jsonSchema;
  else {
    const { $schema: _ignored, ...rest } = toJsonSchema(tool.schema as Parameters<typeof toJsonSchema>[0], { errorMode: "ignore" }) as Record<string, unknown>;
    // An empty `required` says nothing and costs bytes on every request.
    if (Array.isArray(rest.required) && rest.required.length === 0) delete rest.required;
    inputSchema = rest;
  }
  const spec: ToolSpec = { name: tool.name, description: tool.description.trim(), inputSchema };
  _cache.set(tool, spec);
  return spec;
}

/** Bytes this tool adds to every request: its name, description and schema as JSON. */
export function toolSchemaBytes(tool: ToolDefinition): number {
  return Buffer.byteLength(JSON.stringify(toToolSpec(tool)), "utf8");
}
