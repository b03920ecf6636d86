/**
 * Claude Code permission rules from `.claude/settings.json`, mapped onto shiro's rules
 * (lib/approval/claude-rules.ts) and decided by the real gate over the built-in tools'
 * declarations: each rule against the spellings of the calls it should and should not cover.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowRuleFor, claudeRuleLayers, mapClaudeRules, type ClaudeRule } from "../../lib/approval/claude-rules.ts";
import { createGate } from "../../lib/extensions/gate.ts";
import { defaultPermission, evaluatePermission, parsePermissionRules } from "../../lib/approval/rules.ts";
import { createDisabledPluginHost } from "../../lib/extensions/plugin-host.ts";
import { builtinTools } from "../../lib/tools/index.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-claude-rules-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const TOOLS = builtinTools({ complete: async () => "" });
const defaults = defaultPermission(TOOLS);

function rulesOf(settings: Partial<Record<ClaudeRule["decision"], string[]>>, config: Record<string, never> | Record<string, unknown> = {}) {
  const rules: ClaudeRule[] = Object.entries(settings).flatMap(([decision, list]) =>
    list!.map((rule) => ({ decision: decision as ClaudeRule["decision"], rule, source: "s" })),
  );
  const mapped = mapClaudeRules(rules, TOOLS, { root, cwd: root });
  return { mapped, rules: parsePermissionRules(config, defaults, claudeRuleLayers(rules, TOOLS, { root, cwd: root }).layers) };
}

/** What the gate does with the call: allow, or the question it would put (nobody answers), or a deny. */
async function decide(settings: Parameters<typeof rulesOf>[0], name: string, input: unknown): Promise<"allow" | "ask" | "deny"> {
  let asked = false;
  const gate = createGate({
    rules: rulesOf(settings).rules,
    plugins: createDisabledPluginHost(),
    yolo: false,
    decide: async () => {
      asked = true;
      return "deny";
    },
  });
  const verdict = await gate.check({ callId: "c", tool: TOOLS.find((tool) => tool.name === name), name, input, cwd: root });
  return verdict.allowed ? "allow" : asked ? "ask" : "deny";
}

type Case = [call: string, name: string, input: unknown, expected: "allow" | "ask" | "deny"];
const bashCall = (command: string, expected: Case[3]): Case => [command, "bash", { command }, expected];

describe("Bash(prefix:*)", () => {
  const settings = { allow: ["Bash(npm run test:*)", "Bash(git:*)"], deny: ["Bash(git push:*)"] };
  const cases: Case[] = [
    bashCall("npm run test", "allow"),
    bashCall("npm run test -- --watch", "allow"),
    bashCall("env CI=1 npm run test", "allow"),
    bashCall("npm run testx", "ask"),
    bashCall("npm run build", "ask"),
    bashCall("npm run test && rm -rf /tmp/x", "ask"),
    bashCall("git status", "allow"),
    bashCall("git push origin main", "deny"),
    bashCall("true && git push", "deny"),
  ];
  test.each(cases)("%s", async (_label, name, input, expected) => {
    expect(await decide(settings, name, input)).toBe(expected);
  });
});

describe("Read(path) and Edit(path) cover every reading and every writing tool", () => {
  const settings = { allow: ["Edit(src/**)"], deny: ["Read(./secrets/**)", "Edit(/config/*.json)"] };
  const cases: Case[] = [
    ["read_file secrets/a.txt", "read_file", { path: "secrets/a.txt" }, "deny"],
    ["read_file ./secrets/a.txt", "read_file", { path: "./secrets/a.txt" }, "deny"],
    ["read_file x/../secrets/a.txt", "read_file", { path: "x/../secrets/a.txt" }, "deny"],
    ["read_file absolute", "read_file", { path: join(root, "secrets/deep/b.txt") }, "deny"],
    ["read_many_files", "read_many_files", { files: [{ path: "ok.txt" }, { path: "secrets/a.txt" }] }, "deny"],
    ["read_file elsewhere", "read_file", { path: "README.md" }, "allow"],
    ["write_file src/a.ts", "write_file", { path: "src/a.ts", content: "" }, "allow"],
    ["edit_file ./src/b.ts", "edit_file", { path: "./src/b.ts", oldString: "a", newString: "b" }, "allow"],
    ["multi_edit src/c.ts", "multi_edit", { path: "src/c.ts", edits: [{ oldString: "a", newString: "b" }] }, "allow"],
    ["delete_file src/d.ts", "delete_file", { path: "src/d.ts" }, "allow"],
    ["write_file lib/x.ts", "write_file", { path: "lib/x.ts", content: "" }, "ask"],
    ["write_file config/app.json", "write_file", { path: "config/app.json", content: "" }, "deny"],
  ];
  test.each(cases)("%s", async (_label, name, input, expected) => {
    expect(await decide(settings, name, input)).toBe(expected);
  });
});

