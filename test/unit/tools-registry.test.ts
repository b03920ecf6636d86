import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { DEFAULT_TOOL_SETS, TOOL_SETS, builtinTools, measureToolCosts, selectTools } from "../../lib/tools/index.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";

const complete = async () => "Add a thing";
const sessionTool: ToolDefinition = { name: "todo_write", description: "d", schema: v.object({}), effect: "read", execute: async () => "ok" };
const pluginTool: ToolDefinition = { name: "current_time", description: "d", schema: v.object({}), effect: "read", execute: async () => "now" };
const all = builtinTools({ complete, extraTools: [sessionTool, pluginTool] });
const names = (tools: ToolDefinition[]) => tools.map((tool) => tool.name);

const home = mkdtempSync(join(tmpdir(), "shiro-tools-home-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("builtinTools", () => {
  test("the built-in tools, in order, by set, and extras come last", () => {
    // Spelled out: TOOL_SETS is derived from the declarations, so comparing the two proves nothing.
    expect(TOOL_SETS).toEqual({
      core: ["read_file", "write_file", "edit_file", "glob", "grep", "bash"],
      "edit-plus": ["multi_edit", "list_dir", "read_many_files", "apply_patch", "move_file", "delete_file"],
      git: ["git_status", "git_diff", "git_log", "git_show", "git_blame", "git_branch", "git_commit_message"],
      net: ["web_fetch"],
    });
    expect(all.map((tool) => [tool.name, tool.set ?? null])).toEqual([
      ...TOOL_SETS.core.map((name) => [name, "core"]),
      ...TOOL_SETS["edit-plus"].map((name) => [name, "edit-plus"]),
      ...TOOL_SETS.git.map((name) => [name, "git"]),
      ...TOOL_SETS.net.map((name) => [name, "net"]),
      ["todo_write", null],
      ["current_time", null],
    ]);
    expect(DEFAULT_TOOL_SETS).toEqual(["core", "edit-plus", "git"]);
  });

  test("two tools with one name are refused", () => {
    expect(() => builtinTools({ complete, extraTools: [{ ...sessionTool, name: "grep" }] })).toThrow('two tools are named "grep"; rename one of them');
  });

  test("effects and declared paths of the file tools", () => {
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const effects = [
      "read_file",
      "read_many_files",
      "list_dir",
      "glob",
      "grep",
      "write_file",
      "edit_file",
      "multi_edit",
      "apply_patch",
      "move_file",
      "delete_file",
      "bash",
      "web_fetch",
    ].map((name) => [name, byName.get(name)!.effect]);
    expect(effects).toEqual([
      ["read_file", "read"],
      ["read_many_files", "read"],
      ["list_dir", "read"],
      ["glob", "read"],
      ["grep", "read"],
      ["write_file", "write"],
      ["edit_file", "write"],
      ["multi_edit", "write"],
      ["apply_patch", "write"],
      ["move_file", "write"],
      ["delete_file", "write"],
      ["bash", "exec"],
      ["web_fetch", "net"],
    ]);
    for (const name of ["read_file", "write_file", "edit_file", "multi_edit", "delete_file", "list_dir", "git_blame", "git_diff", "git_log"]) {
      expect([name, byName.get(name)!.paths!({ path: "x/y.ts" }, home)]).toEqual([name, ["x/y.ts"]]);
    }
    expect(byName.get("read_many_files")!.paths!({ files: [{ path: "a" }, { path: 1 }, { path: "b" }] }, home)).toEqual(["a", "b"]);
    expect(byName.get("git_show")!.paths!({ ref: "HEAD:a/.env", path: "b" }, home)).toEqual(["a/.env", "b"]);
  });

  test("every write tool declares the paths it touches (a write tool without them fails here)", () => {
    // One input carrying every field a write tool names a path with; each tool reads its own.
    const sample = {
      path: "a/b.txt",
      from: "a/b.txt",
      to: "c/d.txt",
      content: "x",
      oldString: "x",
      newString: "y",
      edits: [{ oldString: "x", newString: "y" }],
      patch: "*** Begin Patch\n*** Add File: a/b.txt\n+x\n*** End Patch",
    };
    const writers = all.filter((tool) => tool.effect === "write");
    expect(writers.length).toBeGreaterThanOrEqual(6);
    expect(writers.filter((tool) => !tool.paths || tool.paths(sample, home).length === 0).map((tool) => tool.name)).toEqual([]);
    const blind: ToolDefinition = { name: "blind_writer", description: "d", schema: v.object({}), effect: "write", execute: async () => "ok" };
    expect(() => builtinTools({ complete, extraTools: [blind] })).toThrow("blind_writer changes files but declares no paths");
  });

  test("every tool declares its effect (a tool without one fails here, and at start-up)", () => {
    expect(all.filter((tool) => !["read", "write", "exec", "net"].includes(tool.effect)).map((tool) => tool.name)).toEqual([]);
    const { effect: _dropped, ...undeclared } = sessionTool;
    expect(() => builtinTools({ complete, extraTools: [undeclared as ToolDefinition] })).toThrow(
      'todo_write declares no effect; add `effect: "read" | "write" | "exec" | "net"`',
    );
  });

  test("every built-in tool declares its set: TOOL_SETS is derived from the declarations", () => {
    expect(
      builtinTools({ complete })
        .filter((tool) => tool.set === undefined)
        .map((tool) => tool.name),
    ).toEqual([]);
    const undeclared: ToolDefinition = { ...sessionTool, name: "setless", set: undefined };
    const withExtra = builtinTools({ complete, extraTools: [{ ...sessionTool, name: "extra_core", set: "core" }, undeclared] });
    expect(withExtra.filter((tool) => tool.set === "core").map((tool) => tool.name)).toEqual([...TOOL_SETS.core, "extra_core"]);
  });

  test("move_file shows the guards every file a folder move carries, at both ends", () => {
    mkdirSync(join(home, "cfg", "deep"), { recursive: true });
    writeFileSync(join(home, "cfg", ".env"), "A=1\n");
    writeFileSync(join(home, "cfg", "deep", "id_rsa"), "k\n");
    const move = all.find((tool) => tool.name === "move_file")!;
    expect(move.paths!({ from: "cfg/", to: "out" }, home).sort()).toEqual([
      "cfg/",
      "cfg/.env",
      "cfg/deep",
      "cfg/deep/id_rsa",
      "out",
      "out/.env",
      "out/deep",
      "out/deep/id_rsa",
    ]);
  });
});

