/**
 * The composition root's parts alone (lib/agent/compose/): each factory is opened from small
 * records, without the rest of the session, and what it hands the next rows is checked: the
 * modes a switch leaves, the session bytes on disk, the gate's answers and who was asked, what a
 * step offers and may call, the prompt's text, the window's refusals.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalRequest, DecisionSource } from "../../lib/approval/request.ts";
import { defaultPermission, parsePermissionRules } from "../../lib/approval/rules.ts";
import { openApprovalPart } from "../../lib/agent/compose/approval.ts";
import { openContextPart } from "../../lib/agent/compose/context.ts";
import { createSessionModes } from "../../lib/agent/compose/modes.ts";
import { createSystemPrompt } from "../../lib/agent/compose/prompt.ts";
import { openSessionPart } from "../../lib/agent/compose/session.ts";
import { createToolbox, openToolRegistry } from "../../lib/agent/compose/tools.ts";
import { readRunScope } from "../../lib/agent/run-scope.ts";
import { resolveConfig, type ConfigFile } from "../../lib/config/config.ts";
import type { AgentFlags } from "../../lib/config/flags.ts";
import { createDisabledPluginHost } from "../../lib/extensions/plugin-host.ts";
import type { StartupNotice } from "../../lib/notices.ts";
import { paths } from "../../lib/platform/paths.ts";
import { createModelClient, connectionFromConfig } from "../../lib/providers/client.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-parts-");

const ENV = { SHIRO_PROVIDER: "openai", SHIRO_API_KEY: "test-key", SHIRO_BASE_URL: "http://127.0.0.1:9/v1", SHIRO_MODEL: "gpt-4o" };
const configWith = (file: ConfigFile = {}) => resolveConfig({ env: ENV, file });
const FLAGS = (extra: Partial<AgentFlags> = {}) => ({ approvals: "deny", ...extra }) as AgentFlags;
const BUILTINS = builtinTools({ complete: async () => "" });
const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name);

function folder(): { cwd: string; [Symbol.dispose](): void } {
  const cwd = mkdtempSync(join(tmpdir(), "shiro-parts-cwd-"));
  return { cwd, [Symbol.dispose]: () => rmSync(cwd, { recursive: true, force: true }) };
}

describe("the modes part", () => {
  test("a new variant resets thinking unless the change names one; the step cap and the subagents' model follow", () => {
    const modes = createSessionModes(configWith({ maxSteps: 30 }));
    const seen = () => [modes.variant.name, modes.thinking, modes.model, modes.steps(), modes.subagentModel()];
    expect(seen()).toEqual(["default", "medium", "gpt-4o", 30, "gpt-4o"]);
    expect([modes.configure({ agent: "quick" }), ...seen()]).toEqual([true, "quick", "off", "gpt-4o", 12, "gpt-4o"]);
    expect([modes.configure({ agent: "deep", thinking: "low", model: "gpt-4.1" }), ...seen()]).toEqual([true, "deep", "low", "gpt-4.1", 80, "gpt-4.1"]);
    expect([modes.configure({ thinking: "high" }), ...seen()]).toEqual([false, "deep", "high", "gpt-4.1", 80, "gpt-4.1"]);
    const pinned = createSessionModes(configWith({ subagentModel: "gpt-4o-mini" }));
    pinned.configure({ model: "gpt-4.1" });
    expect([pinned.steps(), pinned.subagentModel()]).toEqual([50, "gpt-4o-mini"]);
  });
});

describe("the session part", () => {
  test("a new session reaches the disk at the first persist only; reopened by id it is resumed and told", () => {
    using ws = folder();
    const config = configWith();
    const notices: StartupNotice[] = [];
    const first = openSessionPart({ cwd: ws.cwd, flags: {} }, config, notices);
    const file = paths.session(first.session.id);
    expect([first.resumed, first.resumedMessages, existsSync(file), notices]).toEqual([false, 0, false, []]);
    first.session.messages.push({ role: "user", content: "hello" });
    first.persist();
    const written = readFileSync(file, "utf8");
    first.session.messages.push({ role: "user", content: "not saved by a second persist" });
    first.persist();
    expect(readFileSync(file, "utf8")).toBe(written);
    first.session.messages.pop();
    first.writer.close();

    const again = openSessionPart({ cwd: ws.cwd, flags: {}, sessionId: first.session.id }, config, notices);
    expect([again.resumed, again.resumedMessages, again.session.messages]).toEqual([true, 1, [{ role: "user", content: "hello" }]]);
    expect(notices).toEqual([{ code: "session-resumed", sessionId: first.session.id, messages: 1, tasks: 0 }]);
    again.persist();
    expect(readFileSync(file, "utf8")).toBe(written);
    again.writer.close();
  });
});

describe("the approval part", () => {
  /** Settings with nothing of their own: the front end's `decide` is the one asked; what `decider` was given is kept. */
  function settings(blockings: ({ runId: () => string; sessionId: string } | undefined)[]) {
    return {
      permissionLayers: () => [],
      decider: (decide: DecisionSource | undefined, blocking: { runId: () => string; sessionId: string } | undefined): DecisionSource => {
        blockings.push(blocking);
        return decide ?? (async () => "deny");
      },
    };
  }
  function open(options: { file?: ConfigFile; flags?: Partial<AgentFlags>; headless?: boolean; answers?: ("once" | "deny")[]; runId?: () => string }) {
    const asked: ApprovalRequest[] = [];
    const blockings: ({ runId: () => string; sessionId: string } | undefined)[] = [];
    const answers = options.answers;
    const decide: DecisionSource | undefined = answers
      ? async (request) => {
          asked.push(request);
          return answers.shift() ?? "deny";
        }
      : undefined;
    const part = openApprovalPart({
      headless: options.headless ?? false,
      flags: FLAGS(options.flags),
      config: { file: options.file ?? {} },
      decide,
      tools: BUILTINS,
      scope: { permissionLayers: () => [] },
      settings: settings(blockings),
      mcp: { permissionLayers: () => [] },
      plugins: createDisabledPluginHost(),
      sessionId: "s-1",
      runId: options.runId ?? (() => "r-1"),
    });
    const tool = (name: string) => BUILTINS.find((t) => t.name === name)!;
    const check = (name: string, input: unknown) => part.gate.check({ callId: `c-${name}`, tool: tool(name), name, input, cwd: "/ws" });
    return { part, asked, blockings, check };
  }

  test("the tools' declared decisions are the defaults: a read runs, a write asks the front end, a config rule allows it", async () => {
    const asking = open({ answers: ["once"] });
    expect(await asking.check("read_file", { path: "a.txt" })).toEqual({ allowed: true });
    expect(await asking.check("write_file", { path: "a.txt", content: "x" })).toMatchObject({ allowed: true });
    expect(asking.asked.map((request) => [request.tool, request.subject, request.sessionId])).toEqual([["write_file", "a.txt", "s-1"]]);
    const ruled = open({ file: { permission: { write_file: "allow" } }, answers: [] });
    expect([await ruled.check("write_file", { path: "a.txt", content: "x" }), ruled.asked]).toEqual([{ allowed: true }, []]);
    const yolo = open({ flags: { yolo: true }, answers: [] });
    expect([await yolo.check("bash", { command: "make" }), yolo.asked]).toEqual([{ allowed: true }, []]);
  });

  test("headless with nobody to ask refuses as headless; --approvals block hands the settings the live run id", async () => {
    const headless = open({ headless: true });
    expect(await headless.check("write_file", { path: "a.txt", content: "x" })).toMatchObject({ allowed: false, by: "headless" });
    expect(headless.blockings).toEqual([undefined]);
    let active = "r-1";
    const blocking = open({ headless: true, flags: { approvals: "block" }, runId: () => active });
    active = "r-2";
    expect([blocking.blockings[0]?.sessionId, blocking.blockings[0]?.runId()]).toEqual(["s-1", "r-2"]);
  });
});

