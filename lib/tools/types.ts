/**
 * The tool contract. A tool is a valibot schema, a description (long text in a sibling .md,
 * imported as text), the permission subjects of a call, and `execute`.
 *
 * Tools throw on failure with a message the model can act on; the loop turns any throw,
 * an unknown tool name or arguments that fail the schema into an error tool result.
 * Tools never write to stdout: live output goes through `ctx.emitOutput`.
 */
import type * as v from "valibot";
import type { ToolSetName } from "../config.ts";
import type { CommandSandbox } from "../sandbox/session.ts";

export interface ToolContext {
  /** Workspace root: every path a tool touches must resolve inside it (see jail.ts). */
  root: string;
  /** Aborted when the user interrupts the turn or the run is cancelled. */
  signal: AbortSignal;
  /** Live output chunks (bash), surfaced as `tool-output` events. */
  emitOutput: (chunk: string) => void;
  /** The call's id, for tools that report progress. */
  callId: string;
  /** Where subprocesses (bash) run confined; absent means unconfined. */
  sandbox?: CommandSandbox;
}

export interface ToolDefinition<TInput = any> {
  name: string;
  /** The tool set it belongs to; undefined for session, plugin and MCP tools (never gated by toolSets). */
  set?: ToolSetName;
  description: string;
  /** Validates and types the arguments; the JSON Schema sent to the model is derived from it. */
  schema: v.GenericSchema<unknown, TInput>;
  /** A ready JSON Schema, for tools whose schema is not valibot (MCP). Wins over `schema` for the wire. */
  jsonSchema?: Record<string, unknown>;
  /** True when the tool cannot change anything (reads, searches, session bookkeeping). */
  readOnly?: boolean;
  /**
   * What permission rules match against for this call: bash → [command], file tools → [path],
   * move_file → [from, to], apply_patch → every path. Empty: only a `*` rule matches.
   */
  subjects?: (input: TInput) => string[];
  /** Returns the text the model reads. Throws Error(message) on failure. */
  execute: (input: TInput, ctx: ToolContext) => Promise<string>;
}

/** Every tool result longer than this is cut, with a `[truncated N chars]` note. */
export const RESULT_CAP = 30_000;

export function capResult(text: string, cap = RESULT_CAP): string {
  if (text.length <= cap) return text;
  return `${text.slice(0, cap)}\n... [truncated ${text.length - cap} chars]`;
}
