/**
 * The MCP hub against the reference servers from npm, run as real subprocesses (stdio) and as
 * real HTTP servers on 127.0.0.1. Every local server is started with a preload that records its
 * pid, so each test can check that no server process outlives `close()`.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpHub, type McpHub, type McpServerStatus } from "../../lib/extensions/mcp/hub.ts";
import { type McpServerConfig } from "../../lib/extensions/mcp/servers.ts";
import type { ToolContext, ToolDefinition } from "../../lib/tools/types.ts";

const MEMORY_SERVER = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
const EVERYTHING_SERVER = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");

let dir: string;
let preload: string;
const hubs: McpHub[] = [];
const spawned: Bun.Subprocess[] = [];

const savedHome = process.env.SHIRO_HOME;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-mcp-hub-"));
  // What the hub learns (connect times, lib/store/learned.ts) lands in this test's folder.
  process.env.SHIRO_HOME = dir;
  preload = join(dir, "record-pid.js");
  writeFileSync(preload, 'require("node:fs").appendFileSync(process.env.SHIRO_TEST_PID_FILE, `${process.pid}\\n`);\n');
});
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  for (const child of spawned.splice(0)) {
    child.kill("SIGKILL");
    await child.exited;
  }
  rmSync(dir, { recursive: true, force: true });
  if (savedHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = savedHome;
});

function openHub(servers: Record<string, McpServerConfig>, connectTimeoutMs?: number): { hub: McpHub; changes: McpServerStatus[] } {
  const hub = createMcpHub(servers, { cwd: dir, clientName: "shiro-test", clientVersion: "0.0.0", connectTimeoutMs });
  hubs.push(hub);
  const changes: McpServerStatus[] = [];
  hub.onChange((status) => changes.push(status));
  return { hub, changes };
}

/** A local server run by bun with the pid-recording preload; its pid lands in `<dir>/<name>.pid`. */
function local(name: string, script: string[], env: Record<string, string> = {}): McpServerConfig {
  return { command: process.execPath, args: ["--preload", preload, ...script], env: { SHIRO_TEST_PID_FILE: join(dir, `${name}.pid`), ...env } };
}