describe("the tool registry", () => {
  function open(options: { headless: boolean; canAsk: boolean; flags?: Partial<AgentFlags> }, cwd: string) {
    const config = configWith();
    const modes = createSessionModes(config);
    const rules = parsePermissionRules({}, defaultPermission(BUILTINS));
    const toolbox = createToolbox({});
    const notices: StartupNotice[] = [];
    const before = toolbox.find("read_file");
    const registry = openToolRegistry(
      {
        ...options,
        flags: FLAGS(options.flags),
        config,
        builtins: BUILTINS,
        sessionTools: [],
        rules,
        scope: readRunScope(cwd, FLAGS(options.flags), []),
        modes,
        mcp: {},
        toolbox,
        narrowing: { allows: () => true },
      },
      notices,
    );
    return { registry, modes, notices, toolbox, before };
  }

  test("fills the toolbox the earlier parts hold; a read-only variant offers its reads after reselect", () => {
    using ws = folder();
    const { registry, modes, toolbox, before, notices } = open({ headless: false, canAsk: true }, ws.cwd);
    expect([before, toolbox.find("read_file")?.name, toolbox.registered]).toEqual([undefined, "read_file", registry.registered]);
    expect(names(registry.offered())).toContain("write_file");
    modes.configure({ agent: "plan" });
    registry.reselect();
    expect(registry.offered().every((tool) => tool.effect === "read" || tool.effect === "net")).toBe(true);
    expect(registry.asksFirst("write_file")).toBe(true);
    expect(notices.map((notice) => notice.code)).toEqual(["approvals"]);
  });

  test("where every question is denied, a tool that asks is not offered, yet callable so the gate refuses it with the reason", () => {
    using ws = folder();
    const { registry, notices } = open({ headless: true, canAsk: false }, ws.cwd);
    const offered = names(registry.offered());
    expect([offered.includes("read_file"), offered.includes("write_file"), names(registry.callable()).includes("write_file")]).toEqual([true, false, true]);
    expect(notices).toEqual([
      {
        code: "headless-approvals",
        mode: "deny",
        asking: ["write_file", "edit_file", "bash", "multi_edit", "apply_patch", "move_file", "delete_file"],
        mcp: false,
      },
    ]);
    const blocking = open({ headless: true, canAsk: false, flags: { approvals: "block" } }, ws.cwd);
    expect(names(blocking.registry.offered())).toContain("write_file");
  });
});

