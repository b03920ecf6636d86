/**
 * The request budget through the binary, per protocol: the whole first request of a default
 * `shiro -p "hi"` in an empty git repository, as the fake provider received it, is at most 9,000
 * bytes with every default capability still reachable (sent in full or listed by load_tools); a
 * deferred tool is loaded and called in a later step; a tool a headless run withholds, called
 * anyway, is refused with the headless reason. Which tools each flag and rule offers is asserted
 * in-process (test/unit/offered-tools.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { systemOf, toolResultsOf, useE2E } from "./_harness.ts";

const PROTOCOLS = ["chat", "responses", "anthropic"] as const;
const e2e = useE2E();

const toolNamesOf = (request: { body: any }): string[] => ((request.body.tools ?? []) as any[]).map((tool) => String(tool.name ?? tool.function?.name));
const descriptionOf = (request: { body: any }, name: string): string => {
  const tool = ((request.body.tools ?? []) as any[]).find((t) => (t.name ?? t.function?.name) === name);
  return String(tool?.description ?? tool?.function?.description ?? "");
};
/** Names listed one per line ("- a, b: purpose") in load_tools' description. */
const deferredOf = (request: { body: any }): string[] =>
  descriptionOf(request, "load_tools")
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .flatMap((line) => line.slice(2).split(":")[0]!.split(", "));

const READ_CAPABILITIES = [
  "read_file",
  "glob",
  "grep",
  "list_dir",
  "read_many_files",
  "git_status",
  "git_diff",
  "git_log",
  "git_show",
  "git_blame",
  "git_branch",
  "git_commit_message",
  "todo_write",
  "remember",
  "recall",
  "forget",
  "recall_discarded",
  "task",
  "skill",
  "current_time",
];
const ASKING = ["write_file", "edit_file", "bash", "multi_edit", "apply_patch", "move_file", "delete_file"];

for (const protocol of PROTOCOLS) {
  describe(`request budget over ${protocol}`, () => {
    test("the first request of `shiro -p hi` is at most 9,000 bytes, and every default capability is reachable", async () => {
      spawnSync("git", ["init", "-q"], { cwd: e2e.dirs.cwd });
      e2e.fake.script({ text: "hello" });
      const result = await e2e.shiro(["-p", "hi"], { protocol });
      expect(result.code).toBe(0);
      const [first] = e2e.fake.requests;
      expect(Buffer.byteLength(JSON.stringify(first!.body))).toBeLessThanOrEqual(9_000);
      const reachable = new Set([...toolNamesOf(first!), ...deferredOf(first!)]);
      for (const name of READ_CAPABILITIES) expect(reachable.has(name) ? name : `${name} unreachable`).toBe(name);
      for (const name of ASKING) expect(reachable.has(name) ? `${name} offered` : name).toBe(name);
      // The prompt does not restate what the schemas say.
      const system = systemOf(first!);
      for (const name of toolNamesOf(first!)) expect(system).not.toContain(descriptionOf(first!, name).slice(0, 40));
      expect(system).not.toContain("- read_file:");
    });

    test("with --yolo the asking tools are offered too, and the request stays within 9,000 bytes", async () => {
      spawnSync("git", ["init", "-q"], { cwd: e2e.dirs.cwd });
      e2e.fake.script({ text: "hello" });
      expect((await e2e.shiro(["-p", "hi", "--yolo"], { protocol })).code).toBe(0);
      const [first] = e2e.fake.requests;
      expect(Buffer.byteLength(JSON.stringify(first!.body))).toBeLessThanOrEqual(9_000);
      const reachable = new Set([...toolNamesOf(first!), ...deferredOf(first!)]);
      for (const name of [...READ_CAPABILITIES, ...ASKING]) expect(reachable.has(name) ? name : `${name} unreachable`).toBe(name);
    });

    test("a deferred tool is loaded by name, sent in full from the next step, and called", async () => {
      spawnSync("git", ["init", "-q"], { cwd: e2e.dirs.cwd });
      e2e.fake.script(
        { toolCalls: [{ name: "load_tools", input: { names: ["git_status"] } }] },
        { toolCalls: [{ name: "git_status", input: {} }] },
        { text: "clean" },
      );
      const result = await e2e.shiro(["-p", "status?"], { protocol });
      expect(result.code).toBe(0);
      const [first, second, third] = e2e.fake.requests;
      expect(toolNamesOf(first!)).not.toContain("git_status");
      expect(deferredOf(first!)).toContain("git_status");
      expect(toolResultsOf(second!).map((r) => r.output)).toEqual(["Loaded git_status: call them from your next step."]);
      expect(toolNamesOf(second!)).toContain("git_status");
      expect(deferredOf(second!)).not.toContain("git_status");
      const [, status] = toolResultsOf(third!);
      expect(status!.output).not.toContain("Unknown tool");
      expect(status!.output).toContain("working tree clean");
    });
  });
}

