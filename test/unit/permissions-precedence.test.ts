/**
 * Deny wins across every source of rules: config `permission`, a trusted `.claude/settings.json`
 * and `.claude/settings.local.json` (one source each), MCP servers' `alwaysAllow`, the run's
 * `--allowed-tools` / `--disallowed-tools` and a custom command's pre-approved `allowed-tools`.
 * Each source is built by the function the session builds it with, and every call is decided by
 * the real gate over the built-in tools' declarations, with and without --yolo and an "always"
 * grant: a table of sources × verdicts × spellings of the same rule.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeRuleLayers, type ClaudeRule } from "../../lib/approval/claude-rules.ts";
import { layerRunRules } from "../../lib/approval/run-rules.ts";
import { defaultPermission, mayAllow, parsePermissionRules, ruleLayer, type RuleLayer } from "../../lib/approval/rules.ts";
import type { ApprovalRequest } from "../../lib/approval/request.ts";
import { createTurnNarrowing } from "../../lib/agent/turn-tools.ts";
import { createGate } from "../../lib/extensions/gate.ts";
import { alwaysAllowRules } from "../../lib/extensions/mcp/servers.ts";
import { createDisabledPluginHost } from "../../lib/extensions/plugin-host.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { projectRuleFor } from "../../lib/ui/approval-question.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-precedence-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PLACES = { root, cwd: root };
const MCP_TOOL: ToolDefinition = { ...builtinTools({ complete: async () => "" })[0]!, name: "mcp__db__drop_table", decision: undefined, effect: "exec" };
const TOOLS = [...builtinTools({ complete: async () => "" }), MCP_TOOL];

type Verdict = "allow" | "ask" | "deny";
type Lists = Partial<Record<Verdict, string[]>>;

/** Every source a session can have; each absent one adds nothing. */
interface Sources {
  config?: Record<string, unknown>;
  project?: Lists;
  local?: Lists;
  /** `mcpServers` entries with `alwaysAllow`. */
  mcp?: Record<string, { command: string; alwaysAllow: string[] }>;
  allowedTools?: string[];
  disallowedTools?: string[];
  /** A custom command's allowed-tools, pre-approved. */
  command?: string[];
  yolo?: boolean;
  /** "Always" grants given earlier in the session: tool → pattern. */
  grants?: [string, string][];
}

function settingsRules(lists: Lists | undefined, source: string): ClaudeRule[] {
  return Object.entries(lists ?? {}).flatMap(([decision, rules]) => rules!.map((rule) => ({ decision: decision as Verdict, rule, source })));
}

function layersOf(sources: Sources): RuleLayer[] {
  const mcp = alwaysAllowRules(sources.mcp ?? {});
  const settings = claudeRuleLayers(
    [...settingsRules(sources.project, ".claude/settings.json"), ...settingsRules(sources.local, ".claude/settings.local.json")],
    TOOLS,
    PLACES,
  );
  expect(settings.skipped).toEqual([]);
  const run = layerRunRules(TOOLS, { allowed: sources.allowedTools, disallowed: sources.disallowedTools }, PLACES);
  return [
    ...(Object.keys(mcp).length > 0
      ? [
          ruleLayer(
            "alwaysAllow",
            Object.keys(mcp).map((key) => [key, [["*", "allow"]]] as const),
          ),
        ]
      : []),
    ...settings.layers,
    ...run.layers,
  ];
}

/** What the gate does with one call under `sources`: allow, the question it puts (nobody answers yes), or a deny without a question. */
async function decide(sources: Sources, name: string, input: unknown): Promise<Verdict> {
  const rules = parsePermissionRules(sources.config ?? {}, defaultPermission(TOOLS), layersOf(sources));
  const asked: ApprovalRequest[] = [];
  const narrowing = createTurnNarrowing({ tools: () => TOOLS, places: PLACES });
  const gate = createGate({
    rules,
    plugins: createDisabledPluginHost(),
    yolo: sources.yolo === true,
    decide: async (request) => {
      asked.push(request);
      return "deny";
    },
    turnRules: narrowing.preApproved,
  });
  for (const [tool, pattern] of sources.grants ?? []) gate.grants.add(tool, pattern);
  const tool = TOOLS.find((candidate) => candidate.name === name);
  let allowed = false;
  async function* turn(): AsyncGenerator<AgentEvent, void, undefined> {
    allowed = (await gate.check({ callId: "c", tool, name, input, cwd: root })).allowed;
  }
  const events = sources.command ? narrowing.during(turn(), { allowedTools: sources.command, preApproved: true }) : turn();
  for await (const _ of events) {
    // The call is checked while the turn's events are read.
  }
  return allowed ? "allow" : asked.length > 0 ? "ask" : "deny";
}