describe("selectTools", () => {
  const session = [...TOOL_SETS.core, ...TOOL_SETS["edit-plus"], ...TOOL_SETS.git];

  test("default sets offer core, edit-plus and git plus every tool without a set", () => {
    const selection = selectTools(all);
    expect(names(selection.offered)).toEqual([...session, "todo_write", "current_time"]);
    expect(selection.registered).toEqual(all);
  });

  test("[] is core only; core cannot be turned off; net is opt-in", () => {
    expect(names(selectTools(all, { toolSets: [] }).offered)).toEqual([...TOOL_SETS.core, "todo_write", "current_time"]);
    expect(names(selectTools(all, { toolSets: ["git", "net"] }).offered)).toEqual([
      ...TOOL_SETS.core,
      ...TOOL_SETS.git,
      "web_fetch",
      "todo_write",
      "current_time",
    ]);
  });

  test("an allow filter is intersected with the sets, and gates tools without a set too", () => {
    const allowed = new Set(["read_file", "grep", "git_log", "web_fetch", "todo_write"]);
    const allow = (tool: ToolDefinition) => allowed.has(tool.name);
    expect(names(selectTools(all, { allow }).offered)).toEqual(["read_file", "grep", "git_log", "todo_write"]);
    expect(names(selectTools(all, { allow, toolSets: ["net"] }).offered)).toEqual(["read_file", "grep", "web_fetch", "todo_write"]);
  });
});

