/** MCP tools without a server: names, result text, the ToolDefinition around a listed tool, server entries. */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { checkServerName, checkServerUrl, describeTarget, serverKind } from "../../lib/extensions/mcp/servers.ts";
import { createMcpTool, renderCallResult, toMcpToolName, type McpCallResult } from "../../lib/extensions/mcp/tools.ts";
import { toToolSpec } from "../../lib/tools/schema.ts";
import type { ToolContext } from "../../lib/tools/types.ts";

const ctx: ToolContext = { root: "/", signal: new AbortController().signal, emitOutput: () => {}, callId: "call-1" };

describe("toMcpToolName", () => {
  test("joins server and tool with double underscores", () => {
    expect(toMcpToolName("memory", "read_graph")).toBe("mcp__memory__read_graph");
    expect(toMcpToolName("everything", "get-tiny-image")).toBe("mcp__everything__get-tiny-image");
  });

  test("replaces every character outside [A-Za-z0-9_-] with an underscore", () => {
    expect(toMcpToolName("fs", "files.read all/now")).toBe("mcp__fs__files_read_all_now");
    expect(toMcpToolName("fs", "résumé")).toBe("mcp__fs__r_sum_");
  });

  test("a name past 64 characters is cut and ends in a hash of the original names", () => {
    const long = "x".repeat(80);
    const name = toMcpToolName("server", long);
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^mcp__server__x{42}_[0-9a-f]{8}$/);
    expect(toMcpToolName("server", long)).toBe(name);
    expect(toMcpToolName("server", `${long}y`)).not.toBe(name);
    expect(toMcpToolName("server", `${long}y`)).toHaveLength(64);
  });

  test("a name already taken (two tools that sanitise alike) gets the hash suffix", () => {
    const first = toMcpToolName("fs", "read.file");
    expect(first).toBe("mcp__fs__read_file");
    const second = toMcpToolName("fs", "read file", new Set([first]));
    expect(second).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
    expect(second).not.toBe(toMcpToolName("fs", "read.file", new Set([first])));
  });
});

describe("renderCallResult", () => {
  test("text verbatim, binary parts as one-line placeholders, embedded text resources as their text", () => {
    const result: McpCallResult = {
      content: [
        { type: "text", text: "first line\nsecond line" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "the notes" } },
        { type: "resource", resource: { uri: "file:///blob.bin", mimeType: "application/octet-stream", blob: "AAECAw==" } },
        { type: "resource_link", uri: "file:///readme.md", name: "readme" },
        { type: "hologram", data: "?" },
      ],
    };
    expect(renderCallResult(result)).toBe(
      [
        "first line\nsecond line",
        "[image image/png, 8 bytes]",
        "[audio audio/wav, 3 bytes]",
        "the notes",
        "[resource file:///blob.bin application/octet-stream, 4 bytes]",
        "[resource link file:///readme.md (readme)]",
        "[hologram content]",
      ].join("\n"),
    );
  });

  test("structuredContent is the text when no part carries text", () => {
    expect(renderCallResult({ content: [], structuredContent: { temperature: 36, unit: "C" } })).toBe('{"temperature":36,"unit":"C"}');
    expect(renderCallResult({ content: [{ type: "image", data: "AAAA", mimeType: "image/gif" }], structuredContent: { ok: true } })).toBe(
      '[image image/gif, 3 bytes]\n{"ok":true}',
    );
    expect(renderCallResult({ content: [{ type: "text", text: "36 C" }], structuredContent: { temperature: 36 } })).toBe("36 C");
  });

  test("an empty result and the old toolResult shape", () => {
    expect(renderCallResult({ content: [] })).toBe("(no content)");
    expect(renderCallResult({ toolResult: { rows: 2 } })).toBe('{"rows":2}');
  });
});