const bash = (command: string) => ({ command });
type Row = [label: string, sources: Sources, tool: string, input: unknown, expected: Verdict];

/** Claude Code's spellings of "rm", and shiro config patterns that mean the same. */
const RM_ALLOWS = ["Bash(rm:*)", "Bash(rm *)", "Bash(rm -rf:*)", "Bash", "Bash(*)"];
const RM_DENIES = ["Bash(rm:*)", "Bash(rm *)", "Bash(rm -rf:*)", "Bash(rm -rf *)"];
const CONFIG_DENIES: Record<string, unknown>[] = [
  { bash: { "rm *": "deny" } },
  { bash: { "*": "ask", "rm -rf*": "deny" } },
  { bash: "deny" },
  { bash: { "rm*": "deny" } },
];
const RM_CALLS = ["rm -rf build", "/bin/rm -rf build", "env X=1 rm -rf build", "true && rm -rf build", "sudo rm -rf build", "echo $(rm -rf build)"];

const rows: Row[] = [];
for (const config of CONFIG_DENIES)
  for (const allow of RM_ALLOWS)
    for (const command of RM_CALLS) {
      const at = `config ${JSON.stringify(config)}`;
      rows.push([`${at} + settings.json allow ${allow}: ${command}`, { config, project: { allow: [allow] } }, "bash", bash(command), "deny"]);
      rows.push([`${at} + settings.local.json allow ${allow}: ${command}`, { config, local: { allow: [allow] } }, "bash", bash(command), "deny"]);
      rows.push([`${at} + --allowed-tools ${allow}: ${command}`, { config, allowedTools: [allow] }, "bash", bash(command), "deny"]);
      rows.push([`${at} + command allowed-tools ${allow}: ${command}`, { config, command: [allow] }, "bash", bash(command), "deny"]);
    }
for (const deny of RM_DENIES)
  for (const command of RM_CALLS) {
    const allows: [string, Sources][] = [
      ['config "bash": "allow"', { config: { bash: "allow" } }],
      ['config "rm *": "allow"', { config: { bash: { "*": "ask", "rm *": "allow" } } }],
      ["settings.local.json allow Bash(rm:*)", { local: { allow: ["Bash(rm:*)"] } }],
      ["--allowed-tools Bash", { allowedTools: ["Bash"] }],
      ["command allowed-tools Bash(rm:*)", { command: ["Bash(rm:*)"] }],
      ["--yolo", { yolo: true }],
      ['an "always" grant rm *', { grants: [["bash", "rm *"]] }],
    ];
    for (const [what, sources] of allows) {
      rows.push([`settings.json deny ${deny} + ${what}: ${command}`, { ...sources, project: { deny: [deny] } }, "bash", bash(command), "deny"]);
      rows.push([`settings.local.json deny ${deny} + ${what}: ${command}`, { ...sources, local: { deny: [deny] } }, "bash", bash(command), "deny"]);
    }
    rows.push([
      `--disallowed-tools ${deny} + config "bash": "allow": ${command}`,
      { config: { bash: "allow" }, disallowedTools: [deny] },
      "bash",
      bash(command),
      "deny",
    ]);
  }

describe("a deny anywhere wins over an allow anywhere", () => {
  test.each(rows)("%s", async (_label, sources, tool, input, expected) => {
    expect(await decide(sources, tool, input)).toBe(expected);
  });
});