describe("tool costs", () => {
  test("set totals add up the tools' schema bytes", () => {
    const costs = measureToolCosts(all, { toolSets: ["git"] });
    expect(costs.sets.map((s) => [s.set, s.tools, s.active])).toEqual([
      ["core", 6, true],
      ["edit-plus", 6, false],
      ["git", 7, true],
      ["net", 1, false],
    ]);
    const offered = costs.tools.filter((t) => t.offered);
    expect(offered.map((t) => t.name)).toEqual([...TOOL_SETS.core, ...TOOL_SETS.git, "todo_write", "current_time"]);
    expect(costs.offeredBytes).toBeGreaterThan(costs.sets[0]!.bytes + costs.sets[2]!.bytes);
    // Without a deferral every offered schema is sent.
    expect([costs.request.full, costs.request.deferred]).toEqual([offered.map((t) => t.name), []]);
  });

  test("`shiro tools --json` reads toolSets from config.json", () => {
    mkdirSync(join(home, ".shiro-neko"), { recursive: true });
    writeFileSync(join(home, ".shiro-neko", "config.json"), JSON.stringify({ toolSets: ["net"] }));
    const out = spawnSync(process.execPath, [join(import.meta.dir, "../../cmd/shiro.ts"), "tools", "--json"], {
      env: { ...process.env, SHIRO_HOME: home },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(out.stderr).toBe("");
    const report = JSON.parse(out.stdout) as ReturnType<typeof measureToolCosts>;
    expect(report.tools.filter((t) => t.offered).map((t) => t.name)).toEqual([...TOOL_SETS.core, "web_fetch"]);
    expect(report.sets.map((s) => [s.set, s.active])).toEqual([
      ["core", true],
      ["edit-plus", false],
      ["git", false],
      ["net", true],
    ]);
  });
});

describe("what a default request really sends", () => {
  test("`shiro tools --json` names the built-in tools a real request carries in full, with their bytes", async () => {
    const { startFakeProvider } = await import("../fakes/provider.ts");
    const fake = await startFakeProvider();
    const dir = mkdtempSync(join(tmpdir(), "shiro-tools-request-"));
    try {
      const env = { ...process.env, SHIRO_HOME: dir, SHIRO_BASE_URL: fake.baseURL, SHIRO_API_KEY: "k", SHIRO_PROTOCOL: "chat", SHIRO_PROVIDER: "openai" };
      const report = JSON.parse(
        spawnSync(process.execPath, [join(import.meta.dir, "../../cmd/shiro.ts"), "tools", "--json"], { env, encoding: "utf8", timeout: 30_000 }).stdout,
      );
      fake.script({ text: "ok" });
      const run = Bun.spawn([process.execPath, join(import.meta.dir, "../../cmd/shiro.ts"), "-p", "hi", "--yolo"], {
        cwd: dir,
        env,
        stdout: "ignore",
        stderr: "ignore",
      });
      await run.exited;
      const sent = (fake.requests[0]!.body as { tools: { function: { name: string; description: string; parameters: unknown } }[] }).tools.map(
        (tool) => tool.function,
      );
      const builtin = new Set(all.filter((tool) => tool.set !== undefined).map((tool) => tool.name));
      const sentBuiltins = sent.filter((tool) => builtin.has(tool.name));
      expect(sentBuiltins.map((tool) => tool.name)).toEqual(report.request.full.filter((name: string) => builtin.has(name)));
      expect(report.request.deferred.length).toBeGreaterThan(0);
      // The bytes of each schema as the request carries it (name, description, parameters).
      const bytes = sentBuiltins.reduce(
        (sum, tool) => sum + Buffer.byteLength(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.parameters })),
        0,
      );
      const reported = report.tools.filter((tool: { name: string }) => sentBuiltins.some((sentTool) => sentTool.name === tool.name));
      expect(bytes).toBe(reported.reduce((sum: number, tool: { bytes: number }) => sum + tool.bytes, 0));
      expect(report.request.bytes).toBeLessThan(report.offeredBytes);
    } finally {
      await fake.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
