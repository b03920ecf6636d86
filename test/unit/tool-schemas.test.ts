/**
 * The tool JSON Schemas a compiled binary carries (lib/tools/schema.ts SHIRO_TOOL_SCHEMAS, baked by
 * .ci/release/tool-schemas.ts): each is the converter's output for the same valibot schema, byte
 * for byte once through JSON as the define carries it; a schema that differs from every baked one
 * under its name is converted, never given a baked one; and every tool a session registers or
 * sends is baked, so a start runs no conversion. The binary's request carrying the converter's
 * schemas is test/e2e/baked-declarations.test.ts.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { bakeToolSchemas, ownToolDeclarations } from "../../.ci/release/tool-schemas.ts";
import { createAgent } from "../../lib/agent/agent.ts";
import { createTaskTool, type TaskToolOptions } from "../../lib/agent/subagent.ts";
import { types } from "node:util";
import { bakedInputSchema, convertInputSchema, lazySchema, schemaFingerprint, type BakedToolSchemas } from "../../lib/tools/schema.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import { agentEnv, agentFlags, useFakeProvider } from "./in-process-agent.ts";

const fake = useFakeProvider();
/** As the binary holds it: the define is JSON. */
const baked = JSON.parse(JSON.stringify(bakeToolSchemas())) as BakedToolSchemas;

test("every baked schema is the converter's, byte for byte", () => {
  const tools = ownToolDeclarations();
  expect(tools.length).toBeGreaterThan(25);
  for (const tool of tools) {
    const found = bakedInputSchema(tool, baked);
    expect(found ? tool.name : `${tool.name} not baked`).toBe(tool.name);
    expect(JSON.stringify(found)).toBe(JSON.stringify(convertInputSchema(tool.schema)));
  }
});

test("a schema unlike every baked one under its name is converted, not given a baked one", () => {
  const [readFile] = ownToolDeclarations();
  const other: ToolDefinition = { ...readFile!, schema: v.object({ path: v.string(), extra: v.optional(v.number()) }) };
  expect(bakedInputSchema(other, baked)).toBeUndefined();
  // `task` listing a custom kind: a form the build does not know.
  const custom = createTaskTool({ canAsk: false, root: "/", agents: [{ name: "scout", description: "looks around" }] } as unknown as TaskToolOptions);
  expect(bakedInputSchema(custom, baked)).toBeUndefined();
  expect(bakedInputSchema(readFile!, undefined)).toBeUndefined();
});

test("every tool a headless session registers, and load_tools it sends, is baked", async () => {
  const cwd = mkdtempSync(join(tmpdir(), "shiro-tool-schemas-"));
  try {
    const agent = await createAgent({
      cwd,
      flags: agentFlags({ noMemory: false, noSkills: false }),
      mode: "headless",
      env: agentEnv(fake()),
      writeStderr: () => {},
    });
    try {
      const names = agent.registeredTools().map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["read_file", "remember", "recall", "task", "skill", "todo_write"]));
      for (const tool of agent.registeredTools()) expect(bakedInputSchema(tool, baked) ? tool.name : `${tool.name} not baked`).toBe(tool.name);
    } finally {
      agent.close();
      await agent.closed;
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test("a lazy schema is built on its first read, once, and answers as the schema it builds", () => {
  let builds = 0;
  const build = () => {
    builds++;
    return v.object({ path: v.pipe(v.string(), v.minLength(1, "path must not be empty")), limit: v.optional(v.pipe(v.number(), v.integer())) });
  };
  const lazy = lazySchema(build);
  expect(builds).toBe(0);
  const eager = build();
  builds = 0;
  for (const input of [{ path: "a" }, { path: "", limit: 1.5 }, { limit: "x" }, null, "path"]) {
    const [got, want] = [v.safeParse(lazy, input), v.safeParse(eager, input)];
    expect(got.success).toBe(want.success);
    expect(got.issues?.map((issue) => [issue.message, issue.path?.map((item) => item.key)])).toEqual(
      want.issues?.map((issue) => [issue.message, issue.path?.map((item) => item.key)]),
    );
  }
  expect(schemaFingerprint(lazy)).toBe(schemaFingerprint(eager));
  expect(convertInputSchema(lazy)).toEqual(convertInputSchema(eager));
  expect("entries" in lazy).toBe(true);
  expect(builds).toBe(1);
});

test("shiro's own tools declare lazy input schemas: loading their modules builds none", () => {
  // task and load_tools build theirs when made (a task lists the session's kinds); the time plugin's is the plugin's own.
  const tools = ownToolDeclarations().filter((tool) => !["task", "load_tools", "current_time"].includes(tool.name));
  expect(tools.length).toBeGreaterThan(25);
  expect(tools.filter((tool) => !types.isProxy(tool.schema)).map((tool) => tool.name)).toEqual([]);
});