describe("createMcpTool", () => {
  const listed = {
    name: "search",
    title: "Search the index",
    description: "  Finds documents.  ",
    inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  };

  test("passes the server's schema through (without $schema) and keeps the server's description", () => {
    const tool = createMcpTool("mcp__docs__search", listed, async () => ({ content: [] }));
    expect(toToolSpec(tool)).toEqual({
      name: "mcp__docs__search",
      description: "Finds documents.",
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    });
    expect([tool.set, tool.effect, tool.decision, tool.subjects, tool.paths]).toEqual([undefined, "exec", undefined, undefined, undefined]);
  });

  test("falls back to the title, then the name, for the description", () => {
    const { description: _d, ...untitled } = listed;
    expect(createMcpTool("a", untitled, async () => ({})).description).toBe("Search the index");
    const { title: _t, ...bare } = untitled;
    expect(createMcpTool("a", bare, async () => ({})).description).toBe("search");
  });

  test("any object passes shiro's check; the server validates the rest", () => {
    const tool = createMcpTool("a", listed, async () => ({}));
    expect(v.safeParse(tool.schema, { anything: [1, 2] }).success).toBe(true);
    expect(v.safeParse(tool.schema, {}).success).toBe(true);
    expect(v.safeParse(tool.schema, "text").success).toBe(false);
    expect(v.safeParse(tool.schema, [1]).success).toBe(false);
  });

  test("execute calls the server's tool by its own name with the arguments and the turn's signal", async () => {
    const calls: unknown[] = [];
    const tool = createMcpTool("mcp__docs__search", listed, async (name, args, signal) => {
      calls.push([name, args, signal]);
      return { content: [{ type: "text", text: "3 documents" }] };
    });
    expect(await tool.execute({ q: "cats" }, ctx)).toBe("3 documents");
    expect(calls).toEqual([["search", { q: "cats" }, ctx.signal]]);
  });

  test("an isError result throws its text, so the model reads an error", async () => {
    const failing = createMcpTool("a", listed, async () => ({ isError: true, content: [{ type: "text", text: "index is offline" }] }));
    await expect(failing.execute({ q: "x" }, ctx)).rejects.toThrow(new Error("index is offline"));
    const silent = createMcpTool("a", listed, async () => ({ isError: true, content: [] }));
    await expect(silent.execute({ q: "x" }, ctx)).rejects.toThrow(new Error("(no content)"));
  });
});

describe("server entries", () => {
  test("server names as Claude Code, Claude Desktop and Cursor allow them: letters, digits, _ . -, unique", () => {
    expect(checkServerName("")).toBe("a name is required");
    expect(checkServerName("  ")).toBe("a name is required");
    expect(checkServerName("my__server")).toBe("double underscores clash with the mcp__server__tool naming");
    for (const name of ["my.server", "my_server", "_private", "GitHub-2", "brave-search", "server.v2_beta"])
      expect({ name, problem: checkServerName(name) }).toEqual({ name, problem: undefined });
    for (const name of ["-server", ".hidden", "my server", "a/b", "ü", "x".repeat(65)])
      expect({ name, problem: checkServerName(name) }).toEqual({
        name,
        problem: name.length > 64 ? "at most 64 characters" : "use letters, digits, underscores, dots and hyphens only",
      });
    expect(checkServerName("GitHub-2", ["memory"])).toBeUndefined();
    expect(checkServerName("memory", ["memory"])).toBe("memory is already configured");
  });

  test("remote URLs must be http(s)", () => {
    expect(checkServerUrl("ftp://example.com")).toBe("the URL must start with http:// or https://");
    expect(checkServerUrl("example.com/mcp")).toBe("the URL must start with http:// or https://");
    expect(checkServerUrl("https://")).toBe('"https://" is not a valid URL');
    expect(checkServerUrl("https://example.com/mcp")).toBeUndefined();
  });

  test("the target line: a quoted command line, or the URL", () => {
    expect(describeTarget({ command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] })).toBe("npx -y @modelcontextprotocol/server-memory");
    expect(describeTarget({ command: "node", args: ["my server.js", ""] })).toBe('node "my server.js" ""');
    expect(describeTarget({ url: "https://example.com/mcp", type: "sse" })).toBe("https://example.com/mcp");
    expect([serverKind({ command: "x" }), serverKind({ url: "https://x.dev" })]).toEqual(["local", "remote"]);
  });
});
