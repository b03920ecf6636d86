import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { HEADLESS_DENIED_REASON, USER_DENIED_REASON, createGate, denyAll, type GateCall } from "../../lib/extensions/gate.ts";
import { type ApprovalAnswer, type ApprovalRequest, type DecisionSource } from "../../lib/approval/request.ts";
import { UserError } from "../../lib/platform/errors.ts";
import {
  addDeclaredDefaults,
  defaultPermission,
  createSessionGrants,
  describeRefusal,
  evaluatePermission,
  matchPattern,
  parsePermissionRules,
  suggestPattern,
} from "../../lib/approval/rules.ts";
import { canonicalJson, createRepeatGuard } from "../../lib/approval/repeat-guard.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import type { Plugin, PluginHost } from "../../lib/extension-api/plugin-api.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import { createTaskTool } from "../../lib/agent/subagent.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";
import { currentTimeTool } from "../../plugins/time.ts";

const BUILTIN = builtinTools({ complete: async () => "m" });
const SESSION = [
  createTodoTool({ get: () => [], set: () => {} }),
  currentTimeTool,
  createTaskTool({ client: {} as never, model: () => "m", thinking: () => "off", tools: () => [], gate: {} as never, root: "/ws", canAsk: false }),
];
const DEFAULTS = defaultPermission([...BUILTIN, ...SESSION]);
const rules = (config: unknown = {}) => parsePermissionRules(config, DEFAULTS);
const decide = (config: unknown, tool: string, subjects: string[]) => evaluatePermission(rules(config), tool, subjects);

describe("matchPattern", () => {
  test("* spans any characters including newlines, ? is one character, the rest is literal and anchored", () => {
    expect(matchPattern("git *", "git log\n--oneline")).toBe(true);
    expect(matchPattern("git *", "gitk")).toBe(false);
    expect(matchPattern("a?c", "abc")).toBe(true);
    expect(matchPattern("a?c", "ac")).toBe(false);
    expect(matchPattern("a?c", "a\nc")).toBe(true);
    expect(matchPattern("*.env", "config/.env")).toBe(true);
    expect(matchPattern("*.env", "config/.env.local")).toBe(false);
    expect(matchPattern("src/(a)+[b].ts", "src/(a)+[b].ts")).toBe(true);
    expect(matchPattern("src/(a)+[b].ts", "src/aa[b].ts")).toBe(false);
    expect(matchPattern("ls", "ls -la")).toBe(false);
    expect(matchPattern("$HOME/^x|y", "$HOME/^x|y")).toBe(true);
  });
});

describe("defaults", () => {
  test("derived from each tool's declared decision: reads allow; writes, exec and net ask", () => {
    expect(
      Object.entries(DEFAULTS)
        .filter(([, decision]) => decision === "ask")
        .map(([tool]) => tool)
        .sort(),
    ).toEqual(["apply_patch", "bash", "delete_file", "edit_file", "move_file", "multi_edit", "web_fetch", "write_file"]);
    const byEffect = [...BUILTIN, ...SESSION].map((tool): [string, string] => [tool.name, tool.effect === "read" ? "allow" : "ask"]);
    expect(Object.entries(DEFAULTS) as [string, string][]).toEqual(byEffect);
  });

  test("writes, bash and web_fetch ask; reads are allowed; anything else asks", () => {
    for (const tool of ["write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file", "bash", "web_fetch"]) {
      expect(decide({}, tool, ["x"])).toEqual({ decision: "ask", matched: { tool, pattern: "*" } });
    }
    for (const tool of [...BUILTIN, ...SESSION].filter((tool) => tool.effect === "read")) expect(decide({}, tool.name, []).decision).toBe("allow");
    expect(decide({}, "mcp__github__create_issue", [])).toEqual({ decision: "ask" });
    expect(decide({}, "some_plugin_tool", [])).toEqual({ decision: "ask" });
  });
});

