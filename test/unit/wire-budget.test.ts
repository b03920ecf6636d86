/**
 * The fixed cost of every request, in-process: what the deferral sends of the default tool sets
 * plus the system prompt (test/e2e/request-budget.test.ts measures the whole request as sent),
 * and load_tools: names, queries, misses.
 */
import { expect, test } from "bun:test";
import { buildSystemPrompt } from "../../lib/agent/prompt.ts";
import { createToolDeferral, describeDeferred } from "../../lib/agent/context/tool-deferral.ts";
import { createCapabilityTools } from "../../lib/extensions/mcp/resources.ts";
import { defaultPermission, mayAllow, parsePermissionRules } from "../../lib/approval/rules.ts";
import { builtinTools, selectTools } from "../../lib/tools/index.ts";
import { toToolSpec } from "../../lib/tools/schema.ts";

test("default tool schemas + system prompt < 9,000 bytes", () => {
  const { offered } = selectTools(builtinTools({ complete: async () => "" }), {});
  const toolBytes = offered.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify(toToolSpec(tool))), 0);
  const prompt = buildSystemPrompt({
    root: "/home/someone/projects/a-typical-project",
    platform: "linux-x64",
    tools: offered,
    approvalTools: ["write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file", "bash"],
  });
  expect(offered.map((tool) => tool.set)).not.toContain("net");
  expect(toolBytes + Buffer.byteLength(prompt)).toBeLessThan(9_000);
});

test("a withheld tool is absent from the prompt as well as from the tool list", () => {
  const { offered } = selectTools(builtinTools({ complete: async () => "" }), { toolSets: [] });
  const prompt = buildSystemPrompt({ root: "/r", platform: "linux-x64", tools: offered, approvalTools: [] });
  expect(offered.map((tool) => tool.name).sort()).toEqual(["bash", "edit_file", "glob", "grep", "read_file", "write_file"]);
  for (const name of ["git_status", "multi_edit", "list_dir", "web_fetch", "apply_patch"]) expect(prompt).not.toContain(name);
});

test("deferred: the core tools go in full, the rest as load_tools lines, and a loaded tool joins from the next offer", async () => {
  const { offered } = selectTools(builtinTools({ complete: async () => "" }), {});
  const deferral = createToolDeferral();
  const first = deferral.offer(offered);
  expect(first.map((tool) => tool.name)).toEqual(["read_file", "write_file", "edit_file", "glob", "grep", "bash", "load_tools"]);
  const loader = first.at(-1)!;
  expect(loader.description).toContain("- git_status, git_diff, git_log, git_show, git_blame, git_branch: read-only git");
  expect(loader.description).toContain("- apply_patch: ");
  const ctx = { root: "/", signal: new AbortController().signal, emitOutput: () => undefined, callId: "c" };
  expect(await loader.execute({ names: ["apply_patch", "nope"] }, ctx)).toBe("Loaded apply_patch: call them from your next step. Unknown, skipped: nope.");
  expect(deferral.offer(offered).map((tool) => tool.name)).toContain("apply_patch");
  expect(deferral.offer(offered).at(-1)!.description).not.toContain("- apply_patch:");
  for (const input of [{}, { names: [] }, { query: "" }, { names: ["zzz"] }, { query: "zzz" }]) {
    await expect(loader.execute(input, ctx)).rejects.toThrow(/^Nothing loaded: .*Loadable: /);
  }
  expect(await loader.execute({ query: "Blame" }, ctx)).toBe("Loaded git_blame: call them from your next step.");
  expect(createToolDeferral({ enabled: false }).offer(offered)).toEqual(offered);
  // Steps that defer the same tools share one load_tools (its description and spec made once); a load makes a new one.
  const again = createToolDeferral();
  const step = again.offer(offered).at(-1)!;
  expect(again.offer([...offered]).at(-1)).toBe(step);
  expect(again.callable(offered).at(-1)).toBe(step);
  await step.execute({ names: ["git_log"] }, ctx);
  expect(again.offer(offered).at(-1)).not.toBe(step);
  // Every tool callable, deferred ones included.
  expect(deferral.callable(offered).length).toBe(offered.length + 1);
});

test("load_tools lines: a cut purpose drops the small words it leaves dangling; a server's resources and prompts tools are listed by name alone", () => {
  const mcp = (name: string, description: string) => ({ name, description, schema: {} as never, effect: "exec" as const, execute: async () => "" });
  const unused = () => {
    throw new Error("not called");
  };
  const lines = describeDeferred([
    mcp("mcp__fs__read_file", "Read the complete contents of a file from the file system."),
    mcp("mcp__fs__tree", "Get a recursive tree view of files and directories."),
    mcp("mcp__fs__toggle", "Toggles simulated, long-running-operations for testing."),
    mcp("mcp__fs__sum", "Returns the sum of two numbers."),
    ...createCapabilityTools("fs", { resources: true, prompts: true }, unused, new Set()),
    mcp("mcp__kv__get", "Get a value."),
    ...createCapabilityTools("kv", { resources: false, prompts: true }, unused, new Set()),
  ]);
  expect(lines).toEqual([
    "- MCP server fs, as mcp__fs__<name>: read_file: Read the complete contents...; tree: Get a recursive tree view...; toggle: Toggles simulated...; sum: Returns the sum of two numbers; list_resources, read_resource, get_prompt",
    "- MCP server kv, as mcp__kv__<name>: get: Get a value; get_prompt",
  ]);
  // Tools without a guidance are never grouped, even with the same (here empty) purpose.
  expect(describeDeferred([mcp("mcp__x__a", ""), mcp("mcp__x__b", "")])).toEqual(["- MCP server x, as mcp__x__<name>: a; b"]);
});

test("mayAllow: any allow entry in the table that applies keeps a tool; ask and deny alone do not", () => {
  const defaults = { read_file: "allow", bash: "ask" } as const;
  const table: [unknown, string, boolean][] = [
    [{}, "bash", false],
    [{}, "read_file", true],
    [{ bash: "allow" }, "bash", true],
    [{ bash: { "npm test": "allow", "*": "ask" } }, "bash", true],
    [{ bash: { "*": "deny" } }, "bash", false],
    [{ read_file: "deny" }, "read_file", false],
    [{ "mcp__*": "allow" }, "mcp__gh__search", true],
    [{ "mcp__*": { "*": "ask" } }, "mcp__gh__search", false],
    [{}, "mcp__gh__search", false],
    [{ "*": "allow" }, "bash", false],
  ];
  for (const [config, tool, expected] of table) {
    expect([JSON.stringify(config), tool, mayAllow(parsePermissionRules(config, defaults), tool)]).toEqual([JSON.stringify(config), tool, expected]);
  }
  expect(mayAllow(parsePermissionRules({}, defaultPermission([{ name: "todo_write", decision: "allow" }])), "todo_write")).toBe(true);
});
