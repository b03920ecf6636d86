/** One run's tool rules: shiro's and Claude Code's spellings, layered over the config's, and the schema check. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { layerRunRules, namedTools, splitRuleList } from "../../lib/approval/run-rules.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { evaluatePermission, parsePermissionRules } from "../../lib/approval/rules.ts";
import { loadOutputSchema } from "../../lib/agent/output-schema.ts";

const TOOLS = builtinTools({ complete: async () => "" });
const PLACES = { root: "/ws", cwd: "/ws" };

describe("run tool rules", () => {
  test.each([
    ["bash", ["bash"]],
    ["Bash", ["bash"]],
    ["Bash(git status:*)", ["bash"]],
    ["bash(git status*)", ["bash"]],
    ["Edit", ["write_file", "edit_file", "multi_edit", "apply_patch", "move_file", "delete_file"]],
    ["Read", ["read_file", "read_many_files", "list_dir", "grep", "git_blame", "git_diff", "git_log", "git_show"]],
    ["mcp__github__create_issue", ["mcp__github__create_issue"]],
    ["mcp__github", ["mcp__github__*"]],
  ])("%s names its tools by declaration", (text, expected) => {
    expect(namedTools([text], TOOLS, PLACES).sort()).toEqual([...expected].sort());
  });

  test.each([
    ["bash(", '--disallowed-tools: permission rule "bash(" is not Tool or Tool(specifier)'],
    ["launch_rockets", '--disallowed-tools: permission rule "launch_rockets" names no tool shiro has'],
  ])("%j is refused in one line naming the flag", (text, message) => {
    expect(() => layerRunRules(TOOLS, { disallowed: [text] }, PLACES)).toThrow(message);
  });

  test("lists split on commas and on spaces outside parentheses", () => {
    expect(splitRuleList("Bash(git log:*) Read,Edit  mcp__a__b")).toEqual(["Bash(git log:*)", "Read", "Edit", "mcp__a__b"]);
  });

  test("beside config and defaults: each flag is one source, a disallowed rule wins, a whole one withholds", () => {
    const layered = layerRunRules(TOOLS, { allowed: ["Bash(npm test:*)"], disallowed: ["bash(git push*)", "mcp__srv", "web_fetch"] }, PLACES);
    expect(layered.layers.map((layer) => [layer.source, Object.fromEntries(layer.tables)])).toEqual([
      [
        "--allowed-tools",
        {
          bash: [
            ["npm test", "allow"],
            ["npm test *", "allow"],
          ],
        },
      ],
      ["--disallowed-tools", { bash: [["git push*", "deny"]], "mcp__srv__*": [["*", "deny"]], web_fetch: [["*", "deny"]] }],
    ]);
    expect([...layered.removed].sort()).toEqual(["mcp__srv__*", "web_fetch"]);
    const rules = parsePermissionRules({ bash: { "git *": "allow" }, "mcp__*": "ask" }, { bash: "ask" }, layered.layers);
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