describe("the system prompt part", () => {
  test("reads the variant and the task list live, lists the tools that ask, and ends with the run's appended text", () => {
    using ws = folder();
    writeFileSync(join(ws.cwd, "x"), "");
    const modes = createSessionModes(configWith());
    const session = { notebook: { todos: [] as { content: string; status: string }[] } };
    const build = createSystemPrompt({
      cwd: ws.cwd,
      session: session as never,
      modes,
      instructions: [],
      skills: [],
      plugins: { appendices: () => ["PLUGIN APPENDIX"] },
      asksFirst: (name) => name === "write_file",
      appended: "APPENDED LAST",
    });
    const tools = BUILTINS.filter((tool) => ["read_file", "write_file"].includes(tool.name));
    const before = build(tools);
    expect([before.endsWith("\n\nAPPENDED LAST"), before.includes("PLUGIN APPENDIX"), before.includes("Quick mode")]).toEqual([true, true, false]);
    modes.configure({ agent: "quick" });
    session.notebook.todos.push({ content: "step one", status: "pending" });
    const after = build(tools);
    expect([after.includes("Quick mode"), after.includes("step one")]).toEqual([true, true]);
  });
});

describe("the context part", () => {
  test("refuses a prompt over the window, and an overflow with compaction off ends the turn with what to do", () => {
    const config = configWith({ contextWindow: 1000, compaction: { auto: false } });
    const client = createModelClient({ connection: connectionFromConfig(config), preset: config.preset, protocolForced: config.protocolForced });
    const owner = { session: { messages: [] } as never, writer: { markChanged: () => {} } as never };
    const part = openContextPart({ config, client, modes: createSessionModes(config), session: owner });
    expect(part.tooLarge("short")).toBeUndefined();
    expect(part.tooLarge("x".repeat(8000))).toBe(
      "the prompt is about 2000 tokens (8000 characters), more than gpt-4o's context window of 1000 tokens; shorten it or send the material in parts",
    );
    const recovery = part.onOverflow("maximum context length exceeded", 1);
    expect(recovery).toEqual({
      retry: false,
      error:
        "maximum context length exceeded — the request (about 1000 tokens) is over gpt-4o's context window and compaction is off (compaction.auto: false); run /compact, or turn compaction on",
    });
  });
});
