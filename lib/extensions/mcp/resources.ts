/**
 * A server's resources and prompts as tools, for servers that list at least one of them:
 * `mcp__<server>__list_resources` (every resource, one `uri  name  mimeType` line each),
 * `mcp__<server>__read_resource` ({uri}: its text, binary parts as placeholders), and
 * `mcp__<server>__get_prompt` ({name, arguments?}: the prompt's messages as text). The REPL runs
 * the last one for `/mcp__<server>__<prompt> args` (lib/ui/slash/slash.ts). Like every MCP tool,
 * they declare effect `exec` and no decision: rules (`mcp__*`, `alwaysAllow`) decide, else each call asks.
 * While deferred they cost a few bytes: their names only, on their server's load_tools line.
 * Loads no MCP SDK code.
 */
import * as v from "valibot";
import type { ToolDefinition } from "../../tools/types.ts";
import { renderCallResult, toMcpToolName, type McpContentPart } from "./tools.ts";

/** What these tools need of a connected client (the SDK's Client has these methods). */
export interface McpResourceClient {
  listResources(
    params?: { cursor?: string },
    options?: { signal?: AbortSignal },
  ): Promise<{ resources: { uri: string; name?: string; mimeType?: string }[]; nextCursor?: string }>;
  readResource(
    params: { uri: string },
    options?: { signal?: AbortSignal },
  ): Promise<{ contents: { uri: string; mimeType?: string; text?: string; blob?: string }[] }>;
  listPrompts(
    params?: { cursor?: string },
    options?: { signal?: AbortSignal },
  ): Promise<{ prompts: { name: string; description?: string; arguments?: { name: string; required?: boolean }[] }[] }>;
  getPrompt(
    params: { name: string; arguments?: Record<string, string> },
    options?: { signal?: AbortSignal },
  ): Promise<{ messages: { role: string; content: McpContentPart }[] }>;
  listResourceTemplates(params?: { cursor?: string }, options?: { signal?: AbortSignal }): Promise<{ resourceTemplates: unknown[] }>;
}

/** What a server offers besides tools: whether it lists any resource (or template), and its prompts. */
export interface McpOffers {
  resources: boolean;
  prompts: { name: string; description?: string }[];
}

/** Reads what the server offers, asking only for the kinds its capabilities declare; a listing that fails counts as none. */
export async function readOffers(client: McpResourceClient, capabilities: { resources?: object; prompts?: object } | undefined): Promise<McpOffers> {
  const some = async (list: () => Promise<unknown[]>) => (await list().catch(() => [])).length > 0;
  const resources =
    capabilities?.resources !== undefined &&
    ((await some(async () => (await client.listResources()).resources)) || (await some(async () => (await client.listResourceTemplates()).resourceTemplates)));
  const listed = capabilities?.prompts !== undefined ? await client.listPrompts().catch(() => ({ prompts: [] })) : { prompts: [] };
  const prompts = listed.prompts.map((prompt) => ({ name: prompt.name, ...(prompt.description ? { description: _oneLine(prompt.description) } : {}) }));
  return { resources, prompts };
}

function _oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

const _MAX_PAGES = 20;
/** Their names say what they do: load_tools lists them by name alone on their server's line (lib/agent/context/tool-deferral.ts). */
const _NAMED = "";
const _UriInput = v.object({ uri: v.pipe(v.string(), v.minLength(1), v.description("a resource URI from list_resources")) });
const _PromptInput = v.object({
  name: v.pipe(v.string(), v.minLength(1), v.description("the prompt's name")),
  arguments: v.optional(v.record(v.string(), v.string()), {}),
  /** Values for the prompt's declared arguments in order (the REPL's `/mcp__server__prompt a b`). */
  positional: v.optional(v.array(v.string())),
});

/** The tools for `server`'s capabilities; `taken` holds names already used (its own tools), and gains these. */
export function createCapabilityTools(
  server: string,
  capabilities: { resources: boolean; prompts: boolean } | undefined,
  client: () => McpResourceClient,
  taken: Set<string>,
): ToolDefinition<any>[] {
  const name = (tool: string) => {
    const chosen = toMcpToolName(server, tool, taken);
    taken.add(chosen);
    return chosen;
  };
  const tools: ToolDefinition<any>[] = [];
  if (capabilities?.resources) {
    tools.push({
      name: name("list_resources"),
      description: "List this server's resources.",
      guidance: _NAMED,
      schema: v.object({}),
      jsonSchema: { type: "object", properties: {} },
      effect: "exec",
      async execute(_input, ctx) {
        const lines: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < _MAX_PAGES; page++) {
          const listed = await client().listResources(cursor === undefined ? undefined : { cursor }, { signal: ctx.signal });
          for (const resource of listed.resources) lines.push([resource.uri, resource.name, resource.mimeType].filter(Boolean).join("  "));
          cursor = listed.nextCursor;
          if (cursor === undefined) break;
        }
        return lines.length > 0 ? lines.join("\n") : "(no resources)";
      },
    } satisfies ToolDefinition<Record<string, never>>);
    tools.push({
      name: name("read_resource"),
      description: "Read a resource by URI.",
      guidance: _NAMED,
      schema: _UriInput,
      jsonSchema: { type: "object", properties: { uri: { type: "string", description: "a resource URI from list_resources" } }, required: ["uri"] },
      effect: "exec",
      async execute(input: v.InferOutput<typeof _UriInput>, ctx) {
        const read = await client().readResource({ uri: input.uri }, { signal: ctx.signal });
        return renderCallResult({ content: read.contents.map((resource) => ({ type: "resource", resource })) });
      },
    });
  }
  if (capabilities?.prompts) {
    tools.push({
      name: name("get_prompt"),
      description: "Get a prompt's text by name.",
      guidance: _NAMED,
      schema: _PromptInput,
      jsonSchema: {
        type: "object",
        properties: {
          name: { type: "string", description: "the prompt's name" },
          arguments: { type: "object", additionalProperties: { type: "string" }, description: "the prompt's arguments by name" },
        },
        required: ["name"],
      },
      effect: "exec",
      async execute(input: v.InferOutput<typeof _PromptInput>, ctx) {
        const args = { ...input.arguments };
        if (input.positional && input.positional.length > 0) {
          const listed = await client().listPrompts(undefined, { signal: ctx.signal });
          const declared = listed.prompts.find((prompt) => prompt.name === input.name)?.arguments ?? [];
          declared.forEach((argument, index) => {
            const value = index === declared.length - 1 ? input.positional!.slice(index).join(" ") : input.positional![index];
            if (value) args[argument.name] ??= value;
          });
        }
        return renderPrompt(await client().getPrompt({ name: input.name, arguments: args }, { signal: ctx.signal }));
      },
    });
  }
  return tools;
}

/** A prompt's messages as one text: each message's text, separated by blank lines. */
export function renderPrompt(prompt: { messages: { role: string; content: McpContentPart }[] }): string {
  return prompt.messages.map((message) => renderCallResult({ content: [message.content] })).join("\n\n");
}