describe("rule precedence", () => {
  test("the last matching pattern wins, in insertion order", () => {
    const config = { bash: { "*": "ask", "git *": "allow", "git push *": "deny" } };
    expect(decide(config, "bash", ["git status"])).toEqual({ decision: "allow", matched: { tool: "bash", pattern: "git *" } });
    expect(decide(config, "bash", ["git push origin main"])).toEqual({ decision: "deny", matched: { tool: "bash", pattern: "git push *" } });
    expect(decide(config, "bash", ["ls"])).toEqual({ decision: "ask", matched: { tool: "bash", pattern: "*" } });
    const reversed = { bash: { "git push *": "deny", "git *": "allow" } };
    expect(decide(reversed, "bash", ["git push origin main"]).decision).toBe("allow");
  });

  test("a tool's own entry replaces its default entirely; no match asks", () => {
    const config = { read_file: { "secrets/*": "deny" } };
    expect(decide(config, "read_file", [".env"])).toEqual({ decision: "ask" });
    expect(decide(config, "read_file", ["src/a.ts"])).toEqual({ decision: "ask" });
    expect(decide(config, "read_file", ["secrets/token"]).decision).toBe("deny");
    expect(decide({ bash: "allow" }, "bash", ["rm x"])).toEqual({ decision: "allow", matched: { tool: "bash", pattern: "*" } });
  });

  test("wildcard keys apply only to tools without an entry; the last matching key wins", () => {
    const config = { "mcp__*": "allow", "mcp__github__*": { "*": "deny" } };
    expect(decide(config, "mcp__fs__read", [])).toEqual({ decision: "allow", matched: { tool: "mcp__*", pattern: "*" } });
    expect(decide(config, "mcp__github__push", [])).toEqual({ decision: "deny", matched: { tool: "mcp__github__*", pattern: "*" } });
    const everything = { "*": "deny" };
    expect(decide(everything, "mcp__fs__read", []).decision).toBe("deny");
    expect(decide(everything, "bash", ["ls"]).decision).toBe("ask");
    expect(decide(everything, "read_file", ["a.ts"]).decision).toBe("allow");
  });

  test("a tool declared allow (a plugin's autoApprove) runs unless a rule names it; wildcard keys do not reach it", () => {
    const declared = (config: unknown) => {
      const made = parsePermissionRules(config, DEFAULTS);
      addDeclaredDefaults(made, [
        { name: "deploy_preview", decision: "allow" },
        { name: "read_file", decision: "deny" },
      ]);
      return (tool: string) => evaluatePermission(made, tool, []).decision;
    };
    expect(declared({})("deploy_preview")).toBe("allow");
    expect(declared({ "*": "deny" })("deploy_preview")).toBe("allow");
    expect(declared({ deploy_preview: "deny" })("deploy_preview")).toBe("deny");
    // A tool already declared keeps its own default.
    expect(declared({})("read_file")).toBe("allow");
  });

  test("several subjects: any deny denies, any ask asks, all allow allows", () => {
    const config = { move_file: { "*": "allow", "docs/*": "ask", "*.lock": "deny" } };
    expect(decide(config, "move_file", ["src/a.ts", "src/b.ts"]).decision).toBe("allow");
    expect(decide(config, "move_file", ["src/a.ts", "docs/b.md"])).toEqual({ decision: "ask", matched: { tool: "move_file", pattern: "docs/*" } });
    expect(decide(config, "move_file", ["docs/b.md", "x.lock"])).toEqual({ decision: "deny", matched: { tool: "move_file", pattern: "*.lock" } });
  });

  test("a call without subjects matches only the * pattern", () => {
    expect(decide({ todo_write: { "*": "allow", "x*": "deny" } }, "todo_write", []).decision).toBe("allow");
    expect(decide({ todo_write: { "*x": "deny" } }, "todo_write", [])).toEqual({ decision: "ask" });
  });
});