describe("MCP past the schema budget", () => {
  const server = (name: string) => createRequire(import.meta.url).resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
  test("with the three reference servers the first request is at most 12,000 bytes; each MCP tool is sent in full or listed by its server", async () => {
    spawnSync("git", ["init", "-q"], { cwd: e2e.dirs.cwd });
    e2e.writeConfig({
      mcpServers: {
        memory: { command: process.execPath, args: [server("memory")], env: { MEMORY_FILE_PATH: join(e2e.dirs.home, "graph.jsonl") } },
        filesystem: { command: process.execPath, args: [server("filesystem"), e2e.dirs.cwd] },
        everything: { command: process.execPath, args: [server("everything")] },
      },
    });
    // A first start is not waited for; once each has connected (here through `mcp list`), headless holds its first request for them.
    expect((await e2e.shiro(["mcp", "list"], { timeoutMs: 60_000 })).code).toBe(0);
    e2e.fake.script({ text: "hello" });
    const result = await e2e.shiro(["-p", "hi", "--yolo", "--json"], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const connected = result.stdout.split("\n").filter((line) => line.includes('"type":"mcp"') && line.includes('"connected"'));
    expect(connected.length).toBe(3);
    const [first] = e2e.fake.requests;
    // The servers' resources and prompts add five tools (list_resources, read_resource, get_prompt), listed by name alone.
    expect(Buffer.byteLength(JSON.stringify(first!.body))).toBeLessThanOrEqual(12_000);
    const full = toolNamesOf(first!).filter((name) => name.startsWith("mcp__"));
    const mcpBytes = ((first!.body.tools ?? []) as any[])
      .filter((tool) => full.includes(tool.function.name))
      .reduce((sum, tool) => sum + JSON.stringify(tool.function).length, 0);
    expect(mcpBytes).toBeLessThanOrEqual(2_300);
    const lines = descriptionOf(first!, "load_tools").split("\n");
    for (const name of ["filesystem", "everything"])
      expect(lines.some((line) => line.startsWith(`- MCP server ${name}, as mcp__${name}__<name>: `))).toBe(true);
    expect(lines.find((line) => line.startsWith("- MCP server filesystem"))).toContain("list_allowed_directories: ");
    expect(lines.find((line) => line.startsWith("- MCP server everything"))).toEndWith("; list_resources, read_resource, get_prompt");
    expect(lines.find((line) => line.startsWith("- MCP server memory"))).toEndWith("; list_resources, read_resource");
  }, 90_000);
});

describe("offer only what can run", () => {
  test("load_tools by query loads every match; a miss says what can be loaded", async () => {
    spawnSync("git", ["init", "-q"], { cwd: e2e.dirs.cwd });
    e2e.fake.script(
      { toolCalls: [{ name: "load_tools", input: { query: "nothing-matches-this" } }] },
      { toolCalls: [{ name: "load_tools", input: { query: "git" } }] },
      { text: "ok" },
    );
    expect((await e2e.shiro(["-p", "go"])).code).toBe(0);
    const [miss] = toolResultsOf(e2e.fake.requests[1]!);
    expect(miss!.output).toContain('Nothing loaded: nothing matches "nothing-matches-this". Loadable: list_dir,');
    const offered = toolNamesOf(e2e.fake.requests[2]!);
    for (const name of ["git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch", "git_commit_message"]) expect(offered).toContain(name);
  });

  // Which of bash and write_file each flag or rule offers is asserted in-process: test/unit/offered-tools.test.ts.

  test("a withheld tool called anyway is refused with the headless reason, not as unknown", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "touch x" } }] }, { text: "ok" });
    const result = await e2e.shiro(["-p", "go"]);
    expect(result.code).toBe(0);
    const [denied] = toolResultsOf(e2e.fake.requests[1]!);
    expect(denied!.output).toContain("--yolo");
    expect(denied!.output).not.toContain("Unknown tool");
  });
});
