import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as v from "valibot";
import { stateDir } from "../../lib/platform/paths.ts";
import { parse as parseYaml } from "yaml";
import { HEAD_BYTES, SKILL_BODY_CAP, loadSkillYaml, loadSkills, readSkillHeader, renderSkillCatalogue, type Skill } from "../../lib/skills/skills.ts";
import { createSkillTool } from "../../lib/tools/skill.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { BUILTIN_SKILL_FILES } from "../../skills/index.ts";

// The YAML parser loads on demand (loadSkillYaml); these tests read YAML frontmatter directly.
beforeAll(() => loadSkillYaml());

describe("the YAML parser loads only when a frontmatter needs it", () => {
  test("plain headers read before it loads; a YAML one answers needsYaml until loadSkillYaml; loadSkillsWithYaml loads it then", () => {
    // A fresh process: this one has loaded the parser already.
    const script = `
      const { loadSkills, loadSkillsWithYaml, readSkillHeader } = await import(${JSON.stringify(join(import.meta.dir, "../../lib/skills/skills.ts"))});
      const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      const cwd = mkdtempSync(join(${JSON.stringify(tmpdir())}, "shiro-skill-yaml-"));
      mkdirSync(join(cwd, ".shiro", "skills"), { recursive: true });
      writeFileSync(join(cwd, ".shiro", "skills", "folded.md"), "---\\nname: folded\\ndescription: >\\n  Folded\\n  text.\\n---\\nbody");
      const plain = readSkillHeader("---\\nname: p\\ndescription: plain\\n---\\n");
      const yamlBefore = readSkillHeader("---\\nname: y\\ndescription: 'quoted'\\n---\\n");
      const builtinOnly = loadSkills({ cwd: join(cwd, "none"), stateDir: join(cwd, "state"), home: join(cwd, "home") });
      const before = loadSkills({ cwd, stateDir: join(cwd, "state"), home: join(cwd, "home") });
      const after = await loadSkillsWithYaml({ cwd, stateDir: join(cwd, "state"), home: join(cwd, "home") });
      console.log(JSON.stringify({
        plain: plain.ok && plain.description,
        yamlBefore: yamlBefore.needsYaml === true,
        builtinOnly: [builtinOnly.needsYaml ?? false, builtinOnly.skills.length],
        before: [before.needsYaml ?? false, before.skipped.length, before.skills.some((s) => s.name === "folded")],
        after: [after.needsYaml ?? false, after.skills.find((s) => s.name === "folded")?.description],
        yamlAfter: readSkillHeader("---\\nname: y\\ndescription: 'quoted'\\n---\\n").description,
      }));
      rmSync(cwd, { recursive: true, force: true });`;
    const run = Bun.spawnSync({ cmd: [process.execPath, "-e", script], stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    expect(run.stderr.toString()).toBe("");
    expect(JSON.parse(run.stdout.toString())).toEqual({
      plain: "plain",
      yamlBefore: true,
      builtinOnly: [false, Object.keys(BUILTIN_SKILL_FILES).length],
      before: [true, 0, false],
      after: [false, "Folded text."],
      yamlAfter: "quoted",
    });
  });
});

const BUILTIN_NAMES = ["commit", "debug", "migrate", "perf", "refactor", "review", "security", "test", "verify"];
const ROOT = join(import.meta.dir, "..", "..");

let scratch: string;
let previousHome: string | undefined;
let counter = 0;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "shiro-skills-"));
  previousHome = process.env.SHIRO_HOME;
});

