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
    write(join(folder, "SKILL.md"), "---\nname: pdf-tools\ndescription: |-\n  Work with PDFs.\n  Read reference.md first.\n---\nSee reference.md beside this file.\n");
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
