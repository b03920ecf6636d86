/**
 * Custom subagents people wrote (`.claude/agents/*.md`, `.shiro/agents/*.md`, Claude Code's
 * format), through the built binary: a trusted project definition becomes a `task` kind offered
 * with its description, runs with its declared tools and model and its body as system prompt; an
 * untrusted one is not offered and a notice says why; the user's own are trusted.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEventLines, systemOf, toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

const REVIEWER = `---
name: reviewer
description: Reviews a change for correctness and names each defect with file and line.
tools: Read, Grep
model: gpt-4o-mini
---
You are the house reviewer. End every report with LGTM or NOT YET.
`;

function taskTool(index: number): any {
  return e2e.fake.requests[index]!.body.tools.find((tool: any) => tool.function.name === "task").function;
}

function writeReviewer(trusted: boolean): void {
  mkdirSync(join(e2e.dirs.cwd, ".claude", "agents"), { recursive: true });
  writeFileSync(join(e2e.dirs.cwd, ".claude", "agents", "reviewer.md"), REVIEWER);
  if (!trusted) return;
  // What the REPL's trust question records for this exact content (lib/store/trusted-files.ts).
  const sha256 = createHash("sha256").update(REVIEWER).digest("hex");
  mkdirSync(join(e2e.dirs.home, ".shiro-neko"), { recursive: true });
  writeFileSync(
    join(e2e.dirs.home, ".shiro-neko", "trusted-projects.json"),
    JSON.stringify({ version: 1, entries: [{ root: e2e.dirs.cwd, file: ".claude/agents/reviewer.md", sha256, at: new Date().toISOString() }] }),
  );
}

describe("custom subagents", () => {
  test("a trusted .claude/agents/reviewer.md runs with its tools, its model and its prompt", async () => {
    writeReviewer(true);
    e2e.fake.script(
      { toolCalls: [{ name: "task", input: { description: "review", prompt: "review a.ts", kind: "reviewer" } }] },
      { text: "a.ts:3 off by one. NOT YET" },
      { text: "The reviewer found one defect." },
    );
    const result = await e2e.shiro(["-p", "get this reviewed"]);
    expect(result.code).toBe(0);
    expect(e2e.fake.requests.length).toBe(3);
    const task = taskTool(0);
    expect(task.description).toContain("Custom kinds:\n- `reviewer`: Reviews a change for correctness and names each defect with file and line.");
    expect(task.parameters.properties.kind.enum).toEqual(["explore", "review", "reviewer"]);
    const sub = e2e.fake.requests[1]!;
    expect(sub.body.model).toBe("gpt-4o-mini");
    // Read is every read tool that declares paths, as Claude Code applies it (lib/approval/claude-rules.ts).
    expect(sub.body.tools.map((tool: any) => tool.function.name).sort()).toEqual([
      "git_blame",
      "git_diff",
      "git_log",
      "git_show",
      "grep",
      "list_dir",
      "read_file",
      "read_many_files",
    ]);
    expect(systemOf(sub)).toEndWith("You are the house reviewer. End every report with LGTM or NOT YET.");
    expect(e2e.fake.requests[0]!.body.model).not.toBe("gpt-4o-mini");
    expect(toolResultsOf(e2e.fake.requests[2]!)[0]!.output).toBe("a.ts:3 off by one. NOT YET");
  });

  test("its usage is priced at its own model, not at config subagentModel: done, the run snapshot and sessions show", async () => {
    writeReviewer(true);
    e2e.writeConfig({ subagentModel: "claude-haiku-4-5" });
    // A million tokens each way: gpt-4o-mini costs $0.15 + $0.60 (claude-haiku-4-5 would be $1 + $5).
    e2e.fake.respond(async (request) =>
      request.body.model === "gpt-4o-mini"
        ? { text: "LGTM", usage: { input: 1_000_000, output: 1_000_000 } }
        : e2e.fake.requests.length === 1
          ? { toolCalls: [{ name: "task", input: { description: "review", prompt: "review a.ts", kind: "reviewer" } }], usage: { input: 10, output: 1 } }
          : { text: "Reviewed.", usage: { input: 10, output: 1 } },
    );
    const result = await e2e.shiro(["-p", "get this reviewed", "--json"]);
    expect(result.code).toBe(0);
    expect(e2e.fake.requests.map((request) => request.body.model)).toEqual([
      expect.not.stringMatching("gpt-4o-mini"),
      "gpt-4o-mini",
      expect.not.stringMatching("gpt-4o-mini"),
    ]);
    const done = parseEventLines(result.stdout).at(-1)! as any;
    expect(done.subagents).toEqual({ inputTokens: 1_000_000, outputTokens: 1_000_000, costUsd: 0.75 });
    const snapshot = JSON.parse((await e2e.shiro(["runs", "show", done.runId, "--json"])).stdout);
    expect(snapshot.costUsd).toBeCloseTo(done.costUsd, 10);
    expect(done.costUsd - 0.75).toBeLessThan(0.01);
    const shown = await e2e.shiro(["sessions", "show", done.sessionId]);
    expect(shown.stdout).toContain("  subagents: 1000000 in / 1000000 out, $0.75\n");
  });

  test("--max-cost refuses to start when a custom agent's own model has no price", async () => {
    writeReviewer(true);
    writeFileSync(join(e2e.dirs.cwd, ".claude", "agents", "reviewer.md"), REVIEWER.replace("model: gpt-4o-mini", "model: my-local-model"));
    const sha256 = createHash("sha256").update(REVIEWER.replace("model: gpt-4o-mini", "model: my-local-model")).digest("hex");
    writeFileSync(
      join(e2e.dirs.home, ".shiro-neko", "trusted-projects.json"),
      JSON.stringify({ version: 1, entries: [{ root: e2e.dirs.cwd, file: ".claude/agents/reviewer.md", sha256, at: new Date().toISOString() }] }),
    );
    const refused = await e2e.shiro(["-p", "review", "--max-cost", "1"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'shiro: --max-cost needs a priced model: "my-local-model" is not in shiro\'s price table, so its spending cannot be bounded',
    );
    expect(e2e.fake.requests.length).toBe(0);
  });

  test("an untrusted project definition is not offered, and a notice says why", async () => {
    writeReviewer(false);
    e2e.fake.script({ text: "ok" });
    const result = await e2e.shiro(["-p", "hi"]);
    expect(result.code).toBe(0);
    expect(taskTool(0).parameters.properties.kind.enum).toEqual(["explore", "review"]);
    expect(result.stderr).toContain(`${join(e2e.dirs.cwd, ".claude", "agents", "reviewer.md")} not used: this project's subagent definition is not trusted`);
  });

  test("an edited definition is untrusted again", async () => {
    writeReviewer(true);
    writeFileSync(join(e2e.dirs.cwd, ".claude", "agents", "reviewer.md"), REVIEWER.replace("house reviewer", "attacker"));
    e2e.fake.script({ text: "ok" });
    await e2e.shiro(["-p", "hi"]);
    expect(taskTool(0).parameters.properties.kind.enum).toEqual(["explore", "review"]);
  });

  test("the user's own .shiro/agents need no trust; a definition without a description is skipped with a notice", async () => {
    mkdirSync(join(e2e.dirs.home, ".shiro", "agents"), { recursive: true });
    writeFileSync(join(e2e.dirs.home, ".shiro", "agents", "scout.md"), "---\ndescription: Maps a folder.\n---\nList what is there.\n");
    writeFileSync(join(e2e.dirs.home, ".shiro", "agents", "broken.md"), "---\nname: broken\n---\nNo description.\n");
    e2e.fake.script(
      { toolCalls: [{ name: "task", input: { description: "map", prompt: "map src", kind: "scout" } }] },
      { text: "src is empty" },
      { text: "done" },
    );
    const result = await e2e.shiro(["-p", "map it"]);
    expect(result.code).toBe(0);
    expect(taskTool(0).parameters.properties.kind.enum).toEqual(["explore", "review", "scout"]);
    // No tools declared and nobody to ask: the explore set (read tools only).
    const names = e2e.fake.requests[1]!.body.tools.map((tool: any) => tool.function.name);
    expect(names).toContain("read_file");
    expect(names).not.toContain("bash");
    expect(systemOf(e2e.fake.requests[1]!)).toEndWith("List what is there.");
    expect(result.stderr).toContain(`subagent ${join(e2e.dirs.home, ".shiro", "agents", "broken.md")}: no description`);
  });
});
