/**
 * Material written for Claude Code, Codex and Cursor, used unchanged through the binary: a
 * user-level skill's files, instruction files, custom commands and gateways.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("skills", () => {
  test("a user-level skill (~/.claude/skills/x) names its folder, and its files are readable through the jail but not writable", async () => {
    const folder = join(e2e.dirs.home, ".claude", "skills", "pdf-tools");
    write(
      join(folder, "SKILL.md"),
      "---\nname: pdf-tools\ndescription: |-\n  Work with PDFs.\n  Read reference.md first.\n---\nSee reference.md beside this file.\n",
    );
    const reference = write(join(folder, "reference.md"), "The reference says: use pypdf.\n");
    e2e.fake.script(
      { toolCalls: [{ name: "skill", input: { name: "pdf-tools" } }] },
      { toolCalls: [{ name: "read_file", input: { path: reference } }] },
      { toolCalls: [{ name: "write_file", input: { path: reference, content: "overwritten" } }] },
      { text: "done" },
    );
    const result = await e2e.shiro(["-p", "use the pdf skill", "--yolo"]);
    expect(result.code).toBe(0);
    expect(JSON.stringify(e2e.fake.requests[0]!.body)).toContain("- pdf-tools: Work with PDFs. Read reference.md first.");
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain(`Skill folder: ${folder}`);
    expect(toolResultsOf(e2e.fake.requests[2]!).at(-1)!.output).toContain("The reference says: use pypdf.");
    expect(toolResultsOf(e2e.fake.requests[3]!).at(-1)!.output).toContain("Path escapes workspace");
    expect(readFileSync(reference, "utf8")).toBe("The reference says: use pypdf.\n");
  }, 30_000);
});

describe("instruction files", () => {
  test("a 30,000-character AGENTS.md with CLAUDE.md symlinked to it reaches the model whole and once; CLAUDE.md's @import is followed", async () => {
    const { symlinkSync } = await import("node:fs");
    const long = Array.from({ length: 600 }, (_, i) => `rule ${i}: ${"z".repeat(45)}`).join("\n");
    write(join(e2e.dirs.cwd, "AGENTS.md"), `${long}\nLAST RULE\n`);
    symlinkSync(join(e2e.dirs.cwd, "AGENTS.md"), join(e2e.dirs.cwd, "CLAUDE.md"));
    write(join(e2e.dirs.cwd, "CLAUDE.local.md"), "Local: see @docs/imported.md");
    write(join(e2e.dirs.cwd, "docs", "imported.md"), "IMPORTED TEXT");
    e2e.fake.script({ text: "ok" });
    expect((await e2e.shiro(["-p", "hi"])).code).toBe(0);
    const system = JSON.stringify(e2e.fake.requests[0]!.body);
    expect(system.split("rule 599: ").length).toBe(2);
    expect(system).toContain("LAST RULE");
    expect(system).toContain("--- docs/imported.md (imported by CLAUDE.local.md) ---\\nIMPORTED TEXT");
  }, 30_000);
});
