/** The system prompt and the project instructions it carries. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INSTRUCTIONS_BUDGET, loadInstructions, renderInstructions } from "../../lib/agent/instructions.ts";
import { buildSystemPrompt } from "../../lib/agent/prompt.ts";
import { VARIANTS } from "../../lib/agent/variants.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { createTodoTool } from "../../lib/tools/todo.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-prompt-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("project instructions", () => {
  test("collected from the git root down to cwd, outermost first, labelled from the root", () => {
    mkdirSync(join(dir, ".git"));
    writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(dir, "pkg", "app"), { recursive: true });
    writeFileSync(join(dir, "AGENTS.md"), "root rules");
    writeFileSync(join(dir, "pkg", "CLAUDE.md"), "pkg rules");
    writeFileSync(join(dir, "pkg", "app", ".shiro.md"), "app rules");
    writeFileSync(join(dir, "pkg", "app", "AGENTS.md"), "app agents");
    const files = loadInstructions(join(dir, "pkg", "app"), { home: join(dir, "no-home") });
    expect(files.map((file) => [file.label, file.text])).toEqual([
      ["AGENTS.md", "root rules"],
      ["pkg/CLAUDE.md", "pkg rules"],
      ["pkg/app/AGENTS.md", "app agents"],
      ["pkg/app/.shiro.md", "app rules"],
    ]);
    expect(renderInstructions(files)).toContain("--- pkg/CLAUDE.md ---\npkg rules");
  });

  test("outside a repository labels read from cwd; a file over the budget is cut with a marker", () => {
    writeFileSync(join(dir, "AGENTS.md"), "x".repeat(INSTRUCTIONS_BUDGET * 4 + 50));
    const [file] = loadInstructions(dir, { home: join(dir, "no-home") });
    expect(file!.label).toBe("AGENTS.md");
    expect(file!.truncated).toBe(true);
    expect(file!.text).toEndWith(
      `[instructions cut here to fit the budget: lines 1–1 of 1 not shown; read them with read_file path="${join(dir, "AGENTS.md")}" offset=1]`,
    );
    expect(renderInstructions([])).toBe("");
  });
});

describe("system prompt", () => {
  const known = [...builtinTools({ complete: async () => "m" }), createTodoTool({ get: () => [], set: () => {} })];
  const tools = [
    ...["read_file", "write_file", "bash", "git_status", "git_diff", "todo_write"].map((name) => known.find((tool) => tool.name === name)!),
    { name: "mcp__gh__search", effect: "exec" as const },
  ];

  test("does not restate the tools' schemas: no tool line, no description; it lists what asks", () => {
    const prompt = buildSystemPrompt({ root: "/w", platform: "linux-x64", tools, approvalTools: ["write_file", "bash"] });
    expect(prompt).not.toContain("# Tools");
    for (const tool of known) {
      expect(prompt).not.toContain(`- ${tool.name}:`);
      expect(prompt).not.toContain(tool.description.trim().slice(0, 40));
      if (tool.guidance) expect(prompt).not.toContain(tool.guidance);
    }
    expect(prompt).not.toContain("mcp__gh__search");
    expect(prompt).toContain("- Verify your work: run the build");
    expect(prompt).toContain("These tools ask the user first and may be refused: write_file, bash.");
    expect(prompt).not.toContain("apply_patch");
    expect(prompt).not.toContain("web_fetch");
  });

  test("with every section filled it stays under 5,000 characters; a read-only variant says it cannot change anything", () => {
    const full = buildSystemPrompt({
      root: "/w",
      platform: "linux-x64",
      tools,
      approvalTools: ["write_file", "bash"],
      instructions: "# Project instructions\nx",
      memory: "notes",
      skills: "skills",
      appendix: VARIANTS.deep.appendix,
      pluginAppendices: ["plugin note"],
      todos: "Your task list (0/1 done)",
    });
    expect(full.length).toBeLessThan(5_000);
    expect(full.indexOf("# Project instructions")).toBeLessThan(full.indexOf("notes"));
    expect(full.indexOf("# Mode")).toBeLessThan(full.indexOf("Your task list"));
    const readOnly = buildSystemPrompt({
      root: "/w",
      platform: "p",
      tools: [tools[0]!, tools[6]!].filter((tool) => tool.effect === "read"),
      approvalTools: [],
    });
    expect(readOnly).toContain("You have no tools that change anything");
    expect(readOnly).toContain("You cannot run commands");
  });
});