function pidOf(name: string): number {
  return Number(
    readFileSync(join(dir, `${name}.pid`), "utf8")
      .trim()
      .split("\n")[0],
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function context(signal = new AbortController().signal): ToolContext {
  return { root: dir, signal, emitOutput: () => {}, callId: "call-1" };
}

function toolNamed(hub: McpHub, name: string): ToolDefinition {
  const tool = hub.tools().find((candidate) => candidate.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name} among ${hub
        .tools()
        .map((t) => t.name)
        .join(", ")}`,
    );
  return tool;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** Starts server-everything in an HTTP mode on 127.0.0.1; resolves once it says it listens. */
async function startEverythingOverHttp(mode: "streamableHttp" | "sse", fixedPort?: number): Promise<number> {
  const port = fixedPort ?? (await freePort());
  const child = Bun.spawn([process.execPath, EVERYTHING_SERVER, mode], {
    env: { ...process.env, PORT: String(port) },
    stdout: "ignore",
    stderr: "pipe",
    timeout: 25_000,
    killSignal: "SIGKILL",
  });
  spawned.push(child);
  const reader = child.stderr.getReader();
  let seen = "";
  while (!/listening on port|running on port/i.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything ${mode} exited before listening: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  void child.stderr.pipeTo(new WritableStream());
  return port;
}

const MEMORY_TOOLS = [
  "mcp__memory__add_observations",
  "mcp__memory__create_entities",
  "mcp__memory__create_relations",
  "mcp__memory__delete_entities",
  "mcp__memory__delete_observations",
  "mcp__memory__delete_relations",
  "mcp__memory__list_resources",
  "mcp__memory__open_nodes",
  "mcp__memory__read_graph",
  "mcp__memory__read_resource",
  "mcp__memory__search_nodes",
];

describe("stdio servers", () => {
  test("server-memory: tools named mcp__memory__*, create_entities then read_graph, process gone after close", async () => {
    const graphFile = join(dir, "graph.jsonl");
    const { hub, changes } = openHub({ memory: local("memory", [MEMORY_SERVER], { MEMORY_FILE_PATH: graphFile }) });
    expect(hub.tools()).toEqual([]);
    hub.start();
    await hub.ready();

    expect(
      hub
        .tools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(MEMORY_TOOLS);
    expect(
      hub.tools().every((tool) => tool.set === undefined && tool.effect === "exec" && tool.decision === undefined && tool.jsonSchema?.type === "object"),
    ).toBe(true);
    const target = `${process.execPath} --preload ${preload} ${MEMORY_SERVER}`;
    expect(hub.status()).toEqual([{ name: "memory", kind: "local", target, state: "connected", tools: 11 }]);

    const entity = { name: "shiro", entityType: "project", observations: ["written in TypeScript"] };
    await toolNamed(hub, "mcp__memory__create_entities").execute({ entities: [entity] }, context());
    const graph = JSON.parse(await toolNamed(hub, "mcp__memory__read_graph").execute({}, context()));
    expect(graph).toEqual({ entities: [entity], relations: [] });
    // The env entry reached the server (merged over the inherited environment): it wrote there.
    expect(readFileSync(graphFile, "utf8")).toContain('"name":"shiro"');

    const pid = pidOf("memory");
    expect(isAlive(pid)).toBe(true);
    await hub.close();
    expect(isAlive(pid)).toBe(false);
    expect(hub.tools()).toEqual([]);
    expect(changes).toEqual([
      { name: "memory", kind: "local", target, state: "connected", tools: 11 },
      { name: "memory", kind: "local", target, state: "closed", tools: 0 },
    ]);
  });

  test("server-everything: echo, an error result, an image, an embedded resource, abort", async () => {
    const { hub } = openHub({ everything: local("everything", [EVERYTHING_SERVER, "stdio"]) });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]?.state).toBe("connected");

    expect(await toolNamed(hub, "mcp__everything__echo").execute({ message: "hello over stdio" }, context())).toBe("Echo: hello over stdio");
    await expect(toolNamed(hub, "mcp__everything__get-resource-reference").execute({ resourceType: "Text", resourceId: -1 }, context())).rejects.toThrow(
      new Error("Invalid resourceId: -1. Must be a finite positive integer."),
    );
    expect(await toolNamed(hub, "mcp__everything__get-tiny-image").execute({}, context())).toBe(
      "Here's the image you requested:\n[image image/png, 4033 bytes]\nThe image above is the MCP logo.",
    );
    const reference = await toolNamed(hub, "mcp__everything__get-resource-reference").execute({ resourceType: "Text", resourceId: 1 }, context());
    expect(reference.split("\n")[0]).toBe("Returning resource reference for Resource 1:");
    expect(reference.split("\n")[1]).toStartWith("Resource 1: This is a plaintext resource");

    // A 60 s operation: only the abort can end it within the test's time limit.
    const controller = new AbortController();
    const running = toolNamed(hub, "mcp__everything__trigger-long-running-operation").execute({ duration: 60, steps: 2 }, context(controller.signal));
    setTimeout(() => controller.abort(), 200);
    await expect(running).rejects.toThrow(/abort/i);

    const pid = pidOf("everything");
    await hub.close();
    expect(isAlive(pid)).toBe(false);
  });

  test("a command that does not exist fails with a message; the other server still connects", async () => {
    const { hub, changes } = openHub({
      missing: { command: "shiro-test-no-such-command", args: ["--stdio"] },
      memory: local("memory", [MEMORY_SERVER], { MEMORY_FILE_PATH: join(dir, "graph.jsonl") }),
    });
    hub.start();
    await hub.ready();
    expect(hub.status().map(({ target: _target, ...status }) => status)).toEqual([
      { name: "missing", kind: "local", state: "failed", tools: 0, error: "command not found: shiro-test-no-such-command" },
      { name: "memory", kind: "local", state: "connected", tools: 11 },
    ]);
    expect(changes.find((change) => change.name === "missing")).toEqual({
      name: "missing",
      kind: "local",
      target: "shiro-test-no-such-command --stdio",
      state: "failed",
      tools: 0,
      error: "command not found: shiro-test-no-such-command",
    });
    expect(
      hub
        .tools()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(MEMORY_TOOLS);
  });

  test("a server that never answers the handshake fails after the timeout, and its process is ended", async () => {
    const { hub } = openHub({ silent: local("silent", ["-e", "setInterval(() => {}, 1000)"]) }, 500);
    hub.start();
    expect(hub.status()[0]?.state).toBe("connecting");
    await hub.ready();
    expect(hub.status()[0]).toMatchObject({ state: "failed", error: "no answer within 0.5 s" });
    const pid = pidOf("silent");
    await hub.close();
    expect(isAlive(pid)).toBe(false);
    expect(hub.status()[0]).toMatchObject({ state: "failed", error: "no answer within 0.5 s" });
  });

  test("a server that exits at start fails with the last line it wrote to stderr", async () => {
    const { hub } = openHub({ crashing: { command: process.execPath, args: ["-e", "console.error('GITHUB_TOKEN is not set'); process.exit(3)"] } });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]).toMatchObject({ state: "failed", error: "MCP error -32000: Connection closed (stderr: GITHUB_TOKEN is not set)" });
  });

  test("a server that ends the connection later is closed and its tools leave", async () => {
    const { hub, changes } = openHub({ memory: local("memory", [MEMORY_SERVER], { MEMORY_FILE_PATH: join(dir, "graph.jsonl") }) });
    hub.start();
    await hub.ready();
    const readGraph = toolNamed(hub, "mcp__memory__read_graph");
    const pid = pidOf("memory");
    const closed = new Promise<void>((done) => hub.onChange((status) => status.state === "closed" && done()));
    process.kill(pid, "SIGKILL");
    await closed;
    expect(hub.tools()).toEqual([]);
    expect(changes.map((change) => change.state)).toEqual(["connected", "closed"]);
    await expect(readGraph.execute({}, context())).rejects.toThrow(new Error("MCP server memory is not connected (closed)"));
  });

  test("an invalid server name fails without starting anything", async () => {
    const { hub } = openHub({ "my server": { command: "shiro-test-never-run" } });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]).toMatchObject({ state: "failed", error: "invalid server name: use letters, digits, underscores, dots and hyphens only" });
  });

  test("before start(): nothing connects, ready() resolves at once, every server reads closed", async () => {
    const { hub, changes } = openHub({ memory: local("memory", [MEMORY_SERVER]) });
    await hub.ready();
    expect(hub.status()).toEqual([
      { name: "memory", kind: "local", target: `${process.execPath} --preload ${preload} ${MEMORY_SERVER}`, state: "closed", tools: 0 },
    ]);
    await hub.close();
    hub.start();
    await hub.ready();
    expect([hub.tools(), changes]).toEqual([[], []]);
  });
});

describe("remote servers", () => {
  test("streamable HTTP (server-everything): connect, echo, close", async () => {
    const port = await startEverythingOverHttp("streamableHttp");
    const { hub } = openHub({ web: { url: `http://127.0.0.1:${port}/mcp` } });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]).toMatchObject({ kind: "remote", target: `http://127.0.0.1:${port}/mcp`, state: "connected" });
    expect(await toolNamed(hub, "mcp__web__echo").execute({ message: "over http" }, context())).toBe("Echo: over http");
    await hub.close();
    expect(hub.status()[0]).toMatchObject({ state: "closed", tools: 0 });
  });

  test("a streamable HTTP server that restarted is reconnected once, and the call goes through", async () => {
    const port = await startEverythingOverHttp("streamableHttp");
    const { hub, changes } = openHub({ web: { url: `http://127.0.0.1:${port}/mcp` } });
    hub.start();
    await hub.ready();
    expect(await toolNamed(hub, "mcp__web__echo").execute({ message: "before" }, context())).toBe("Echo: before");
    const first = spawned.pop()!;
    first.kill("SIGKILL");
    await first.exited;
    await startEverythingOverHttp("streamableHttp", port);
    expect(await toolNamed(hub, "mcp__web__echo").execute({ message: "after" }, context())).toBe("Echo: after");
    expect(await toolNamed(hub, "mcp__web__echo").execute({ message: "again" }, context())).toBe("Echo: again");
    expect(hub.status()[0]?.state).toBe("connected");
    expect(changes.filter((change) => change.state === "failed")).toEqual([]);
  });

  test("SSE (server-everything): connect and echo", async () => {
    const port = await startEverythingOverHttp("sse");
    const { hub } = openHub({ old: { url: `http://127.0.0.1:${port}/sse`, type: "sse" } });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]?.state).toBe("connected");
    expect(await toolNamed(hub, "mcp__old__echo").execute({ message: "over sse" }, context())).toBe("Echo: over sse");
  });

  test("a bare url (Gemini CLI's spelling of an SSE server) that refuses the streamable POST connects over SSE", async () => {
    const port = await startEverythingOverHttp("sse");
    const { hub } = openHub({ gemini: { url: `http://127.0.0.1:${port}/sse` } });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]).toMatchObject({ state: "connected" });
    expect(await toolNamed(hub, "mcp__gemini__echo").execute({ message: "fell back" }, context())).toBe("Echo: fell back");
  });

  test("a bare url that refuses both transports fails with the streamable HTTP status and the SSE reason", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("no such endpoint", { status: 404 }) });
    try {
      const { hub } = openHub({ gone: { url: `http://127.0.0.1:${server.port}/mcp` } });
      hub.start();
      await hub.ready();
      expect(hub.status()[0]).toMatchObject({ state: "failed" });
      expect(hub.status()[0]!.error).toMatch(/\(HTTP 404\); over SSE: .*404/);
    } finally {
      server.stop(true);
    }
  });

  test('type "http" never falls back: the same SSE server fails with the HTTP status', async () => {
    const port = await startEverythingOverHttp("sse");
    const { hub } = openHub({ strict: { url: `http://127.0.0.1:${port}/sse`, type: "http" } });
    hub.start();
    await hub.ready();
    expect(hub.status()[0]).toMatchObject({ state: "failed" });
    expect(hub.status()[0]!.error).toMatch(/HTTP 4\d\d/);
  });

  test("configured headers go with the requests; a refusing server fails with a message", async () => {
    const seen: (string | null)[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        seen.push(request.headers.get("authorization"));
        return new Response("no entry", { status: 401 });
      },
    });
    try {
      const { hub } = openHub({ locked: { url: `http://127.0.0.1:${server.port}/mcp`, headers: { Authorization: "Bearer test-token" } } });
      hub.start();
      await hub.ready();
      expect(hub.status()[0]).toMatchObject({ state: "failed", error: "Streamable HTTP error: Error POSTing to endpoint: no entry (HTTP 401)" });
      expect(seen).toEqual(["Bearer test-token"]);
    } finally {
      server.stop(true);
    }
  });
});