describe("WebFetch(domain:…), bare names, MCP names", () => {
  const settings = { allow: ["WebFetch(domain:example.com)"], deny: ["Glob", "mcp__github__create_issue", "mcp__fs"] };
  const cases: Case[] = [
    ["https://example.com/docs", "web_fetch", { url: "https://example.com/docs" }, "allow"],
    ["https://example.com", "web_fetch", { url: "https://example.com" }, "allow"],
    ["http://example.com:8080/x", "web_fetch", { url: "http://example.com:8080/x" }, "allow"],
    ["https://example.com.evil.org/", "web_fetch", { url: "https://example.com.evil.org/" }, "ask"],
    ["https://sub.example.com/", "web_fetch", { url: "https://sub.example.com/" }, "ask"],
    ["glob", "glob", { pattern: "*.ts" }, "deny"],
  ];
  test.each(cases)("%s", async (_label, name, input, expected) => {
    expect(await decide(settings, name, input)).toBe(expected);
  });
  test("MCP tools keep their names; a bare server covers all its tools", () => {
    const { rules } = rulesOf(settings);
    expect(evaluatePermission(rules, "mcp__github__create_issue", []).decision).toBe("deny");
    expect(evaluatePermission(rules, "mcp__github__list_issues", []).decision).toBe("ask");
    expect(evaluatePermission(rules, "mcp__fs__read", []).decision).toBe("deny");
  });
});

describe("what cannot be mapped, and the order against config", () => {
  test("rules naming no shiro tool, and malformed ones, are skipped with why", () => {
    const { mapped } = rulesOf({ allow: ["NotebookEdit(x.ipynb)", "Bash(", "WebSearch"] });
    expect(mapped.skipped).toEqual([
      's: permission rule "NotebookEdit(x.ipynb)" names no tool shiro has',
      's: permission rule "Bash(" is not Tool or Tool(specifier)',
      's: permission rule "WebSearch" names no tool shiro has',
    ]);
  });
  test("a made-up tool is named by the Claude Code name it declares", () => {
    const frob = { name: "frob", effect: "exec", claudeCode: { name: "Frobnicate" } };
    const mapped = mapClaudeRules([{ decision: "deny", rule: "Frobnicate(fast *)", source: "s" }], [...TOOLS, frob], { root, cwd: root });
    expect([...mapped.tables]).toEqual([["frob", [["fast *", "deny"]]]]);
  });
  test("the settings' rules are a source of their own beside config's table: config keeps its table, a deny in either wins", () => {
    const { rules } = rulesOf({ allow: ["Bash(make:*)", "Bash(rm:*)"] }, { bash: { "rm *": "deny" } });
    expect(rules.tools.get("bash")).toEqual([["rm *", "deny"]]);
    expect(rules.layers.map((layer) => [layer.source, Object.fromEntries(layer.tables)])).toEqual([
      [
        "s",
        {
          bash: [
            ["make", "allow"],
            ["make *", "allow"],
            ["rm", "allow"],
            ["rm *", "allow"],
          ],
        },
      ],
    ]);
    expect([evaluatePermission(rules, "bash", ["make all"]).decision, evaluatePermission(rules, "bash", ["rm -rf x"])]).toEqual([
      "allow",
      { decision: "deny", matched: { tool: "bash", pattern: "rm *" } },
    ]);
  });
});

describe('the rule an "always in this project" answer writes', () => {
  const cases: [string, string, string | undefined][] = [
    ["bash", "git *", "Bash(git:*)"],
    ["bash", "*", "Bash"],
    ["bash", "", undefined],
    ["write_file", "*", "Write"],
    // `Edit` would reach every write tool: the tool's own name keeps it to edit_file.
    ["edit_file", "*", "edit_file"],
    ["web_fetch", "*", "WebFetch"],
    ["no_such_tool", "*", undefined],
  ];
  for (const [tool, pattern, rule] of cases) {
    test(`${tool} [${pattern}] → ${rule ?? "none"}, which maps back onto ${tool} alone`, () => {
      expect(allowRuleFor(tool, pattern, TOOLS, { root, cwd: root })).toBe(rule);
      if (!rule) return;
      const { tables } = mapClaudeRules([{ decision: "allow", rule, source: "s" }], TOOLS, { root, cwd: root });
      expect([...tables.keys()]).toEqual([tool]);
      expect(tables.get(tool)!.map(([mapped]) => mapped)).toContain(pattern);
    });
  }
});
