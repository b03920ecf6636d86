/**
 * A custom command's allowed-tools through the turn narrowing and the real gate: Claude Code's
 * documented commit command narrows the turn to bash and pre-approves exactly the commands its
 * rules cover; every other call is decided as usual (asked), and a deny rule still refuses.
 */
import { expect, test } from "bun:test";
import { createGate } from "../../lib/extensions/gate.ts";
import type { ApprovalRequest } from "../../lib/approval/request.ts";
import { addDeclaredDefaults, defaultPermission, parsePermissionRules } from "../../lib/approval/rules.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { createTurnNarrowing, type TurnTools } from "../../lib/agent/turn-tools.ts";
import type { AgentEvent } from "../../lib/events.ts";

const COMMIT_RULES = ["Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"];
const tools = builtinTools({ complete: async () => "" });
const bash = tools.find((tool) => tool.name === "bash")!;

/** Runs `body` inside a turn narrowed by `turn`, with a gate that records every question and answers no. */
async function inTurn(turn: TurnTools | undefined, config: object, body: (check: (command: string) => Promise<boolean>) => Promise<void>): Promise<string[]> {
  const narrowing = createTurnNarrowing({ tools: () => tools, places: { root: "/ws", cwd: "/ws" } });
  const asked: string[] = [];
  const rules = parsePermissionRules(config, defaultPermission(tools));
  addDeclaredDefaults(rules, tools);
  const gate = createGate({
    rules,
    plugins: createPluginHost({ cwd: "/ws", writeStderr: () => {}, enabled: [] }),
    yolo: false,
    decide: async (request: ApprovalRequest) => {
      asked.push(request.subject);
      return "deny";
    },
    turnRules: narrowing.preApproved,
  });
  let n = 0;
  const check = async (command: string) => (await gate.check({ callId: `c${++n}`, tool: bash, name: "bash", input: { command }, cwd: "/ws" })).allowed;
  async function* events(): AsyncGenerator<AgentEvent, void, undefined> {
    await body(check);
  }
  for await (const _ of narrowing.during(events(), turn)) {
    // The body runs while the turn's events are read.
  }
  expect(narrowing.allows(bash)).toBe(true);
  return asked;
}

test("the commit command's turn offers only bash; a pre-approved turn runs what its rules cover without a question, and asks for the rest", async () => {
  const narrowing = createTurnNarrowing({ tools: () => tools, places: { root: "/ws", cwd: "/ws" } });
  async function* one(): AsyncGenerator<AgentEvent, void, undefined> {
    expect(tools.filter(narrowing.allows).map((tool) => tool.name)).toEqual(["bash"]);
  }
  for await (const _ of narrowing.during(one(), { allowedTools: COMMIT_RULES })) {
    // drained
  }
  expect(tools.filter(narrowing.allows).length).toBe(tools.length);

  const results: [string, boolean][] = [];
  const asked = await inTurn({ allowedTools: COMMIT_RULES, preApproved: true }, {}, async (check) => {
    for (const command of [
      "git add .",
      "git add -A src",
      "git status",
      "git commit -m 'x'",
      "git add",
      "rm x",
      "git push",
      "git add . && rm -rf /",
      "git addx",
    ])
      results.push([command, await check(command)]);
  });
  expect(results).toEqual([
    ["git add .", true],
    ["git add -A src", true],
    ["git status", true],
    ["git commit -m 'x'", true],
    ["git add", true],
    ["rm x", false],
    ["git push", false],
    ["git add . && rm -rf /", false],
    ["git addx", false],
  ]);
  expect(asked).toEqual(["rm x", "git push", "git add . && rm -rf /", "git addx"]);
});

test("not pre-approved (an untrusted project command), the same turn asks for every call its rules would cover", async () => {
  const asked = await inTurn({ allowedTools: COMMIT_RULES, preApproved: false }, {}, async (check) => {
    expect(await check("git add .")).toBe(false);
  });
  expect(asked).toEqual(["git add ."]);
});

test("a deny rule still refuses a pre-approved command, without a question; outside the turn nothing is pre-approved", async () => {
  let denied: boolean | undefined;
  const asked = await inTurn({ allowedTools: COMMIT_RULES, preApproved: true }, { bash: { "git commit*": "deny" } }, async (check) => {
    denied = await check("git commit -m x");
  });
  expect([denied, asked]).toEqual([false, []]);
  const narrowing = createTurnNarrowing({ tools: () => tools, places: { root: "/ws", cwd: "/ws" } });
  expect(narrowing.preApproved()).toBeUndefined();
});

test("Claude Code names reach shiro's tools: Read its read family, Edit the write tools, mcp__server its tools; unknown names offer nothing", async () => {
  const narrowing = createTurnNarrowing({ tools: () => tools, places: { root: "/ws", cwd: "/ws" } });
  const offered = async (rules: string[]) => {
    let names: string[] = [];
    async function* one(): AsyncGenerator<AgentEvent, void, undefined> {
      names = [...tools, { name: "mcp__gh__issue" }, { name: "mcp__other__x" }].filter(narrowing.allows).map((tool) => tool.name);
    }
    for await (const _ of narrowing.during(one(), { allowedTools: rules })) {
      // drained
    }
    return names;
  };
  expect(await offered(["Read"])).toContain("read_file");
  expect(await offered(["Read"])).not.toContain("write_file");
  expect(await offered(["Edit"])).toEqual(expect.arrayContaining(["write_file", "edit_file"]));
  expect(await offered(["mcp__gh"])).toEqual(["mcp__gh__issue"]);
  expect(await offered(["WebSearch"])).toEqual([]);
});
