/**
 * The task tool through the binary: a subagent runs its own loop against the same provider with
 * a read-only tool set, and only its report reaches the parent; --no-subagent removes the tool.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest } from "../fakes/provider.ts";
import { parseEventLines, systemOf, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();
const shiro = (args: string[]) => e2e.shiro(args, { protocol: "anthropic" });
const toolNames = (request: RecordedRequest) => (request.body.tools as { name: string }[]).map((tool) => tool.name);

describe("task (subagents)", () => {
  test("an explore subagent reads on its own and only its report comes back", async () => {
    writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "alpha\n");
    let subSteps = 0;
    let parentSteps = 0;
    e2e.fake.respond((request) => {
      if (systemOf(request).includes("You are a subagent exploring")) {
        subSteps += 1;
        return subSteps === 1 ? { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] } : { text: "report: notes.txt holds alpha (line 1)" };
      }
      parentSteps += 1;
      return parentSteps === 1
        ? { toolCalls: [{ name: "task", input: { description: "read the notes", prompt: "What does notes.txt say?" } }] }
        : { text: "The notes say alpha." };
    });
    const result = await shiro(["-p", "what do the notes say?", "--json"]);
    expect(result.code).toBe(0);
    const [parentFirst, subFirst, subSecond, parentSecond] = e2e.fake.requests;
    expect(toolNames(parentFirst!)).toContain("task");
    const taskSchema = (parentFirst!.body.tools as { name: string; input_schema: { properties: { kind: { enum: string[] } } } }[]).find(
      (tool) => tool.name === "task",
    )!;
    expect(taskSchema.input_schema.properties.kind.enum).toEqual(["explore", "review"]);
    expect(toolNames(subFirst!).sort()).toEqual([
      "git_blame",
      "git_branch",
      "git_commit_message",
      "git_diff",
      "git_log",
      "git_show",
      "git_status",
      "glob",
      "grep",
      "list_dir",
      "read_file",
      "read_many_files",
    ]);
    expect(toolResultsOf(subSecond!).map((r) => r.output)).toEqual(["1: alpha"]);
    expect(toolResultsOf(parentSecond!).map((r) => r.output)).toEqual(["report: notes.txt holds alpha (line 1)"]);
    expect(JSON.stringify(parentSecond!.body)).not.toContain("1: alpha");
    const events = parseEventLines(result.stdout);
    expect(events.some((event) => event.type === "tool-output" && String(event.chunk).startsWith('[read the notes] read_file {"path":"notes.txt"}'))).toBe(
      true,
    );
    const done = events.at(-1)!;
    expect(done.inputTokens).toBeGreaterThan(0);
  });

  test("a worker is refused without an approval channel; --no-subagent removes the tool", async () => {
    e2e.fake.script(
      { toolCalls: [{ name: "task", input: { description: "fix", prompt: "fix it", kind: "worker" } }] },
      { text: "ok" },
      { text: "no task here" },
    );
    expect((await shiro(["-p", "go"])).code).toBe(0);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain('"kind"');
    expect((await shiro(["-p", "go", "--no-subagent"])).code).toBe(0);
    expect(toolNames(e2e.fake.requests[2]!)).not.toContain("task");
    expect(systemOf(e2e.fake.requests[2]!)).not.toContain("- task:");
  });

  test("two task calls in one step run at once on config subagentModel; done splits the subagents' tokens from the totals", async () => {
    e2e.writeConfig({ subagentModel: "claude-haiku-4-5" });
    let parentSteps = 0;
    let subRequests = 0;
    let overlapped = false;
    let firstPending = false;
    let releaseFirst: (() => void) | undefined;
    e2e.fake.respond(async (request) => {
      if (systemOf(request).includes("You are a subagent exploring")) {
        subRequests += 1;
        const label = userTextsOf(request)[0]!;
        if (subRequests === 1) {
          // The first subagent's answer waits for the second subagent's request (at most 10 s):
          // run one after another, the second would only arrive after this one answered.
          firstPending = true;
          await new Promise<void>((resolve) => {
            releaseFirst = resolve;
            setTimeout(resolve, 10_000);
          });
          firstPending = false;
        } else {
          overlapped = firstPending;
          releaseFirst?.();
        }
        return { text: `report for ${label}`, usage: { input: 100, output: 10 } };
      }
      parentSteps += 1;
      return parentSteps === 1
        ? {
            toolCalls: [
              { name: "task", input: { description: "first", prompt: "look at A" } },
              { name: "task", input: { description: "second", prompt: "look at B" } },
            ],
            usage: { input: 1000, output: 50 },
          }
        : { text: "Both reported.", usage: { input: 1200, output: 20 } };
    });
    const result = await shiro(["-p", "investigate A and B", "--json"]);
    expect(result.code).toBe(0);
    expect(overlapped).toBe(true);
    const subs = e2e.fake.requests.filter((request) => systemOf(request).includes("You are a subagent exploring"));
    expect(subs.map((request) => request.body.model)).toEqual(["claude-haiku-4-5", "claude-haiku-4-5"]);
    const parents = e2e.fake.requests.filter((request) => !subs.includes(request));
    expect(parents.map((request) => request.body.model)).toEqual(["claude-sonnet-4-5", "claude-sonnet-4-5"]);
    expect(toolResultsOf(parents[1]!).map((r) => r.output)).toEqual(["report for look at A", "report for look at B"]);
    const done = parseEventLines(result.stdout).at(-1)!;
    expect(done).toMatchObject({ type: "done", inputTokens: 2400, outputTokens: 90, subagents: { inputTokens: 200, outputTokens: 20 } });
    const subagents = done.subagents as { costUsd?: number };
    expect(typeof subagents.costUsd).toBe("number");
    expect(done.costUsd as number).toBeGreaterThan(subagents.costUsd!);
  }, 30_000);
});