describe("entries as other clients write them", () => {
  test("${VAR} and ${VAR:-default} are expanded in command, args and env; a missing variable fails naming it; stderr explains a broken start", async () => {
    const env = { SHIRO_T_RUNTIME: process.execPath, SHIRO_T_EMPTY: "" };
    const hub = createMcpHub(
      {
        memory: {
          type: "stdio",
          command: "${SHIRO_T_RUNTIME}",
          args: ["${SHIRO_T_SCRIPT:-" + MEMORY_SERVER + "}"],
          env: { MEMORY_FILE_PATH: join(dir, "${SHIRO_T_EMPTY:-g}.jsonl") },
        },
        missing: { command: "${SHIRO_T_NOT_SET}" },
        broken: { command: process.execPath, args: ["-e", "console.error('Cannot find package zod'); process.exit(1)"] },
        off: { command: "/nonexistent", disabled: true },
        codex_off: { command: "/nonexistent", enabled: false },
      },
      { cwd: dir, env },
    );
    hubs.push(hub);
    hub.start();
    await hub.ready();
    const byName = Object.fromEntries(hub.status().map((status) => [status.name, status]));
    expect(Object.keys(byName)).toEqual(["memory", "missing", "broken"]);
    expect(byName.memory).toMatchObject({ state: "connected", tools: 11 });
    expect(byName.missing).toMatchObject({
      state: "failed",
      error: "environment variable SHIRO_T_NOT_SET is not set (referenced as ${SHIRO_T_NOT_SET}); set it or write ${SHIRO_T_NOT_SET:-default}",
    });
    expect(byName.broken!.state).toBe("failed");
    expect(byName.broken!.error).toContain("(stderr: Cannot find package zod)");
  });
});