describe("parsePermissionRules", () => {
  test("a bad decision is a one-line error naming the key, never a wider rule", () => {
    expect(() => rules({ bash: "alow" })).toThrow(new UserError('permission."bash" must be one of allow, ask, deny (got "alow")'));
    expect(() => rules({ bash: { "rm *": "nope" } })).toThrow(new UserError('permission."bash"."rm *" must be one of allow, ask, deny (got "nope")'));
    expect(() => rules({ bash: 3 })).toThrow(new UserError('permission."bash" must be one of allow, ask, deny, or an object mapping patterns to them'));
    expect(() => rules(["bash"])).toThrow(UserError);
  });

  test("an empty table is ignored, so the default stays", () => {
    expect(decide({ bash: {} }, "bash", ["ls"])).toEqual({ decision: "ask", matched: { tool: "bash", pattern: "*" } });
    expect(decide({ read_file: {} }, "read_file", ["a.ts"]).decision).toBe("allow");
  });
});

describe("messages and grants", () => {
  test("refusal text names the pattern, or the tool when the * rule refused", () => {
    expect(describeRefusal("read_file", { tool: "read_file", pattern: "*.env" })).toBe('Refused by the permission rule read_file: "*.env" = deny.');
    expect(describeRefusal("bash", { tool: "bash", pattern: "*" })).toBe("Refused by the permission rules: bash is denied.");
    expect(describeRefusal("mcp__x__y", undefined)).toBe("Refused by the permission rules: mcp__x__y is denied.");
    // A rule of another source names it; config's rules stay unnamed.
    expect(describeRefusal("bash", { tool: "bash", pattern: "rm *", source: ".claude/settings.json" })).toBe(
      'Refused by the permission rule bash: "rm *" = deny in .claude/settings.json.',
    );
    expect(describeRefusal("bash", { tool: "bash", pattern: "*", source: "--disallowed-tools" })).toBe(
      "Refused by the permission rules: bash is denied by --disallowed-tools.",
    );
  });

  test("the suggested pattern is the command's first word for a shell call, * otherwise", () => {
    expect(suggestPattern("  git status -s")).toBe("git *");
    expect(suggestPattern("npm\ttest")).toBe("npm *");
    expect(suggestPattern("./*.sh")).toBe("");
    expect(suggestPattern(null)).toBe("");
    expect(suggestPattern(undefined)).toBe("*");
  });

  test("a bash grant covers matching commands, never chained or redirected ones", () => {
    const grants = createSessionGrants();
    grants.add("bash", "git *");
    grants.add("bash", "git *");
    grants.add("write_file", "*");
    expect(grants.list()).toEqual([
      { tool: "bash", pattern: "git *" },
      { tool: "write_file", pattern: "*" },
    ]);
    expect(grants.covers("bash", ["git log -5"], true)).toBe(true);
    expect(grants.covers("bash", ["gitk"], true)).toBe(false);
    expect(grants.covers("bash", ["npm test"], true)).toBe(false);
    for (const command of [
      "git log; rm notes",
      "git log && curl x",
      "git log | sh",
      "git log > out",
      "git $(whoami)",
      "git `id`",
      "git log\nrm x",
      "git log <(touch pwned)",
      "git apply < x.patch",
    ]) {
      expect(grants.covers("bash", [command], true)).toBe(false);
    }
    expect(grants.covers("write_file", ["a.ts", "b.ts"], false)).toBe(true);
    expect(grants.covers("write_file", [], false)).toBe(true);
    expect(grants.covers("edit_file", ["a.ts"], false)).toBe(false);
  });

  test("the repeat guard counts identical calls regardless of key order", () => {
    const guard = createRepeatGuard();
    expect(guard.record("read_file", { path: "a", limit: 5 })).toBe(1);
    expect(guard.record("read_file", { limit: 5, path: "a" })).toBe(2);
    expect(guard.record("read_file", { path: "b" })).toBe(1);
    expect(guard.record("grep", { path: "a", limit: 5 })).toBe(1);
    guard.reset();
    expect(guard.record("read_file", { path: "a", limit: 5 })).toBe(1);
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

// ---- the gate ----------------------------------------------------------------------------------

const _tool = (name: string, subjects?: (input: any) => string[]): ToolDefinition => ({
  name,
  description: name,
  schema: v.any(),
  subjects,
  effect: "exec",
  execute: async () => "ok",
});
const TOOLS: Record<string, ToolDefinition> = {
  ...Object.fromEntries(BUILTIN.map((tool) => [tool.name, tool])),
  broken_writer: { ..._tool("broken_writer"), effect: "write", decision: "allow", paths: (input: any) => [input.files.path] },
  broken_reader: { ..._tool("broken_reader"), effect: "read", decision: "allow", paths: (input: any) => [input.files.path] },
};

interface Harness {
  check(name: string, input: unknown, extra?: Partial<GateCall>): ReturnType<ReturnType<typeof createGate>["check"]>;
  asked: ApprovalRequest[];
  gate: ReturnType<typeof createGate>;
}

function harness(
  options: {
    config?: unknown;
    yolo?: boolean;
    answers?: (ApprovalAnswer | "block")[];
    decide?: DecisionSource;
    headless?: boolean;
    plugins?: PluginHost;
    allowReadOnly?: boolean;
  } = {},
): Harness {
  const asked: ApprovalRequest[] = [];
  const answers = [...(options.answers ?? [])];
  const plugins = options.plugins ?? createPluginHost({ cwd: "/ws", writeStderr: () => {} });
  const rules = parsePermissionRules(options.config ?? {}, defaultPermission(Object.values(TOOLS)));
  addDeclaredDefaults(rules, plugins.tools());
  const gate = createGate({
    rules,
    plugins,
    yolo: options.yolo ?? false,
    headless: options.headless,
    // These tests put questions about `ls` and `git status`; read-only lines unasked are tested on their own below.
    allowReadOnly: options.allowReadOnly ?? false,
    runId: "run-1",
    decide:
      options.decide ??
      (async (request) => {
        asked.push(request);
        const answer = answers.shift();
        if (!answer) throw new Error(`unexpected question about ${request.tool}`);
        return answer;
      }),
  });
  let n = 0;
  return {
    asked,
    gate,
    check: (name, input, extra) => gate.check({ callId: `call-${++n}`, tool: TOOLS[name], name, input, cwd: "/ws", ...extra }),
  };
}

describe("createGate", () => {
  test("a read-only command line runs unasked by default; a user rule naming it, a write, a secret and allowReadOnly: false still ask", async () => {
    const open = harness({ allowReadOnly: true, answers: ["deny", "deny", "deny"] });
    expect(await open.check("bash", { command: "git status" })).toEqual({ allowed: true });
    expect(await open.check("bash", { command: "ls -la && cat README.md" })).toEqual({ allowed: true });
    expect((await open.check("bash", { command: "ls > list.txt" })).allowed).toBe(false);
    expect((await open.check("bash", { command: "cat .env" })).allowed).toBe(false);
    expect(open.asked.map((request) => request.subject)).toEqual(["ls > list.txt", "cat .env"]);
    const named = harness({ allowReadOnly: true, config: { bash: { "git status": "ask" } }, answers: ["once"] });
    expect((await named.check("bash", { command: "git status" })).allowed).toBe(true);
    expect(named.asked).toHaveLength(1);
    const off = harness({ allowReadOnly: false, answers: ["once"] });
    expect((await off.check("bash", { command: "ls" })).allowed).toBe(true);
    expect(off.asked).toHaveLength(1);
  });

  test("an ask goes to decide with the full request; once allows", async () => {
    const h = harness({ answers: ["once"] });
    const result = await h.check("bash", { command: "git status" });
    expect(h.asked).toHaveLength(1);
    const request = h.asked[0]!;
    expect(request.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(request).toEqual({
      id: request.id,
      callId: "call-1",
      tool: "bash",
      effect: "exec",
      input: { command: "git status" },
      preview: { kind: "command", command: "git status" },
      subjects: ["git status"],
      subject: "git status",
      repeated: false,
      matched: { tool: "bash", pattern: "*" },
      suggestedPattern: "git *",
      cwd: "/ws",
      runId: "run-1",
    });
    expect(result).toEqual({ allowed: true, asked: request });
  });

  test("a user deny, a headless deny and a block each report their source", async () => {
    const user = harness({ answers: ["deny"] });
    const denied = await user.check("write_file", { path: "a.ts" });
    expect(denied).toEqual({ allowed: false, by: "user", reason: USER_DENIED_REASON, asked: user.asked[0]! });

    const headless = harness({ headless: true, decide: denyAll });
    const result = await headless.check("write_file", { path: "a.ts" });
    expect(result.allowed === false && result.by === "headless" && result.reason).toBe(HEADLESS_DENIED_REASON);
    expect(HEADLESS_DENIED_REASON).toContain("--yolo");

    const blocking = harness({ answers: ["block"] });
    expect(await blocking.check("bash", { command: "make" })).toEqual({ allowed: false, by: "block", request: blocking.asked[0]! });
  });

  test("a failing question denies the call", async () => {
    const h = harness({
      decide: async () => {
        throw new Error("stdin closed");
      },
    });
    const result = await h.check("bash", { command: "make" });
    expect(result.allowed === false && result.by === "user" && result.reason).toBe("Refused: the approval question failed (stdin closed).");
  });

  test("deny rules refuse without asking, with the rule in the message", async () => {
    const h = harness({ config: { bash: { "*": "ask", "git push *": "deny" }, write_file: "deny", read_file: { "*": "allow", "app/.env": "deny" } } });
    expect(await h.check("read_file", { path: "./app/x/../.env" })).toEqual({
      allowed: false,
      by: "rule",
      reason: 'Refused by the permission rule read_file: "app/.env" = deny.',
    });
    expect(await h.check("bash", { command: "git push origin main" })).toEqual({
      allowed: false,
      by: "rule",
      reason: 'Refused by the permission rule bash: "git push *" = deny.',
    });
    expect(await h.check("write_file", { path: "a.ts" })).toEqual({
      allowed: false,
      by: "rule",
      reason: "Refused by the permission rules: write_file is denied.",
    });
    expect(h.asked).toEqual([]);
  });

  test("--yolo: guards still block, deny rules still deny, asks become allows", async () => {
    const h = harness({ yolo: true, config: { bash: { "*": "ask", "curl *": "deny" } } });
    expect(await h.check("bash", { command: "rm -rf /" })).toEqual({
      allowed: false,
      by: "plugin",
      reason: 'Blocked by the guard plugin: refusing "rm -rf /" (recursive or forced delete). Ask the user to run it themselves if it is really needed.',
    });
    expect(await h.check("bash", { command: "curl https://example.com" })).toEqual({
      allowed: false,
      by: "rule",
      reason: 'Refused by the permission rule bash: "curl *" = deny.',
    });
    expect(await h.check("bash", { command: "make test" })).toEqual({ allowed: true });
    expect(await h.check("write_file", { path: ".env" })).toEqual({
      allowed: false,
      by: "plugin",
      reason: "Blocked by the secrets plugin: refusing to write .env (an env file). Tell the user what to put there and let them write it.",
    });
    expect(h.asked).toEqual([]);
  });

  test("always grants the pattern for the session, and a grant never overrides a deny rule", async () => {
    const h = harness({ config: { bash: { "*": "ask", "git push *": "deny" } }, answers: ["always", "once"] });
    expect((await h.check("bash", { command: "git status" })).allowed).toBe(true);
    expect(h.gate.grants.list()).toEqual([{ tool: "bash", pattern: "git *" }]);
    expect(await h.check("bash", { command: "git log -3" })).toEqual({ allowed: true });
    expect(await h.check("bash", { command: "git push --tags" })).toEqual({
      allowed: false,
      by: "rule",
      reason: 'Refused by the permission rule bash: "git push *" = deny.',
    });
    expect((await h.check("bash", { command: "git log && make" })).allowed).toBe(true);
    expect(h.asked.map((request) => request.subject)).toEqual(["git status", "git log && make"]);
  });

  test("the third identical call of a turn asks even when allowed; a new turn resets the count", async () => {
    const h = harness({ answers: ["once", "deny"] });
    const read = { path: "src/a.ts" };
    expect(await h.check("read_file", read)).toEqual({ allowed: true });
    expect(await h.check("read_file", { path: "src/b.ts" })).toEqual({ allowed: true });
    expect(await h.check("read_file", { path: "src/a.ts" })).toEqual({ allowed: true });
    const third = await h.check("read_file", read);
    expect(third).toEqual({ allowed: true, asked: h.asked[0]! });
    expect(h.asked[0]!.repeated).toBe(true);
    expect((await h.check("read_file", read)).allowed).toBe(false);
    h.gate.newTurn();
    expect(await h.check("read_file", read)).toEqual({ allowed: true });
    expect(h.asked).toHaveLength(2);
  });

  test("the repeat guard never turns a deny into an ask, and a grant does not silence it", async () => {
    const h = harness({ answers: ["always", "once"], config: { read_file: { "*": "allow", "*.env": "deny" } } });
    for (let i = 0; i < 4; i++) expect((await h.check("read_file", { path: ".env" })).allowed).toBe(false);
    expect(h.asked).toEqual([]);
    await h.check("write_file", { path: "a.ts", content: "x" });
    await h.check("write_file", { path: "a.ts", content: "x" });
    await h.check("write_file", { path: "a.ts", content: "x" });
    expect(h.asked.map((request) => request.repeated)).toEqual([false, true]);
  });

  test("--yolo also lets a repeated call through", async () => {
    const h = harness({ yolo: true });
    for (let i = 0; i < 4; i++) expect(await h.check("read_file", { path: "a" })).toEqual({ allowed: true });
  });

  test("a throwing plugin hook blocks the call", async () => {
    const boom: Plugin = {
      name: "boom",
      description: "",
      beforeToolCall: () => {
        throw new Error("kaput");
      },
    };
    const plugins = createPluginHost({ cwd: "/ws", writeStderr: () => {}, enabled: ["boom"], builtins: { boom: () => boom } });
    const h = harness({ yolo: true, plugins });
    expect(await h.check("glob", { pattern: "*" })).toEqual({ allowed: false, by: "plugin", reason: "Blocked by the boom plugin: its check failed (kaput)" });
  });

  test("the guard's question about a command it cannot read is put even under --yolo, an allow rule and an always; headless refuses it; a deny rule still wins", async () => {
    const ask =
      'The guard plugin asks: cannot tell what "$X -rf v" runs (the program is an expansion). Write the command out literally, or ask the user to run it.';
    const yolo = harness({ yolo: true, config: { bash: { "*": "allow" } }, answers: ["always", "deny"] });
    expect(await yolo.check("bash", { command: "$X -rf v" })).toMatchObject({ allowed: true });
    expect(yolo.asked[0]).toMatchObject({ tool: "bash", plugin: ask, subject: "$X -rf v" });
    expect(await yolo.check("bash", { command: "$X -rf v" })).toMatchObject({ allowed: false, by: "user" });
    expect(yolo.asked).toHaveLength(2);
    expect(await yolo.check("bash", { command: "ls -l" })).toEqual({ allowed: true });
    const headless = harness({ yolo: true, headless: true, decide: async () => "deny" });
    expect(await headless.check("bash", { command: "$X -rf v" })).toMatchObject({
      allowed: false,
      by: "headless",
      reason: `Denied: nobody can be asked in a headless run. ${ask}`,
    });
    const denied = harness({ yolo: true, config: { bash: { "*": "deny" } } });
    expect(await denied.check("bash", { command: "$X -rf v" })).toMatchObject({ allowed: false, by: "rule" });
  });

  test("a tool that cannot name its paths asks even where its rules allow; a write tool is refused outright", async () => {
    const h = harness({ answers: ["once"] });
    const result = await h.check("broken_reader", { files: null });
    expect(result.allowed).toBe(true);
    expect(h.asked[0]!.subjects).toEqual([]);
    const yolo = harness({ yolo: true });
    expect(await yolo.check("broken_writer", { files: null })).toEqual({
      allowed: false,
      by: "rule",
      reason: "Refused: the paths of this broken_writer call could not be read. Check its arguments.",
    });
  });

  test("a read of a possible secret asks, even under --yolo and after an always; only a rule naming it lets it through", async () => {
    const h = harness({ yolo: true, answers: ["always", "once", "deny"] });
    const first = await h.check("read_file", { path: "./config/../.env" });
    expect(first).toEqual({ allowed: true, asked: h.asked[0]!, secretsAllowed: true });
    expect(h.asked[0]!.secret).toEqual({ path: ".env", why: "an env file" });
    expect(h.gate.grants.list()).toEqual([]);
    expect((await h.check("read_file", { path: ".env" })).allowed).toBe(true);
    expect((await h.check("git_show", { ref: "HEAD:deploy/id_rsa" })).allowed).toBe(false);
    expect(h.asked.map((request) => request.secret?.why)).toEqual(["an env file", "an env file", "an SSH private key"]);
    // read_many_files and grep leave such files out themselves: no question.
    expect(await h.check("read_many_files", { files: [{ path: ".env" }] })).toEqual({ allowed: true });

    const headless = harness({ headless: true, yolo: true, decide: denyAll });
    expect(await headless.check("read_file", { path: ".aws/credentials" })).toEqual({
      allowed: false,
      by: "headless",
      reason:
        "Denied: .aws/credentials may hold secrets (a cloud or cluster credential file) and nobody can be asked in a headless run. Ask the user to share what you need, or to allow it with a permission rule naming the path (permission.read_file).",
      asked: expect.anything(),
    });
    const named = harness({ headless: true, decide: denyAll, config: { read_file: { "*": "allow", ".env": "allow" } } });
    expect(await named.check("read_file", { path: "./.env" })).toEqual({ allowed: true, secretsAllowed: true });
    expect((await named.check("read_file", { path: "id_rsa" })).allowed).toBe(false);
    const bare = harness({ headless: true, decide: denyAll, config: { read_file: "allow" } });
    expect((await bare.check("read_file", { path: ".env" })).allowed).toBe(false);
  });

  test("plugin tools in autoApprove run without asking; a plugin cannot auto-approve another tool", async () => {
    const deploy: Plugin = { name: "deploy", description: "", tools: [_tool("deploy_preview")], autoApprove: ["deploy_preview", "bash"] };
    const plugins = createPluginHost({ cwd: "/ws", writeStderr: () => {}, enabled: ["deploy"], builtins: { deploy: () => deploy } });
    const h = harness({ plugins, answers: ["once"] });
    expect(await h.check("deploy_preview", {})).toEqual({ allowed: true });
    expect((await h.check("bash", { command: "ls" })).allowed).toBe(true);
    expect(h.asked.map((request) => request.tool)).toEqual(["bash"]);
  });

  test("questions are put one at a time, so always covers an identical call waiting behind it", async () => {
    let release!: () => void;
    const gateOpen = new Promise<void>((resolve) => {
      release = resolve;
    });
    const asked: string[] = [];
    const h = harness({
      decide: async (request) => {
        asked.push(request.subject);
        await gateOpen;
        return "always";
      },
    });
    const first = h.check("bash", { command: "git status" });
    const second = h.check("bash", { command: "git diff" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(asked).toEqual(["git status"]);
    release();
    expect((await first).allowed).toBe(true);
    expect(await second).toEqual({ allowed: true });
    expect(asked).toEqual(["git status"]);
  });
});
