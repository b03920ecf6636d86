/** One run's tool rules: shiro's and Claude Code's spellings, layered over the config's, and the schema check. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { layerRunRules, parseRunToolRule, splitRuleList } from "../../lib/approval/run-rules.ts";
import { evaluatePermission, parsePermissionRules } from "../../lib/approval/rules.ts";
import { loadOutputSchema } from "../../lib/agent/output-schema.ts";

describe("run tool rules", () => {
  test.each([
    ["bash", [{ tool: "bash", pattern: "*" }]],
    ["Bash", [{ tool: "bash", pattern: "*" }]],
    ["Bash()", [{ tool: "bash", pattern: "*" }]],
    ["Bash(git status:*)", [{ tool: "bash", pattern: "git status*" }]],
    ["bash(git status*)", [{ tool: "bash", pattern: "git status*" }]],
    ["Edit(src/**)", ["edit_file", "multi_edit", "apply_patch"].map((tool) => ({ tool, pattern: "src/*" }))],
    ["Read(.env)", ["read_file", "read_many_files"].map((tool) => ({ tool, pattern: ".env" }))],
    ["mcp__github__create_issue", [{ tool: "mcp__github__create_issue", pattern: "*" }]],
    ["mcp__github__*", [{ tool: "mcp__github__*", pattern: "*" }]],
  ])("%s", (text, expected) => {
    expect(parseRunToolRule(text, "--allowed-tools")).toEqual(expected);
  });

  test.each([["bash("], ["(x)"], ["ba sh"], [""]])("%j is refused in one line naming the flag", (text) => {
    expect(() => parseRunToolRule(text, "--disallowed-tools")).toThrow(`--disallowed-tools: "${text}" is not a tool rule`);
  });

  test("lists split on commas and on spaces outside parentheses", () => {
    expect(splitRuleList("Bash(git log:*) Read,Edit  mcp__a__b")).toEqual(["Bash(git log:*)", "Read", "Edit", "mcp__a__b"]);
  });

  test("layered over config and defaults: allowed patterns join the tool's table, a disallowed rule is last and wins", () => {
    const layered = layerRunRules(
      { bash: { "git *": "allow" }, "mcp__*": "ask" },
      { bash: "ask", read_file: "allow" },
      { allowed: ["Bash(npm test:*)"], disallowed: ["bash(git push*)", "mcp__srv__*", "read_file"] },
    );
    expect(layered.permission).toEqual({
      bash: { "git *": "allow", "npm test*": "allow", "git push*": "deny" },
      "mcp__*": "ask",
      "mcp__srv__*": { "*": "deny" },
      read_file: { "*": "deny" },
    });
    expect(layered.removed).toEqual(["mcp__srv__*", "read_file"]);
    const rules = parsePermissionRules(layered.permission, { bash: "ask" });
    const decide = (tool: string, subject: string) => evaluatePermission(rules, tool, [subject]).decision;
    expect([decide("bash", "git status"), decide("bash", "git push origin"), decide("bash", "npm test -- x"), decide("bash", "rm x")]).toEqual([
      "allow",
      "deny",
      "allow",
      "ask",
    ]);
    expect([decide("mcp__srv__x", ""), decide("mcp__other__x", "")]).toEqual(["deny", "ask"]);
  });
});

describe("output schema", () => {
  test.each([
    ['{"n": 1}', { ok: true, value: { n: 1 } }],
    ['```json\n{"n": 2}\n```', { ok: true, value: { n: 2 } }],
    ['{"n": "one"}', { ok: false, errors: ["/n must be integer"] }],
    ["{}", { ok: false, errors: ["/ must have required property 'n'"] }],
    ["the answer is 1", { ok: false, errors: ["the answer is not JSON"] }],
    ["", { ok: false, errors: ["the answer is empty, not JSON"] }],
  ])("%j", (answer, expected) => {
    const dir = mkdtempSync(join(tmpdir(), "shiro-schema-"));
    try {
      writeFileSync(join(dir, "s.json"), JSON.stringify({ type: "object", required: ["n"], properties: { n: { type: "integer" } } }));
      expect(loadOutputSchema(dir, "s.json").check(answer)).toEqual(expected as never);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
