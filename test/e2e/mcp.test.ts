/**
 * MCP through the binary: a configured server (the reference memory server, a real subprocess)
 * connects, its tools reach the request (in full up to 2,000 bytes, then as lines of load_tools), a call round-trips, the run log records the
 * connection; --no-mcp leaves it all out.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { RecordedRequest } from "../fakes/provider.ts";
import { parseEventLines, systemOf, toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();
const MEMORY_SERVER = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");
const toolNames = (request: RecordedRequest) =>
  (request.body.tools as { name?: string; function?: { name: string } }[]).map((tool) => tool.function?.name ?? tool.name!);

function configure(): string {
  const graph = join(e2e.dirs.home, "graph.jsonl");
  e2e.writeConfig({ mcpServers: { memory: { command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: graph } } } });
  return graph;
}

describe("MCP servers in a run", () => {
  test("a configured server's tools are offered, called, and its connection is logged", async () => {
    const graph = configure();
    e2e.fake.script(
      { toolCalls: [{ name: "mcp__memory__create_entities", input: { entities: [{ name: "shiro", entityType: "project", observations: ["remembers"] }] } }] },
      { text: "Stored." },
    );
    const result = await e2e.shiro(["-p", "store a fact", "--yolo", "--json"]);
    expect(result.code).toBe(0);
    const first = e2e.fake.requests[0]!;
    // Past 2,000 bytes of MCP schemas the rest are deferred to load_tools; a direct call still runs.
    const wireTools = first.body.tools as { name?: string; function?: { name: string; description: string }; description?: string }[];
    const mcpBytes = wireTools
      .filter((tool) => (tool.function?.name ?? tool.name!).startsWith("mcp__"))
      .reduce((sum, tool) => sum + JSON.stringify(tool).length, 0);
    expect(mcpBytes).toBeLessThanOrEqual(2_000 + 200);
    const loader = wireTools.find((tool) => (tool.function?.name ?? tool.name) === "load_tools")!;
    const listed = (loader.function?.description ?? loader.description)!
      .split("\n")
      .find((line) => line.startsWith("- MCP server memory, as mcp__memory__<name>: "))!;
    for (const name of ["create_entities", "read_graph", "search_nodes", "open_nodes"]) {
      expect(toolNames(first).includes(`mcp__memory__${name}`) || listed.includes(`${name}: `)).toBe(true);
    }
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain('"name": "shiro"');
    expect(readFileSync(graph, "utf8")).toContain('"name":"shiro"');
    const events = parseEventLines(result.stdout);
    expect(events.find((event) => event.type === "mcp")).toMatchObject({ type: "mcp", server: "memory", status: "connected", tools: 9 });
  }, 30_000);

  test("without --yolo an MCP call asks, so headless denies it; --no-mcp connects nothing and offers nothing", async () => {
    configure();
    e2e.fake.script({ toolCalls: [{ name: "mcp__memory__read_graph", input: {} }] }, { text: "ok" }, { text: "no mcp" });
    expect((await e2e.shiro(["-p", "read it"])).code).toBe(0);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain("--yolo");
    const off = await e2e.shiro(["-p", "hi", "--no-mcp"]);
    expect(off.code).toBe(0);
    expect(toolNames(e2e.fake.requests[2]!).some((name) => name.startsWith("mcp__"))).toBe(false);
    expect(systemOf(e2e.fake.requests[2]!)).not.toContain("MCP");
    expect(off.stderr).toContain("mcp: 1 configured, not connected (--no-mcp)");
  }, 30_000);
});
