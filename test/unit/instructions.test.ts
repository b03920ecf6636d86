/** Instruction files as Claude Code, Codex and Gemini CLI define them: which files, once each, in full within the budget, `@` imports. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findImports, IMPORT_DEPTH, loadInstructions } from "../../lib/agent/instructions.ts";

let dir: string;
let home: string;
let repo: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-instructions-"));
  home = join(dir, "home");
  repo = join(home, "repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}
const summary = (cwd: string, budgetTokens?: number) =>
  loadInstructions(cwd, { home, env: {}, ...(budgetTokens ? { budgetTokens } : {}) }).map((file) => [
    file.label,
    file.text,
    ...(file.importedBy ? [file.importedBy] : []),
  ]);

test("every file Claude Code and Codex read, outermost first; AGENTS.override.md replaces AGENTS.md in its folder", () => {
  write(join(home, ".codex", "AGENTS.md"), "codex global");
  write(join(home, ".claude", "CLAUDE.md"), "claude user");
  write(join(repo, "AGENTS.md"), "root agents");
  write(join(repo, "CLAUDE.md"), "root claude");
  write(join(repo, "CLAUDE.local.md"), "root local");
  write(join(repo, "sub", "AGENTS.md"), "sub agents (overridden)");
  write(join(repo, "sub", "AGENTS.override.md"), "sub override");
  write(join(repo, "sub", ".shiro.md"), "sub shiro");
  expect(summary(join(repo, "sub"))).toEqual([
    ["~/.codex/AGENTS.md", "codex global"],
    ["~/.claude/CLAUDE.md", "claude user"],
    ["AGENTS.md", "root agents"],
    ["CLAUDE.md", "root claude"],
    ["CLAUDE.local.md", "root local"],
    ["sub/AGENTS.override.md", "sub override"],
    ["sub/.shiro.md", "sub shiro"],
  ]);
  write(join(home, ".codex", "AGENTS.override.md"), "codex override");
  expect(summary(repo)[0]).toEqual(["~/.codex/AGENTS.override.md", "codex override"]);
  expect(loadInstructions(repo, { home, env: { CODEX_HOME: join(dir, "elsewhere") } })[0]!.label).toBe("~/.claude/CLAUDE.md");
});

test("Gemini CLI's files: ~/.gemini/GEMINI.md, then GEMINI.md in each folder (after Claude's, before .shiro.md), its @./imports followed; a GEMINI.md symlinked to AGENTS.md loads once", () => {
  write(join(home, ".claude", "CLAUDE.md"), "claude user");
  write(join(home, ".gemini", "GEMINI.md"), "# Global Instructions\n\n- Prefer functional programming patterns\n");
  write(join(repo, "AGENTS.md"), "root agents");
  write(join(repo, "CLAUDE.md"), "root claude");
  const main = "# Main GEMINI.md file\n\nThis is the main content.\n\n@./components/instructions.md\n\nMore content here.\n\n@./shared/configuration.md\n";
  write(join(repo, "GEMINI.md"), main);
  write(join(repo, "components", "instructions.md"), "component rules");
  write(join(repo, "shared", "configuration.md"), "shared config @../../outside.md");
  write(join(home, "outside.md"), "never: outside the project");
  write(join(repo, "sub", "GEMINI.md"), "sub gemini");
  write(join(repo, "sub", ".shiro.md"), "sub shiro");
  expect(summary(join(repo, "sub"))).toEqual([
    ["~/.claude/CLAUDE.md", "claude user"],
    ["~/.gemini/GEMINI.md", "# Global Instructions\n\n- Prefer functional programming patterns"],
    ["AGENTS.md", "root agents"],
    ["CLAUDE.md", "root claude"],
    ["GEMINI.md", main.trim()],
    ["components/instructions.md", "component rules", "GEMINI.md"],
    ["shared/configuration.md", "shared config @../../outside.md", "GEMINI.md"],
    ["sub/GEMINI.md", "sub gemini"],
    ["sub/.shiro.md", "sub shiro"],
  ]);
  rmSync(join(repo, "GEMINI.md"));
  symlinkSync(join(repo, "AGENTS.md"), join(repo, "GEMINI.md"));
  expect(summary(repo).map(([label]) => label)).toEqual(["~/.claude/CLAUDE.md", "~/.gemini/GEMINI.md", "AGENTS.md", "CLAUDE.md"]);
});

test("a CLAUDE.md that is a symlink to AGENTS.md loads once; a 30,000-character AGENTS.md is kept whole", () => {
  const long = Array.from({ length: 600 }, (_, i) => `rule ${i}: ${"x".repeat(45)}`).join("\n");
  expect(long.length).toBeGreaterThan(30_000);
  write(join(repo, "AGENTS.md"), `${long}\n`);
  symlinkSync(join(repo, "AGENTS.md"), join(repo, "CLAUDE.md"));
  const files = loadInstructions(repo, { home, env: {} });
  expect(files.map((file) => [file.label, file.truncated, file.text.length])).toEqual([["AGENTS.md", false, long.length]]);
});

test("over the budget a file is sectioned at a line end with a marker whose read_file offset is the first line not shown", () => {
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1} ${"y".repeat(30)}`);
  const path = write(join(repo, "AGENTS.md"), `${lines.join("\n")}\n`);
  write(join(repo, "CLAUDE.md"), "small, after it");
  const [agents, claude] = loadInstructions(repo, { home, env: {}, budgetTokens: 1_500 });
  expect(agents!.truncated).toBe(true);
  const marker = /\n\n\[instructions cut here to fit the budget: lines (\d+)–400 of 400 not shown; read them with read_file path="(.+)" offset=(\d+)\]$/.exec(
    agents!.text,
  )!;
  expect(marker[2]).toBe(path);
  const shown = agents!.text.slice(0, marker.index).split("\n");
  expect(shown).toEqual(lines.slice(0, shown.length));
  expect(Number(marker[3])).toBe(shown.length + 1);
  expect(readFileSync(path, "utf8").split("\n")[Number(marker[3]) - 1]).toBe(lines[shown.length]!);
  // A later file still gets its minimum section.
  expect([claude!.text, claude!.truncated]).toEqual(["small, after it", false]);
});

test("@imports in CLAUDE.md are followed (relative, ~/, nested up to 5 hops), never outside their tree, never in code", () => {
  write(
    join(repo, "CLAUDE.md"),
    "See @docs/style.md and @README.md for more.\n`@not/this.md` and\n```\n@nor/this.md\n```\nmail me@example.com\n@../../outside.md\n@~/.claude/personal.md @~/.ssh/id_rsa",
  );
  write(join(repo, "docs", "style.md"), "style: tabs. Also @./deeper/one.md");
  write(join(repo, "README.md"), "readme text");
  write(join(repo, "not", "this.md"), "never");
  write(join(repo, "nor", "this.md"), "never");
  write(join(dir, "outside.md"), "outside the project");
  write(join(home, ".claude", "personal.md"), "personal: Claude Code's documented way out of the project");
  write(join(home, ".ssh", "id_rsa"), "never");
  write(join(repo, "AGENTS.md"), "AGENTS.md imports are not followed: @README.md");
  let chain = "";
  for (let hop = 1; hop <= IMPORT_DEPTH + 2; hop++) {
    write(join(repo, "docs", "deeper", hop === 1 ? "one.md" : `${hop}.md`), `hop ${hop} @./${hop + 1}.md`);
    chain += hop;
  }
  expect(chain.length).toBe(IMPORT_DEPTH + 2);
  const got = summary(repo);
  expect(got.map(([label, , by]) => [label, by])).toEqual([
    ["AGENTS.md", undefined],
    ["CLAUDE.md", undefined],
    ["docs/style.md", "CLAUDE.md"],
    ["docs/deeper/one.md", "docs/style.md"],
    ["docs/deeper/2.md", "docs/deeper/one.md"],
    ["docs/deeper/3.md", "docs/deeper/2.md"],
    ["docs/deeper/4.md", "docs/deeper/3.md"],
    ["README.md", "CLAUDE.md"],
    ["~/.claude/personal.md", "CLAUDE.md"],
  ]);
  expect(findImports("a @x.md b `@y.md` (@z/w) e@mail.com @@ @")).toEqual(["x.md", "z/w"]);
});

test("outside a repository: cwd up to the home folder when inside it, else cwd alone", () => {
  rmSync(join(repo, ".git"), { recursive: true });
  write(join(home, "AGENTS.md"), "home level");
  write(join(repo, "AGENTS.md"), "repo level");
  write(join(dir, "AGENTS.md"), "above home: never");
  expect(summary(repo).map(([label]) => label)).toEqual(["../AGENTS.md", "AGENTS.md"]);
  const outside = join(dir, "elsewhere");
  write(join(outside, "AGENTS.md"), "here");
  expect(summary(outside)).toEqual([["AGENTS.md", "here"]]);
});
