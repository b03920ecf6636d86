/**
 * MCP through the binary: a configured server (the reference memory server, a real subprocess)
 * connects, its tools reach the request (in full up to 2,000 bytes, then as lines of load_tools), a call round-trips, the run log records the
 * connection; --no-mcp leaves it all out.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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
    expect(events.find((event) => event.type === "mcp")).toMatchObject({ type: "mcp", server: "memory", status: "connected", tools: 11 });
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

/** Seconds the slow server sleeps on its first launch (SHIRO_TEST_MCP_DELAY_MS, bounded to 30 s). */
const SLOW_MS = Math.min(Number(process.env.SHIRO_TEST_MCP_DELAY_MS ?? 20_000), 30_000);

describe("MCP servers as other clients configure them", () => {
  test(
    `a server that takes ${SLOW_MS / 1000} s on its first launch connects; headless sends its first request without waiting, its tools join later`,
    async () => {
      const marker = join(e2e.dirs.home, "installed");
      const wrapper = join(e2e.dirs.home, "slow-server.mjs");
      // The model's one tool call blocks on this FIFO until the server has sent its tool list.
      const listed = join(e2e.dirs.cwd, "listed.fifo");
      expect(spawnSync("mkfifo", [listed]).status).toBe(0);
      // The first launch sleeps as `npx` does while it installs; later launches start at once.
      writeFileSync(
        wrapper,
        [
          `import { existsSync, writeFileSync } from "node:fs";`,
          `if (!existsSync(${JSON.stringify(marker)})) { await new Promise((r) => setTimeout(r, ${SLOW_MS})); writeFileSync(${JSON.stringify(marker)}, "x"); }`,
          `const write = process.stdout.write.bind(process.stdout);`,
          `process.stdout.write = (chunk, ...rest) => {`,
          `  const done = typeof rest.at(-1) === "function" ? rest.pop() : undefined;`,
          `  return write(chunk, ...rest, (error) => {`,
          `    done?.(error);`,
          `    if (String(chunk).includes('"tools":[')) writeFileSync(${JSON.stringify(listed)}, "listed\\n");`,
          `  });`,
          `};`,
          `await import(${JSON.stringify(MEMORY_SERVER)});`,
        ].join("\n"),
      );
      e2e.writeConfig({
        mcpServers: { slow_memory: { type: "stdio", command: process.execPath, args: [wrapper], env: { MEMORY_FILE_PATH: join(e2e.dirs.home, "g.jsonl") } } },
      });
      e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "cat listed.fifo", timeout: SLOW_MS + 30_000 } }] }, { text: "done" });
      const result = await e2e.shiro(["-p", "wait a bit", "--yolo", "--json"], { timeoutMs: SLOW_MS + 30_000 });
      expect(result.code).toBe(0);
      const offered = (request: RecordedRequest) => JSON.stringify(request.body.tools).includes("mcp__slow_memory__");
      expect([offered(e2e.fake.requests[0]!), offered(e2e.fake.requests[1]!)]).toEqual([false, true]);
      const events = parseEventLines(result.stdout);
      expect(events.find((event) => event.type === "notice" && String(event.text).includes("slow_memory still connecting"))).toBeDefined();
      expect(events.find((event) => event.type === "mcp")).toMatchObject({ server: "slow_memory", status: "connected", tools: 11 });
      expect(existsSync(marker)).toBe(true);
      expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain("listed");
    },
    SLOW_MS + 40_000,
  );

  test("a Claude Desktop entry with type, disabled, alwaysAllow and ${VAR} loads: the variable expanded, the allowed tool runs without --yolo, the disabled one never starts", async () => {
    const graph = join(e2e.dirs.home, "graph.jsonl");
    e2e.writeConfig({
      mcpServers: {
        memory: {
          type: "stdio",
          command: "${SHIRO_TEST_RUNTIME}",
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: "${SHIRO_TEST_GRAPH}", UNUSED: "${NOT_SET_ANYWHERE:-fallback}" },
          alwaysAllow: ["read_graph"],
        },
        off: { command: "/nonexistent/never-started", disabled: true },
      },
    });
    e2e.fake.script({ toolCalls: [{ name: "mcp__memory__read_graph", input: {} }] }, { text: "ok" });
    const result = await e2e.shiro(["-p", "read the graph", "--json"], { env: { SHIRO_TEST_RUNTIME: process.execPath, SHIRO_TEST_GRAPH: graph } });
    expect(result.code).toBe(0);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain('"entities"');
    const mcpEvents = parseEventLines(result.stdout).filter((event) => event.type === "mcp");
    expect(mcpEvents.map((event) => [event.server, event.status])).toEqual([["memory", "connected"]]);
  }, 30_000);

  test("a Gemini CLI entry with trust and excludeTools loads: its tools run without --yolo, the excluded one is not offered", async () => {
    const graph = join(e2e.dirs.home, "graph.jsonl");
    e2e.writeConfig({
      mcpServers: {
        memory: {
          command: process.execPath,
          args: [MEMORY_SERVER],
          env: { MEMORY_FILE_PATH: graph },
          timeout: 30000,
          trust: true,
          excludeTools: ["delete_entities"],
        },
      },
    });
    e2e.fake.script({ toolCalls: [{ name: "mcp__memory__read_graph", input: {} }] }, { text: "ok" });
    const result = await e2e.shiro(["-p", "read the graph", "--json"]);
    expect(result.code).toBe(0);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain('"entities"');
    expect(JSON.stringify(e2e.fake.requests[0]!.body.tools)).toContain("read_graph");
    expect(JSON.stringify(e2e.fake.requests[0]!.body.tools)).not.toContain("delete_entities");
    expect(parseEventLines(result.stdout).find((event) => event.type === "mcp")).toMatchObject({ server: "memory", status: "connected", tools: 10 });
  }, 30_000);
});