describe("resources, prompts and progress", () => {
  test("server-everything: resources listed and read, a prompt filled in order, progress notifications reach the call's output", async () => {
    const { hub } = openHub({ everything: local("everything", [EVERYTHING_SERVER, "stdio"]) });
    hub.start();
    await hub.ready();
    const listed = await toolNamed(hub, "mcp__everything__list_resources").execute({}, context());
    const first = listed.split("\n")[0]!.split("  ")[0]!;
    expect(first).toMatch(/^demo:\/\//);
    const read = await toolNamed(hub, "mcp__everything__read_resource").execute({ uri: "demo://resource/dynamic/text/1" }, context());
    expect(read).toContain("Resource 1");
    const prompt = await toolNamed(hub, "mcp__everything__get_prompt").execute(
      { name: "args-prompt", arguments: {}, positional: ["Portland", "Oregon"] },
      context(),
    );
    expect(prompt).toBe("What's weather in Portland, Oregon?");
    const prompts = hub.status()[0]!.prompts!;
    expect(prompts.map((entry) => entry.name)).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt", "resource-prompt"]));
    expect(prompts.find((entry) => entry.name === "args-prompt")!.description).toBeString();
    const output: string[] = [];
    const done = await toolNamed(hub, "mcp__everything__trigger-long-running-operation").execute(
      { duration: 0.9, steps: 3 },
      { ...context(), emitOutput: (chunk) => output.push(chunk) },
    );
    expect(done).toContain("completed");
    // The SDK hands a progress notification to its handler a microtask late, after a response read
    // in the same chunk has ended the call, so on a loaded machine the last steps can be dropped:
    // what arrives is the steps in order, from the first (300 ms before the response).
    expect(output.length).toBeGreaterThan(0);
    expect(output).toEqual(["progress 1/3\n", "progress 2/3\n", "progress 3/3\n"].slice(0, output.length));
  });
});