describe("paths, MCP tools and the rest of the sources", () => {
  const cases: Row[] = [
    [
      "config read_file secrets/* deny + settings allow Read",
      { config: { read_file: { "*": "allow", "secrets/*": "deny" } }, project: { allow: ["Read"] } },
      "read_file",
      { path: "secrets/a.txt" },
      "deny",
    ],
    [
      "settings deny Read(./secrets/**) + config read_file allow",
      { config: { read_file: "allow" }, project: { deny: ["Read(./secrets/**)"] } },
      "read_file",
      { path: "./x/../secrets/a.txt" },
      "deny",
    ],
    [
      "settings deny Read(./secrets/**) reaches read_many_files",
      { config: { read_many_files: "allow" }, project: { deny: ["Read(./secrets/**)"] } },
      "read_many_files",
      { files: [{ path: "ok.md" }, { path: "secrets/a" }] },
      "deny",
    ],
    [
      "config write_file src/locked/* deny + settings allow Edit(src/**) + --yolo",
      { config: { write_file: { "src/locked/*": "deny" } }, project: { allow: ["Edit(src/**)"] }, yolo: true },
      "write_file",
      { path: "src/locked/a.ts", content: "" },
      "deny",
    ],
    [
      "config wildcard mcp__* deny + alwaysAllow drop_table",
      { config: { "mcp__*": "deny" }, mcp: { db: { command: "x", alwaysAllow: ["drop_table"] } } },
      "mcp__db__drop_table",
      {},
      "deny",
    ],
    [
      "settings deny mcp__db + alwaysAllow drop_table + --yolo",
      { project: { deny: ["mcp__db"] }, mcp: { db: { command: "x", alwaysAllow: ["drop_table"] } }, yolo: true },
      "mcp__db__drop_table",
      {},
      "deny",
    ],
    [
      "config web_fetch deny + settings allow WebFetch(domain:example.com)",
      { config: { web_fetch: "deny" }, local: { allow: ["WebFetch(domain:example.com)"] } },
      "web_fetch",
      { url: "https://example.com/" },
      "deny",
    ],
    [
      "settings.local.json allow + settings.json deny, same rule",
      { project: { deny: ["Bash(git push:*)"] }, local: { allow: ["Bash(git push:*)"] } },
      "bash",
      bash("git push origin main"),
      "deny",
    ],
    [
      "settings.json allow + settings.local.json deny, same rule",
      { project: { allow: ["Bash(git push:*)"] }, local: { deny: ["Bash(git push:*)"] } },
      "bash",
      bash("git push origin main"),
      "deny",
    ],
    // A source that denies one command of a line denies the line; one that allows all of it does not outvote that.
    [
      "a chain with one denied command",
      { project: { allow: ["Bash"] }, config: { bash: { "git push*": "deny" } } },
      "bash",
      bash("git status && git push"),
      "deny",
    ],
  ];
  test.each(cases)("%s", async (_label, sources, tool, input, expected) => {
    expect(await decide(sources, tool, input)).toBe(expected);
  });
});

describe("then ask wins over allow; allow applies only where nothing denies or asks", () => {
  const cases: Row[] = [
    [
      "config ask git push* + settings allow Bash(git:*)",
      { config: { bash: { "git push*": "ask" } }, project: { allow: ["Bash(git:*)"] } },
      "bash",
      bash("git push"),
      "ask",
    ],
    [
      "settings ask Bash(git push:*) + config allow git *",
      { config: { bash: { "git *": "allow" } }, local: { ask: ["Bash(git push:*)"] } },
      "bash",
      bash("git push"),
      "ask",
    ],
    ["settings ask + --allowed-tools allow", { project: { ask: ["Bash(npm publish:*)"] }, allowedTools: ["Bash(npm:*)"] }, "bash", bash("npm publish"), "ask"],
    [
      "settings ask + command allowed-tools",
      { project: { ask: ["Bash(git commit:*)"] }, command: ["Bash(git commit:*)"] },
      "bash",
      bash("git commit -m x"),
      "ask",
    ],
    [
      'config "bash": "ask" is an ask rule: it outvotes a settings allow',
      { config: { bash: "ask" }, project: { allow: ["Bash(npm test:*)"] } },
      "bash",
      bash("npm test"),
      "ask",
    ],
    ["settings ask Read(./docs/**) + the read default allow", { project: { ask: ["Read(./docs/**)"] } }, "read_file", { path: "docs/a.md" }, "ask"],
    ["settings allow over bash's default ask", { project: { allow: ["Bash(npm test:*)"] } }, "bash", bash("npm test -- -w"), "allow"],
    [
      "config table without a match + settings allow",
      { config: { bash: { "git status*": "allow" } }, local: { allow: ["Bash(npm test:*)"] } },
      "bash",
      bash("npm test"),
      "allow",
    ],
    ["--allowed-tools over bash's default", { allowedTools: ["Bash(make:*)"] }, "bash", bash("make all"), "allow"],
    ["command allowed-tools over bash's default", { command: ["Bash(git add:*)"] }, "bash", bash("git add ."), "allow"],
    ["alwaysAllow over an MCP tool's ask", { mcp: { db: { command: "x", alwaysAllow: ["drop_table"] } } }, "mcp__db__drop_table", {}, "allow"],
    [
      "config allow git * + settings allow: neither denies",
      { config: { bash: { "git *": "allow" } }, project: { allow: ["Bash(git:*)"] } },
      "bash",
      bash("git log"),
      "allow",
    ],
    ["--yolo turns an ask into allow, never a deny", { yolo: true, config: { bash: { "git push*": "ask" } } }, "bash", bash("git push"), "allow"],
    ["a read-only command runs by default", {}, "bash", bash("ls -la"), "allow"],
    ['a settings ask: ["Bash"] asks for a read-only command too', { project: { ask: ["Bash"] } }, "bash", bash("ls -la"), "ask"],
    ["a settings ask Bash(ls:*) asks for ls", { local: { ask: ["Bash(ls:*)"] } }, "bash", bash("ls -la"), "ask"],
  ];
  test.each(cases)("%s", async (_label, sources, tool, input, expected) => {
    expect(await decide(sources, tool, input)).toBe(expected);
  });
});

