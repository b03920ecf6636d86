/**
 * Derives the JSON Schema the model sees from a tool's valibot schema.
 *
 * Contract: a tool's spec is its name, its trimmed description and the JSON Schema of what it
 * declares (`jsonSchema`, else its valibot `schema` converted), the same bytes however it was
 * found. A compiled binary carries the converted schemas of shiro's own tools (SHIRO_TOOL_SCHEMAS,
 * baked by .ci/release/build.ts from tool-schemas.ts): a tool whose name is there and whose valibot
 * schema, as JSON, is one of those baked under that name takes the baked schema instead of running
 * the converter at every start. Anything else (a source run, a plugin's tool, a `task` listing
 * custom kinds) is converted. JSON keeps every field the converter reads but functions: a
 * function default (`v.optional(x, () => 1)`) is not told apart from none, and shiro's tools have
 * none.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { ToolSpec } from "../providers/types.ts";
import type { ToolDefinition } from "./types.ts";

/** Tool name → its valibot schema as JSON → the JSON Schema converted from it. */
export type BakedToolSchemas = Record<string, Record<string, Record<string, unknown>>>;

declare const SHIRO_TOOL_SCHEMAS: BakedToolSchemas | undefined;

const _cache = new WeakMap<ToolDefinition, ToolSpec>();
let _baked: BakedToolSchemas | undefined | null = null;

export function toToolSpec(tool: ToolDefinition): ToolSpec {
  const cached = _cache.get(tool);
  if (cached) return cached;
  _baked ??= typeof SHIRO_TOOL_SCHEMAS === "object" ? SHIRO_TOOL_SCHEMAS : undefined;
  const inputSchema = tool.jsonSchema ?? bakedInputSchema(tool, _baked) ?? convertInputSchema(tool.schema);
  const spec: ToolSpec = { name: tool.name, description: tool.description.trim(), inputSchema };
  _cache.set(tool, spec);
  return spec;
}

/** The JSON Schema of a valibot schema, as the wire carries it: no `$schema`, no empty `required`. */
export function convertInputSchema(schema: ToolDefinition["schema"]): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0], { errorMode: "ignore" }) as Record<string, unknown>;
  // An empty `required` says nothing and costs bytes on every request.
  if (Array.isArray(rest.required) && rest.required.length === 0) delete rest.required;
  return rest;
}

/** The key a valibot schema is baked under: its JSON (functions left out; a lazy schema is its built one). */
export function schemaFingerprint(schema: ToolDefinition["schema"]): string {
  return JSON.stringify(schema);
}

/** `tool`'s baked JSON Schema: under its name, for its exact valibot schema; undefined when `baked` has none. */
export function bakedInputSchema(tool: ToolDefinition, baked: BakedToolSchemas | undefined): Record<string, unknown> | undefined {
  const variants = baked?.[tool.name];
  if (!variants) return undefined;
  try {
    const key = schemaFingerprint(tool.schema);
    return Object.hasOwn(variants, key) ? variants[key] : undefined;
  } catch {
    // A schema JSON cannot hold (a BigInt literal, a cycle) is converted.
    return undefined;
  }
}

/** Bytes this tool adds to every request: its name, description and schema as JSON. */
export function toolSchemaBytes(tool: ToolDefinition): number {
  return Buffer.byteLength(JSON.stringify(toToolSpec(tool)), "utf8");
}

/**
 * A valibot schema built the first time anything reads it. Tool modules declare their inputs when
 * they load, on the start-up path: a tool a run does not offer in full (deferred behind load_tools,
 * withheld, a variant not chosen) never builds its schema, and an offered one builds it once, for
 * the fingerprint that picks its baked JSON Schema (each schema is objects and closures; built
 * eagerly, shiro's tools' inputs cost a compiled binary's start about 2 ms, docs/development.md
 * "Start-up").
 *
 * Contract: the value behaves as the schema `build` returns, for valibot, JSON and the JSON Schema
 * converter alike: every property read, `in` test and key listing is answered by the built
 * schema, built once; methods run with the lazy value as `this`, which reads through to it. The
 * one exception is `toJSON`, read by JSON.stringify alone: it gives the built schema, so JSON
 * serialises that natively instead of through the traps (several times slower) or a replacer
 * called at every value (what a fingerprint, at each start, once cost).
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  const toJSON = (): T => schema();
  const lazy = new Proxy({} as T, {
    get: (_target, key) => (key === "toJSON" ? toJSON : Reflect.get(schema(), key)),
    has: (_target, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // The target holds none of these keys, so each is reported configurable (a proxy's invariant).
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
  return lazy;
}
