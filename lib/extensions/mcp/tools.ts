/**
 * MCP tools as shiro tools: the `mcp__<server>__<tool>` name, the ToolDefinition around a server's
 * tool, and the text the model reads from a `tools/call` result. Loads no MCP SDK code.
 */
import * as v from "valibot";
import { sha256Hex } from "../../platform/sha256.ts";
import type { ToolDefinition } from "../../tools/types.ts";

/** Both OpenAI and Anthropic refuse tool names longer than this. */
export const MCP_TOOL_NAME_MAX = 64;

/** A tool as a server lists it (`tools/list`), reduced to what shiro uses. */
export interface McpListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { title?: string };
}

/** A `tools/call` result, reduced to what shiro reads. `toolResult` is the pre-2024-11 shape. */
export interface McpCallResult {
  content?: readonly McpContentPart[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
}

export type McpContentPart =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: "resource_link"; uri: string; name?: string }
  | { type: string; [key: string]: unknown };

/** Calls the named server tool; rejects on transport and protocol errors. `onProgress` gets each progress notification as one line. */
export type McpToolCaller = (tool: string, args: Record<string, unknown>, signal: AbortSignal, onProgress?: (line: string) => void) => Promise<McpCallResult>;

/** A progress notification as the line the REPL shows under the call: `progress 3/10: indexing`. */
export function describeProgress(progress: { progress: number; total?: number; message?: string }): string {
  return `progress ${progress.progress}${progress.total === undefined ? "" : `/${progress.total}`}${progress.message ? `: ${progress.message}` : ""}`;
}

/**
 * `mcp__<server>__<tool>` with every character outside `[A-Za-z0-9_-]` replaced by `_`. A name
 * longer than 64 characters, or one already in `taken` (two tools that sanitise alike), is cut
 * and ends in `_` plus 8 hex digits of a hash of the original server and tool names.
 */
export function toMcpToolName(server: string, tool: string, taken?: ReadonlySet<string>): string {
  const name = `mcp__${_sanitize(server)}__${_sanitize(tool)}`;
  if (name.length <= MCP_TOOL_NAME_MAX && !taken?.has(name)) return name;
  const suffix = sha256Hex(`${server}\0${tool}`).slice(0, 8);
  return `${name.slice(0, MCP_TOOL_NAME_MAX - suffix.length - 1)}_${suffix}`;
}

function _sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_") || "_";
}

const _AnyObject = v.custom<Record<string, unknown>>(
  (input) => typeof input === "object" && input !== null && !Array.isArray(input),
  "arguments must be a JSON object",
);

/**
 * Wraps one listed tool. Arguments pass shiro's check when they are an object; the server
 * validates them against its own schema, which is what the model is shown. No `set` (toolSets
 * never gate MCP tools), effect `exec` (nobody declared what it does) and no default decision
 * (wildcard rules such as `mcp__*` decide, else every call asks).
 */
export function createMcpTool(name: string, listed: McpListedTool, call: McpToolCaller): ToolDefinition<Record<string, unknown>> {
  const { $schema: _dialect, ...jsonSchema } = listed.inputSchema;
  return {
    name,
    description: listed.description?.trim() || listed.title || listed.annotations?.title || listed.name,
    schema: _AnyObject,
    jsonSchema,
    effect: "exec",
    deferral: "budgeted",
    async execute(input, ctx) {
      const result = await call(listed.name, input, ctx.signal, (line) => ctx.emitOutput(`${line}\n`));
      const text = renderCallResult(result);
      if (result.isError) throw new Error(text || `${listed.name} reported an error without a message`);
      return text;
    },
  };
}

/**
 * The text the model reads: text parts verbatim, embedded text resources' text, one-line
 * placeholders for binary parts (`[image image/png, 1234 bytes]`), each part on its own line.
 * `structuredContent` is added as JSON when no part carried text; an empty result reads
 * `(no content)`.
 */
export function renderCallResult(result: McpCallResult): string {
  if (result.content === undefined && result.toolResult !== undefined) return JSON.stringify(result.toolResult);
  const lines: string[] = [];
  let hasText = false;
  for (const part of result.content ?? []) {
    const rendered = _renderPart(part);
    if (rendered.isText) hasText = true;
    lines.push(rendered.text);
  }
  if (!hasText && result.structuredContent !== undefined) lines.push(JSON.stringify(result.structuredContent));
  return lines.length > 0 ? lines.join("\n") : "(no content)";
}

function _renderPart(part: McpContentPart): { text: string; isText: boolean } {
  const record = part as Record<string, unknown>;
  switch (part.type) {
    case "text":
      return { text: String(record.text ?? ""), isText: true };
    case "image":
    case "audio":
      return { text: `[${part.type} ${String(record.mimeType ?? "unknown")}, ${_base64Bytes(record.data)} bytes]`, isText: false };
    case "resource": {
      const resource = (record.resource ?? {}) as { uri?: string; mimeType?: string; text?: string; blob?: string };
      if (typeof resource.text === "string") return { text: resource.text, isText: true };
      const type = resource.mimeType ? ` ${resource.mimeType}` : "";
      return { text: `[resource ${resource.uri ?? "(no uri)"}${type}, ${_base64Bytes(resource.blob)} bytes]`, isText: false };
    }
    case "resource_link": {
      const uri = String(record.uri ?? "");
      const name = typeof record.name === "string" && record.name !== uri ? ` (${record.name})` : "";
      return { text: `[resource link ${uri}${name}]`, isText: false };
    }
    default:
      return { text: `[${part.type} content]`, isText: false };
  }
}

function _base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}