describe("a read of a possible secret passes without its question only where an allow names it and nothing asks", () => {
  const cases: Row[] = [
    ["settings allow Read and Read(.env)", { project: { allow: ["Read", "Read(.env)"] } }, "read_file", { path: ".env" }, "allow"],
    ["settings allow Read only", { project: { allow: ["Read"] } }, "read_file", { path: ".env" }, "ask"],
    ["--allowed-tools Read(.env)", { allowedTools: ["Read(.env)"] }, "read_file", { path: ".env" }, "allow"],
    [
      "--allowed-tools Read(.env) + settings ask Read(.env)",
      { allowedTools: ["Read(.env)"], local: { ask: ["Read(.env)"] } },
      "read_file",
      { path: ".env" },
      "ask",
    ],
    [
      "settings allow Read(.env) + config deny .env",
      { project: { allow: ["Read(.env)"] }, config: { read_file: { "*": "allow", ".env": "deny" } } },
      "read_file",
      { path: ".env" },
      "deny",
    ],
    [
      "config allow .env + settings deny Read(./.env) + --yolo",
      { config: { read_file: { ".env": "allow" } }, project: { deny: ["Read(./.env)"] }, yolo: true },
      "read_file",
      { path: ".env" },
      "deny",
    ],
  ];
  test.each(cases)("%s", async (_label, sources, tool, input, expected) => {
    expect(await decide(sources, tool, input)).toBe(expected);
  });
});

describe("a tool some source denies whole is not offered where nobody can be asked", () => {
  const may = (sources: Sources, tool: string) => mayAllow(parsePermissionRules(sources.config ?? {}, defaultPermission(TOOLS), layersOf(sources)), tool);
  test.each([
    ['config "bash": "deny" + settings allow Bash(npm:*)', { config: { bash: "deny" }, project: { allow: ["Bash(npm:*)"] } }, false],
    ["settings deny Bash + config allow", { config: { bash: "allow" }, local: { deny: ["Bash"] } }, false],
    ["--disallowed-tools Bash + --allowed-tools Bash(ls:*)", { disallowedTools: ["Bash"], allowedTools: ["Bash(ls:*)"] }, false],
    ["config rm * deny + settings allow Bash(npm:*)", { config: { bash: { "rm *": "deny" } }, project: { allow: ["Bash(npm:*)"] } }, true],
    ["settings allow over the default ask", { project: { allow: ["Bash(npm:*)"] } }, true],
  ] as [string, Sources, boolean][])("%s", (_label, sources, expected) => {
    expect(may(sources, "bash")).toBe(expected);
  });
});

describe('"always in this project" (p) is offered only where the saved rule would allow the call', () => {
  /** The question the gate puts for `command` under `sources`, and the rule p would offer for it. */
  async function offered(sources: Sources, command: string): Promise<string | undefined> {
    const rules = parsePermissionRules(sources.config ?? {}, defaultPermission(TOOLS), layersOf(sources));
    let asked: ApprovalRequest | undefined;
    const gate = createGate({
      rules,
      plugins: createDisabledPluginHost(),
      yolo: false,
      decide: async (request) => {
        asked = request;
        return "deny";
      },
    });
    await gate.check({ callId: "c", tool: TOOLS.find((tool) => tool.name === "bash"), name: "bash", input: bash(command), cwd: root });
    expect(asked).toBeDefined();
    return projectRuleFor({ tools: () => TOOLS, rules: () => rules, cwd: root }, asked!, root);
  }
  test.each([
    ["no rules", {}, "git commit -m x", "Bash(git:*)"],
    // A deny elsewhere no longer hides it: the saved allow cannot undo that deny (the table above).
    ["config denies git push", { config: { bash: { "git push *": "deny" } } }, "git commit -m x", "Bash(git:*)"],
    ["settings deny Bash(git push:*)", { project: { deny: ["Bash(git push:*)"] } }, "git commit -m x", "Bash(git:*)"],
    ['config "*": "ask" outvotes it', { config: { bash: { "*": "ask", "git push *": "deny" } } }, "git commit -m x", undefined],
    ["a settings ask outvotes it", { local: { ask: ["Bash(git commit:*)"] } }, "git commit -m x", undefined],
    ["a config ask outvotes it", { config: { bash: { "git commit*": "ask" } } }, "git commit -m x", undefined],
  ] as [string, Sources, string, string | undefined][])("%s", async (_label, sources, command, rule) => {
    expect(await offered(sources, command)).toBe(rule);
  });
});