afterAll(() => {
  if (previousHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = previousHome;
  rmSync(scratch, { recursive: true, force: true });
});

/** A fresh SHIRO_HOME and workspace; returns the state folder and the workspace root. */
function _freshPlaces(): { state: string; cwd: string } {
  counter += 1;
  process.env.SHIRO_HOME = join(scratch, `home-${counter}`);
  const cwd = join(scratch, `work-${counter}`);
  mkdirSync(cwd, { recursive: true });
  return { state: stateDir(), cwd };
}

function _write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function _skillFile(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

function _summary(skills: readonly Skill[]) {
  return skills.map((skill) => ({ name: skill.name, description: skill.description, origin: skill.origin, path: skill.path }));
}

const ctx: ToolContext = { root: "/", signal: new AbortController().signal, emitOutput: () => {}, callId: "call-1" };

describe("frontmatter", () => {
  test("keys are case-insensitive, one pair of quotes is stripped, nested lines are ignored", () => {
    const text = [
      "---",
      'Name: "quoted-name"',
      "DESCRIPTION: 'Use it when: quoting'",
      "metadata:",
      "  name: nested-one",
      "name: second",
      "---",
      "",
      "  The body.  ",
      "",
    ].join("\n");
    expect(readSkillHeader(text)).toEqual({ ok: true, name: "quoted-name", description: "Use it when: quoting", bodyStart: text.indexOf("\n  The body") });
  });

  test("CRLF line endings and a byte-order mark are accepted", () => {
    const text = "\uFEFF---\r\nname: crlf\r\ndescription: windows file\r\n---\r\nbody\r\n";
    expect(readSkillHeader(text)).toEqual({ ok: true, name: "crlf", description: "windows file", bodyStart: text.indexOf("body") });
  });

  test("bad files are skipped with a one-line reason, the good ones still load", () => {
    const { state, cwd } = _freshPlaces();
    const dir = join(state, "skills");
    _write(join(dir, "a-good.md"), _skillFile("good", "loads fine", "Body."));
    _write(join(dir, "b-no-name.md"), "---\ndescription: has no name\n---\nBody.");
    _write(join(dir, "c-no-description.md"), "---\nname: lonely\n---\nBody.");
    _write(join(dir, "d-empty-values.md"), '---\nname: ""\ndescription:\n---\nBody.');
    _write(join(dir, "e-no-frontmatter.md"), "# Just markdown\nname: x\ndescription: y\n");
    _write(join(dir, "f-unclosed.md"), "---\nname: open\ndescription: never closed\nBody.");
    _write(join(dir, "g-bad-name.md"), _skillFile("two words", "spaces are not allowed", "Body."));
    _write(join(dir, "h-long-description.md"), _skillFile("wordy", "x".repeat(1_025), "Body."));
    _write(join(dir, "i-huge-frontmatter.md"), `---\nname: big\ndescription: big\nnote: ${"y".repeat(HEAD_BYTES)}\n---\nBody.`);
    _write(join(dir, "notes.txt"), _skillFile("ignored", "not a .md file", "Body."));
    const { skills, skipped } = loadSkills({ cwd, stateDir: state, includeBuiltin: false });
    expect(_summary(skills)).toEqual([{ name: "good", description: "loads fine", origin: "user", path: join(dir, "a-good.md") }]);
    expect(skipped).toEqual([
      { path: join(dir, "b-no-name.md"), reason: "no name in the frontmatter" },
      { path: join(dir, "c-no-description.md"), reason: "no description in the frontmatter" },
      { path: join(dir, "d-empty-values.md"), reason: "no name or description in the frontmatter" },
      { path: join(dir, "e-no-frontmatter.md"), reason: 'no frontmatter: the file must start with a "---" line' },
      { path: join(dir, "f-unclosed.md"), reason: 'the frontmatter has no closing "---" line' },
      { path: join(dir, "g-bad-name.md"), reason: 'name "two words" must be at most 64 letters, digits, dots, dashes or underscores' },
      { path: join(dir, "h-long-description.md"), reason: "the description is 1025 characters, over the 1024 limit" },
      { path: join(dir, "i-huge-frontmatter.md"), reason: `the frontmatter has no closing "---" line in the first ${HEAD_BYTES} bytes` },
    ]);
  });
});

describe("loading", () => {
  test("folders that do not exist give builtin skills only and nothing skipped", () => {
    const { state, cwd } = _freshPlaces();
    const { skills, skipped } = loadSkills({ cwd, stateDir: state });
    expect(skills.map((skill) => [skill.name, skill.origin, skill.path])).toEqual(BUILTIN_NAMES.map((name) => [name, "builtin", undefined]));
    expect(skipped).toEqual([]);
    expect(loadSkills({ cwd, stateDir: state, includeBuiltin: false })).toEqual({ skills: [], skipped: [] });
  });

  test("builtin < registry < user < project, by name; both folder layouts; sorted by name", () => {
    const { state, cwd } = _freshPlaces();
    const registry = _write(join(state, "registry", "skills", "review.md"), _skillFile("review", "from the registry", "R"));
    _write(join(state, "registry", "skills", "deploy.md"), _skillFile("deploy", "registry deploy", "D1"));
    const userDeploy = _write(join(state, "skills", "deploy", "SKILL.md"), _skillFile("deploy", "user deploy", "D2"));
    _write(join(state, "skills", "commit.md"), _skillFile("commit", "user commit", "C1"));
    const userOnly = _write(join(state, "skills", "alpha.md"), _skillFile("alpha", "user only", "A"));
    const projectCommit = _write(join(cwd, ".shiro", "skills", "commit", "SKILL.md"), _skillFile("Commit", "project commit", "C2"));
    const projectTest = _write(join(cwd, ".shiro", "skills", "test.md"), _skillFile("test", "project test", "T"));
    _write(join(cwd, ".shiro", "skills", "resources", "notes.md"), "a folder without SKILL.md is not a skill");
    const { skills, skipped } = loadSkills({ cwd, stateDir: state });
    expect(skipped).toEqual([]);
    const byName = Object.fromEntries(skills.map((skill) => [skill.name.toLowerCase(), skill]));
    expect(skills.map((skill) => skill.name)).toEqual([
      "alpha",
      "Commit",
      "debug",
      "deploy",
      "migrate",
      "perf",
      "refactor",
      "review",
      "security",
      "test",
      "verify",
    ]);
    expect(_summary([byName.commit!, byName.alpha!, byName.deploy!, byName.review!, byName.test!, byName.debug!])).toEqual([
      { name: "Commit", description: "project commit", origin: "project", path: projectCommit },
      { name: "alpha", description: "user only", origin: "user", path: userOnly },
      { name: "deploy", description: "user deploy", origin: "user", path: userDeploy },
      { name: "review", description: "from the registry", origin: "registry", path: registry },
      { name: "test", description: "project test", origin: "project", path: projectTest },
      { name: "debug", description: readSkillHeaderOf(BUILTIN_SKILL_FILES.debug!).description, origin: "builtin", path: undefined },
    ]);
    expect([byName.commit!.body(), byName.deploy!.body(), byName.review!.body()]).toEqual(["C2", "D2", "R"]);
  });

  test("registry skills are flat files only: a registry sub-folder is not read", () => {
    const { state, cwd } = _freshPlaces();
    _write(join(state, "registry", "skills", "nested", "SKILL.md"), _skillFile("nested", "not read", "N"));
    expect(loadSkills({ cwd, stateDir: state, includeBuiltin: false })).toEqual({ skills: [], skipped: [] });
  });
});

function readSkillHeaderOf(text: string): { name: string; description: string } {
  const header = readSkillHeader(text);
  if (!header.ok) throw new Error(header.reason);
  return { name: header.name, description: header.description };
}

describe("bodies", () => {
  test("a body is read on each call, so an edit after loading is seen", () => {
    const { state, cwd } = _freshPlaces();
    const path = _write(join(state, "skills", "live.md"), _skillFile("live", "changes", "first version"));
    const [skill] = loadSkills({ cwd, stateDir: state, includeBuiltin: false }).skills;
    writeFileSync(path, _skillFile("live", "changes", "\n\n  second version  \n"));
    expect(skill!.body()).toBe("second version");
    writeFileSync(path, _skillFile("live", "changes", "third version"));
    expect(skill!.body()).toBe("third version");
    unlinkSync(path);
    expect(() => skill!.body()).toThrow(`cannot read the skill file ${path} (ENOENT)`);
  });

  test("loading reads only the head: a 64 GiB file with its frontmatter first loads at once", () => {
    const { state, cwd } = _freshPlaces();
    const path = _write(join(cwd, ".shiro", "skills", "huge.md"), _skillFile("huge", "a very large file", "Body starts here."));
    truncateSync(path, 64 * 1024 ** 3);
    const { skills, skipped } = loadSkills({ cwd, stateDir: state, includeBuiltin: false });
    expect(skipped).toEqual([]);
    expect(_summary(skills)).toEqual([{ name: "huge", description: "a very large file", origin: "project", path }]);
    const body = skills[0]!.body();
    expect(body.startsWith("Body starts here.\0\0")).toBe(true);
    expect(body.slice(SKILL_BODY_CAP)).toMatch(
      new RegExp(`^\\n\\n\\[skill body cut here: \\d+ of \\d+ characters remain; read the rest with read_file path="${path}" offset=5\\]$`),
    );
    unlinkSync(path);
  });

  test("a body is trimmed, then past 20,000 characters cut with a marker naming the file and the line the rest starts on", () => {
    const { state, cwd } = _freshPlaces();
    const long = "abcdefghij".repeat(2_500);
    _write(join(state, "skills", "long.md"), _skillFile("long", "too long", `\n\n   ${long}\n`));
    _write(join(state, "skills", "exact.md"), _skillFile("exact", "just fits", `  ${long.slice(0, SKILL_BODY_CAP)}  \n`));
    const [exact, tooLong] = loadSkills({ cwd, stateDir: state, includeBuiltin: false }).skills;
    expect(SKILL_BODY_CAP).toBe(20_000);
    expect(tooLong!.body()).toBe(
      `${long.slice(0, 20_000)}\n\n[skill body cut here: 5000 of 25000 characters remain; read the rest with read_file path="${join(state, "skills", "long.md")}" offset=7]`,
    );
    expect(exact!.body()).toBe(long.slice(0, 20_000));
  });
});

describe("catalogue", () => {
  test("none renders as the empty string", () => {
    expect(renderSkillCatalogue([])).toBe("");
  });

  test("an intro line, then one line per skill", () => {
    expect(
      renderSkillCatalogue([
        { name: "commit", description: "Load before committing." },
        { name: "deploy", description: "Load before deploying." },
      ]),
    ).toBe(
      [
        "Skills: before starting work that matches one of these, load it with the `skill` tool and follow its instructions.",
        "- commit: Load before committing.",
        "- deploy: Load before deploying.",
      ].join("\n"),
    );
  });

  test("the headers a binary carries are every builtin skill's, as its file reads", () => {
    // A fresh process, without the YAML parser: as a build runs it.
    const script = `
      const { builtinSkillHeaders } = await import(${JSON.stringify(join(import.meta.dir, "../../lib/skills/skills.ts"))});
      process.stdout.write(JSON.stringify(builtinSkillHeaders()));
    `;
    const result = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const baked = JSON.parse(result.stdout.toString()) as Record<string, { name: string; description: string }>;
    expect(Object.keys(baked)).toEqual(Object.keys(BUILTIN_SKILL_FILES));
    for (const [folder, text] of Object.entries(BUILTIN_SKILL_FILES)) {
      const header = readSkillHeaderOf(text);
      expect(baked[folder]).toEqual({ name: header.name, description: header.description });
    }
  });

  test("the builtin catalogue stays small", () => {
    const { state, cwd } = _freshPlaces();
    expect(renderSkillCatalogue(loadSkills({ cwd, stateDir: state }).skills).length).toBeLessThan(1_500);
  });
});

describe("the skill tool", () => {
  const skills: Skill[] = [
    { name: "commit", description: "c", origin: "builtin", body: () => "Stage with care." },
    { name: "Deploy", description: "d", origin: "project", path: "/p/deploy.md", body: () => "Ship it." },
    { name: "empty", description: "e", origin: "user", path: "/u/empty.md", body: () => "" },
  ];
  const tool = createSkillTool(skills);

  test("its contract fields", () => {
    expect({ name: tool.name, effect: tool.effect, set: tool.set, subjects: tool.subjects!({ name: " Deploy " }) }).toEqual({
      name: "skill",
      effect: "read",
      set: undefined,
      subjects: [" Deploy "],
    });
    expect(v.parse(tool.schema, { name: "commit" })).toEqual({ name: "commit" });
    expect(() => v.parse(tool.schema, {})).toThrow();
  });

  test("returns the header, a blank line and the body; names match after trim + lowercase", async () => {
    expect(await tool.execute({ name: "commit" }, ctx)).toBe('Skill "commit" (builtin). Follow these instructions for this task.\n\nStage with care.');
    expect(await tool.execute({ name: "  DEPLOY\n" }, ctx)).toBe('Skill "Deploy" (project). Follow these instructions for this task.\n\nShip it.');
    expect(await tool.execute({ name: "empty" }, ctx)).toBe(
      'Skill "empty" (user). Follow these instructions for this task.\n\n(this skill has no instructions beyond its description)',
    );
  });

  test("an unknown name throws, listing what is available", async () => {
    await expect(tool.execute({ name: " nope " }, ctx)).rejects.toThrow('No skill named "nope". Available: commit, Deploy, empty');
    await expect(createSkillTool([]).execute({ name: "x" }, ctx)).rejects.toThrow('No skill named "x". Available: none');
  });

  test("loads a real file's body through the tool", async () => {
    const { state, cwd } = _freshPlaces();
    _write(join(cwd, ".shiro", "skills", "review.md"), _skillFile("review", "ours", "\nOur review rules.\n"));
    const loaded = loadSkills({ cwd, stateDir: state }).skills;
    expect(await createSkillTool(loaded).execute({ name: "Review" }, ctx)).toBe(
      `Skill "review" (project). Follow these instructions for this task.\nSkill folder: ${join(cwd, ".shiro", "skills")} — files and scripts this skill names are relative to it; read them with read_file (read-only).\n\nOur review rules.`,
    );
  });
});

describe("builtin skills", () => {
  test("the nine embedded files are the ones on disk", () => {
    expect(Object.keys(BUILTIN_SKILL_FILES).sort()).toEqual(BUILTIN_NAMES);
    for (const name of BUILTIN_NAMES) {
      expect(BUILTIN_SKILL_FILES[name]).toBe(readFileSync(join(ROOT, "skills", name, "SKILL.md"), "utf8"));
    }
  });

  test("each parses, is named for its folder, says when in one line of at most 160 chars, and has a real body", () => {
    const { state, cwd } = _freshPlaces();
    const { skills, skipped } = loadSkills({ cwd, stateDir: state });
    expect(skipped).toEqual([]);
    for (const name of BUILTIN_NAMES) {
      const header = readSkillHeaderOf(BUILTIN_SKILL_FILES[name]!);
      expect(header.name).toBe(name);
      expect(header.description.length).toBeLessThanOrEqual(160);
      expect(header.description.startsWith("Load ")).toBe(true);
      const skill = skills.find((candidate) => candidate.name === name)!;
      const words = skill.body().split(/\s+/).filter(Boolean).length;
      expect({ name, origin: skill.origin, wordsInRange: words >= 80 && words <= 250 }).toEqual({ name, origin: "builtin", wordsInRange: true });
    }
  });
});

describe("skills as other agents' authors wrote them", () => {
  test("YAML frontmatter: block scalars, quoting, lists and extra keys read as YAML means them; invalid YAML falls back to lines", () => {
    const table: [string, { name: string; description: string } | string][] = [
      [
        "name: pdf\ndescription: |-\n  Extract text from PDFs.\n  Use when asked about PDFs.",
        { name: "pdf", description: "Extract text from PDFs. Use when asked about PDFs." },
      ],
      ["name: x\ndescription: >\n  Folded\n  text.\nlicense: Complete terms in LICENSE.txt", { name: "x", description: "Folded text." }],
      ["name: \"quoted\"\ndescription: 'It''s quoted'", { name: "quoted", description: "It's quoted" }],
      ["name: y\ndescription: Use when: the user asks\nallowed-tools: Read, Grep", { name: "y", description: "Use when: the user asks" }],
      ["name: z\nmetadata:\n  version: 1\ndescription: after a nested map", { name: "z", description: "after a nested map" }],
      ["Name: Upper\nDescription: case-insensitive keys", { name: "Upper", description: "case-insensitive keys" }],
      ["description: no name", "no name in the frontmatter"],
    ];
    for (const [front, expected] of table) {
      const header = readSkillHeader(`---\n${front}\n---\nbody`);
      const got = header.ok ? { name: header.name, description: header.description } : header.reason;
      expect({ front, got }).toEqual({ front, got: expected });
    }
    // A SKILL.md without a name is named for its folder, as Claude Code does.
    const noName = readSkillHeader("---\ndescription: d\n---\n", "folder-name");
    expect(noName.ok && noName.name).toBe("folder-name");
  });

  test("plain `key: value` lines (read without the YAML parser) give exactly what YAML gives", () => {
    const descriptions = [
      "Load when something fails - a crash, a test",
      "Use for a:b ratios and C++ {templates} [x]",
      "trailing spaces   ",
      "Use it # not a comment in YAML? it is",
      "Use when: the user asks",
      "true",
      "Null",
      "yes",
      "ends with a colon:",
      "it's 100% fine & *so* !good",
      "x",
    ];
    for (const description of descriptions) {
      const front = `name: plain\ndescription: ${description}`;
      const header = readSkillHeader(`---\n${front}\n---\nbody`);
      expect({ description, got: header.ok ? header.description : header.reason }).toEqual({ description, got: _asYamlReadsIt(front) });
    }
    // A repeated key is YAML's question too: it refuses it, so the first line wins.
    const twice = readSkillHeader("---\nname: a\nname: b\ndescription: d\n---\n");
    expect(twice.ok && twice.name).toBe("a");
  });

  test("a block-scalar description and a 30,000-character body: listed on one line, the body whole up to the cap, then a marker whose offset reaches the rest", () => {
    const { state, cwd } = _freshPlaces();
    const lines = Array.from({ length: 700 }, (_, i) => `Line ${String(i + 1).padStart(3, "0")} of the instructions, forty-ish chars.`);
    const body = lines.join("\n");
    expect(body.length).toBeGreaterThan(30_000);
    const path = _write(join(cwd, ".claude", "skills", "big", "SKILL.md"), `---\nname: big\ndescription: |\n  First line.\n  Second line.\n---\n\n${body}\n`);
    const [skill] = loadSkills({ cwd, stateDir: state, includeBuiltin: false }).skills;
    expect(skill!.description).toBe("First line. Second line.");
    expect(renderSkillCatalogue([skill!])).toContain("- big: First line. Second line.");
    const shown = skill!.body();
    const marker = /\n\n\[skill body cut here: (\d+) of (\d+) characters remain; read the rest with read_file path="(.+)" offset=(\d+)\]$/.exec(shown)!;
    expect(marker[3]).toBe(path);
    const kept = shown.slice(0, marker.index);
    expect(body.startsWith(kept)).toBe(true);
    // What the marker points at is exactly what was left out: the file's lines from `offset` on.
    const fileLines = readFileSync(path, "utf8").split("\n");
    const rest = fileLines
      .slice(Number(marker[4]) - 1)
      .join("\n")
      .trimEnd();
    expect(`${kept}\n${rest}`).toBe(body);
    expect(Number(marker[1])).toBe(body.length - kept.length);
  });

  test(".agents/skills and .codex/skills are read; precedence by name: .agents < .codex < .claude < .shiro; README.md and loose files in other agents' folders pass quietly", () => {
    const { state, cwd } = _freshPlaces();
    const home = join(scratch, `user-home-${counter}`);
    const skill = (dir: string, name: string, description: string) => _write(join(dir, name, "SKILL.md"), _skillFile(name, description, "b"));
    skill(join(home, ".agents", "skills"), "shared", "user agents");
    skill(join(home, ".codex", "skills"), "codex-user", "user codex");
    skill(join(cwd, ".agents", "skills"), "shared", "project agents");
    skill(join(cwd, ".agents", "skills"), "only-agents", "project agents only");
    skill(join(cwd, ".codex", "skills"), "only-agents", "project codex wins over .agents");
    skill(join(cwd, ".claude", "skills"), "claude-one", "project claude");
    _write(join(cwd, ".claude", "skills", "README.md"), "# My skills\n");
    _write(join(cwd, ".agents", "skills", "README.md"), "# About\n");
    _write(join(cwd, ".shiro", "skills", "README.md"), "# Ours\n");
    _write(join(cwd, ".agents", "skills", "notes.md"), "not a skill\n");
    const { skills, skipped } = loadSkills({ cwd, stateDir: state, home, includeBuiltin: false });
    expect(skipped).toEqual([]);
    expect(skills.map((s) => [s.name, s.description, s.origin])).toEqual([
      ["claude-one", "project claude", "project"],
      ["codex-user", "user codex", "user"],
      ["only-agents", "project codex wins over .agents", "project"],
      ["shared", "project agents", "project"],
    ]);
    expect(skills.find((s) => s.name === "codex-user")!.folder).toBe(join(home, ".codex", "skills", "codex-user"));
  });

  test(".gemini/skills is read as Gemini CLI defines it: user and workspace tiers, its .agents/skills alias winning a name within a tier", () => {
    const { state, cwd } = _freshPlaces();
    const home = join(scratch, `user-home-${counter}`);
    const skill = (dir: string, name: string, description: string) => _write(join(dir, name, "SKILL.md"), _skillFile(name, description, "b"));
    skill(join(home, ".gemini", "skills"), "gemini-user", "user gemini");
    skill(join(home, ".gemini", "skills"), "review", "user gemini review");
    skill(join(cwd, ".gemini", "skills"), "review", "workspace gemini review wins over the user's");
    skill(join(cwd, ".gemini", "skills"), "deploy", "workspace gemini deploy");
    skill(join(cwd, ".agents", "skills"), "deploy", "workspace .agents alias wins over .gemini");
    _write(join(cwd, ".gemini", "skills", "README.md"), "# Skills\n");
    const { skills, skipped } = loadSkills({ cwd, stateDir: state, home, includeBuiltin: false });
    expect(skipped).toEqual([]);
    expect(skills.map((s) => [s.name, s.description, s.origin, s.folder])).toEqual([
      ["deploy", "workspace .agents alias wins over .gemini", "project", join(cwd, ".agents", "skills", "deploy")],
      ["gemini-user", "user gemini", "user", join(home, ".gemini", "skills", "gemini-user")],
      ["review", "workspace gemini review wins over the user's", "project", join(cwd, ".gemini", "skills", "review")],
    ]);
  });
});

/** The description the YAML reader gives (strings trimmed, scalars as text), or the line's text where YAML refuses the frontmatter. */
function _asYamlReadsIt(front: string): string {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseYaml(front) as Record<string, unknown>;
  } catch {
    return front.split("\n")[1]!.slice("description:".length).trim();
  }
  const value = parsed.description;
  if (typeof value === "string") return value.replace(/\s+/g, " ").trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return "no description in the frontmatter";
}
