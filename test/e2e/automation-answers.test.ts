/**
 * What a headless prompt carries and what its answer must be, through the built binary:
 * `--output-schema` (told to the model, validated by a real validator, one repair turn, then
 * exit 1 with the errors), `@path` attachments with the REPL's caps and the headless secret rule,
 * and `-i` images, all jailed; measured on the request bodies the fake provider received.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemOf, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

const SCHEMA = {
  type: "object",
  required: ["verdict", "files"],
  properties: { verdict: { enum: ["pass", "fail"] }, files: { type: "array", items: { type: "string" } } },
  additionalProperties: false,
};

/** A real 1x1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/** A `.claude/settings.json` the user trusted: what the REPL's trust question records for this content (lib/store/project-settings.ts). */
function writeTrustedSettings(settings: unknown): void {
  const text = JSON.stringify(settings, null, 2);
  mkdirSync(join(e2e.dirs.cwd, ".claude"), { recursive: true });
  writeFileSync(join(e2e.dirs.cwd, ".claude", "settings.json"), text);
  const sha256 = createHash("sha256").update(`.claude/settings.json\0${text}\0`).digest("hex");
  mkdirSync(join(e2e.dirs.home, ".shiro-neko"), { recursive: true });
  writeFileSync(
    join(e2e.dirs.home, ".shiro-neko", "trusted-projects.json"),
    JSON.stringify({ version: 1, entries: [{ root: e2e.dirs.cwd, file: ".claude/settings.json", sha256, at: new Date().toISOString() }] }),
  );
}

function writeSchema(): string {
  const path = join(e2e.dirs.cwd, "schema.json");
  writeFileSync(path, JSON.stringify(SCHEMA));
  return path;
}

describe("--output-schema", () => {
  test("a valid answer is accepted at once, the model was told the schema, and json output carries the parsed value", async () => {
    e2e.fake.script({ text: '{"verdict": "pass", "files": ["a.ts"]}' });
    const result = await e2e.shiro(["-p", "review", "--output-schema", writeSchema(), "--output-format", "json"]);
    expect(result.code).toBe(0);
    expect(e2e.fake.requests.length).toBe(1);
    const system = systemOf(e2e.fake.requests[0]!);
    expect(system).toContain("# Answer format");
    expect(system).toContain(JSON.stringify(SCHEMA, null, 2));
    expect(JSON.parse(result.stdout)).toMatchObject({ result: { verdict: "pass", files: ["a.ts"] }, is_error: false, stop: "completed", num_steps: 1 });
  });

  test("a fenced answer is parsed too", async () => {
    e2e.fake.script({ text: 'Here it is:\n```json\n{"verdict": "fail", "files": []}\n```' });
    const result = await e2e.shiro(["-p", "review", "--output-schema", writeSchema(), "--output-format", "json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result).toEqual({ verdict: "fail", files: [] });
  });

  test("an invalid answer gets one repair turn carrying the validation errors", async () => {
    e2e.fake.script({ text: '{"verdict": "maybe", "files": ["a.ts"]}' }, { text: '{"verdict": "fail", "files": ["a.ts"]}' });
    const result = await e2e.shiro(["-p", "review", "--output-schema", writeSchema(), "--output-format", "json"]);
    expect(result.code).toBe(0);
    expect(e2e.fake.requests.length).toBe(2);
    const repair = userTextsOf(e2e.fake.requests[1]!).at(-1)!;
    expect(repair).toContain("Your answer does not match the required JSON Schema:");
    expect(repair).toContain("- /verdict must be equal to one of the allowed values");
    expect(JSON.parse(result.stdout)).toMatchObject({ result: { verdict: "fail", files: ["a.ts"] }, is_error: false, num_steps: 2 });
  });

  test("a second invalid answer fails the run with exit 1 and the errors", async () => {
    e2e.fake.script({ text: "not json at all" }, { text: '{"verdict": "pass", "extra": 1}' });
    const result = await e2e.shiro(["-p", "review", "--output-schema", writeSchema(), "--output-format", "json"]);
    expect(result.code).toBe(1);
    expect(e2e.fake.requests.length).toBe(2);
    expect(userTextsOf(e2e.fake.requests[1]!).at(-1)).toContain("- the answer is not JSON");
    const object = JSON.parse(result.stdout);
    expect(object).toMatchObject({ is_error: true, stop: "completed", result: '{"verdict": "pass", "extra": 1}' });
    expect(object.errors).toEqual(["/ must have required property 'files'", "/ must NOT have additional properties"]);
    expect(result.stderr).toContain("shiro: the answer does not match --output-schema after one repair turn: / must have required property 'files'");
  });

  // A run that blocked on an approval and is resumed by `shiro runs resume` meets the same check.
  test.each([
    ["a valid answer", ['{"verdict": "pass", "files": []}'], 0, 1],
    ["an invalid answer, then a valid one", ['{"verdict": "maybe"}', '{"verdict": "fail", "files": ["a.ts"]}'], 0, 2],
    ["two invalid answers", ["not json at all", '{"verdict": "pass", "extra": 1}'], 1, 2],
  ])("runs resume checks the answer: %s", async (_, answers, code, asked) => {
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "x" } }] }, ...answers.map((text) => ({ text })));
    const blocked = await e2e.shiro(["-p", "review", "--output-schema", writeSchema(), "--approvals", "block"]);
    expect(blocked.code).toBe(3);
    const hint = /shiro approve (\S+) \(or deny\), then shiro runs resume (\S+)\n/.exec(blocked.stderr)!;
    expect((await e2e.shiro(["approve", hint[1]!])).code).toBe(0);
    const resumed = await e2e.shiro(["runs", "resume", hint[2]!]);
    expect(resumed.code).toBe(code);
    expect(e2e.fake.requests.length).toBe(1 + asked);
    if (asked === 2) {
      const repair = userTextsOf(e2e.fake.requests[2]!).at(-1)!;
      expect(repair).toStartWith("Your answer does not match the required JSON Schema:\n- ");
      expect(resumed.stderr).toContain("[schema] the answer does not match --output-schema; one repair turn: ");
    }
    if (code === 1)
      expect(resumed.stderr).toContain(
        "shiro: the answer does not match --output-schema after one repair turn: / must have required property 'files'; / must NOT have additional properties\n",
      );
    else expect(resumed.stdout).toEndWith(`${answers.at(-1)}\n`);
  });

  test("a resumed repair turn gets no second repair turn", async () => {
    e2e.fake.script(
      { text: '{"verdict": "maybe"}' },
      { toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "x" } }] },
      { text: '{"verdict": "still maybe"}' },
    );
    const blocked = await e2e.shiro(["-p", "review", "--output-schema", writeSchema(), "--approvals", "block"]);
    expect(blocked.code).toBe(3);
    const hint = /shiro approve (\S+) \(or deny\), then shiro runs resume (\S+)\n/.exec(blocked.stderr)!;
    await e2e.shiro(["approve", hint[1]!]);
    const resumed = await e2e.shiro(["runs", "resume", hint[2]!]);
    expect(resumed.code).toBe(1);
    expect(e2e.fake.requests.length).toBe(3);
    expect(resumed.stderr).toContain(
      "shiro: the answer does not match --output-schema after one repair turn: / must have required property 'files'; /verdict must be equal to one of the allowed values\n",
    );
  });

  test.each([
    ["missing.json", "no such file, or it cannot be read"],
    ["bad.json", "not JSON (JSON Parse error"],
    ["wrong.json", "not a valid JSON Schema (schema is invalid: data/type must be equal to one of the allowed values"],
  ])("a bad schema file %s is one line and exit 2", async (name, message) => {
    writeFileSync(join(e2e.dirs.cwd, "bad.json"), "{nope");
    writeFileSync(join(e2e.dirs.cwd, "wrong.json"), JSON.stringify({ type: "no-such-type" }));
    const result = await e2e.shiro(["-p", "x", "--output-schema", name]);
    expect(result.code).toBe(2);
    expect(result.stderr).toStartWith(`shiro: --output-schema ${join(e2e.dirs.cwd, name)}: ${message}`);
    expect(result.stderr.trim().split("\n").length).toBe(1);
    expect(e2e.fake.requests.length).toBe(0);
  });
});

describe("attachments headless", () => {
  test("@file and @folder attach as the REPL does; a path outside the workspace is sent as typed", async () => {
    writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "alpha\nbeta\n");
    const outside = mkdtempSync(join(tmpdir(), "shiro-e2e-outside-"));
    writeFileSync(join(outside, "secret.txt"), "outside\n");
    try {
      e2e.fake.script({ text: "ok" });
      const result = await e2e.shiro(["-p", `look at @notes.txt and @. and @${outside}/secret.txt`]);
      expect(result.code).toBe(0);
      const [text] = userTextsOf(e2e.fake.requests[0]!);
      expect(text).toContain('<attached path="notes.txt">\n1: alpha\n2: beta\n</attached>');
      expect(text).toContain('<attached path=".">\nnotes.txt\n</attached>');
      expect(text).not.toContain("outside\n");
      expect(result.stderr).toContain("[attach] attached @notes.txt (2 lines)");
      expect(result.stderr).toContain(`[attach] @${outside}/secret.txt names no file or folder in the workspace; sent as typed`);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  test("a file that may hold secrets is left out unless a read_file rule names it", async () => {
    writeFileSync(join(e2e.dirs.cwd, ".env"), "API_TOKEN=sk-live-abcdefghijklmnopqrstuvwxyz123456\n");
    e2e.fake.script({ text: "a" }, { text: "b" }, { text: "c" });
    const refused = await e2e.shiro(["-p", "check @.env"]);
    const byFlag = await e2e.shiro(["-p", "check @.env", "--allowed-tools", "Read(.env)"]);
    e2e.writeConfig({ permission: { read_file: { ".env": "allow" } } });
    const byConfig = await e2e.shiro(["-p", "check @.env"]);
    expect([refused.code, byFlag.code, byConfig.code]).toEqual([0, 0, 0]);
    expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["check @.env"]);
    expect(refused.stderr).toContain("[attach] @.env left out (it may hold secrets: a read_file rule naming it allows it)");
    for (const index of [1, 2]) expect(userTextsOf(e2e.fake.requests[index]!)[0]).toContain('<attached path=".env">');
  });

  // Claude Code's spellings of one file (bare and `./` relative to the working folder, `/` to the settings file's folder);
  // secret.txt is also flagged by the secrets classifier, plans.md is not (without the rule it would be attached).
  test.each([
    ["secret.txt", "Read(./secret.txt)"],
    ["plans.md", "Read(./plans.md)"],
    ["plans.md", "Read(plans.md)"],
    ["plans.md", "Read(/plans.md)"],
    ["plans.md", "Read(**/plans.md)"],
    ["plans.md", "Read(./*.md)"],
    ["plans.md", "Read"],
  ])("a trusted .claude/settings.json deny refuses @%s (%s) as it refuses read_file", async (file, rule) => {
    writeFileSync(join(e2e.dirs.cwd, file), "the launch code is 0000\n");
    writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "alpha\n");
    writeTrustedSettings({ permissions: { deny: [rule] } });
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: file } }] }, { text: "ok" });
    const result = await e2e.shiro(["-p", `look at @${file} and @notes.txt`]);
    expect(result.code).toBe(0);
    const [text] = userTextsOf(e2e.fake.requests[0]!);
    expect(text).not.toContain("launch code");
    expect(text).toContain(rule === "Read" ? `look at @${file} and @notes.txt` : '<attached path="notes.txt">\n1: alpha\n</attached>');
    const pattern = { "Read(./secret.txt)": "secret.txt", "Read(./*.md)": "*.md" }[rule] ?? "plans.md";
    const why =
      rule === "Read"
        ? "Refused by the permission rules: read_file is denied by .claude/settings.json."
        : `Refused by the permission rule read_file: "${pattern}" = deny in .claude/settings.json.`;
    expect(result.stderr).toContain(`[attach] @${file} not attached: ${why}`);
    // The read tool meets the same rule in the same run.
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toBe(`Error: ${why}`);
  });

  test("untrusted settings do not refuse @path", async () => {
    writeFileSync(join(e2e.dirs.cwd, "plans.md"), "the launch code is 0000\n");
    mkdirSync(join(e2e.dirs.cwd, ".claude"), { recursive: true });
    writeFileSync(join(e2e.dirs.cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { deny: ["Read(./plans.md)"] } }));
    e2e.fake.script({ text: "ok" });
    const result = await e2e.shiro(["-p", "look at @plans.md"]);
    expect(result.code).toBe(0);
    expect(userTextsOf(e2e.fake.requests[0]!)[0]).toContain('<attached path="plans.md">\n1: the launch code is 0000\n</attached>');
  });

  test("--disallowed-tools and config deny rules refuse @path too; a trusted settings allow naming a secret attaches it", async () => {
    writeFileSync(join(e2e.dirs.cwd, "plans.md"), "the launch code is 0000\n");
    writeFileSync(join(e2e.dirs.cwd, ".env"), "API_TOKEN=sk-live-abcdefghijklmnopqrstuvwxyz123456\n");
    writeTrustedSettings({ permissions: { allow: ["Read(./.env)"] } });
    e2e.fake.script({ text: "a" }, { text: "b" }, { text: "c" });
    const byFlag = await e2e.shiro(["-p", "look at @plans.md", "--disallowed-tools", "Read(plans.md)"]);
    const allowed = await e2e.shiro(["-p", "check @.env"]);
    e2e.writeConfig({ permission: { read_file: { "plans.md": "deny" } } });
    const byConfig = await e2e.shiro(["-p", "look at @plans.md"]);
    expect([byFlag.code, allowed.code, byConfig.code]).toEqual([0, 0, 0]);
    expect(byFlag.stderr).toContain('[attach] @plans.md not attached: Refused by the permission rule read_file: "plans.md" = deny in --disallowed-tools.');
    expect(byConfig.stderr).toContain('[attach] @plans.md not attached: Refused by the permission rule read_file: "plans.md" = deny.');
    expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["look at @plans.md"]);
    expect(userTextsOf(e2e.fake.requests[1]!)[0]).toContain('<attached path=".env">');
    expect(userTextsOf(e2e.fake.requests[2]!)).toEqual(["look at @plans.md"]);
  });

  test("-i attaches images (repeatable); a path outside the workspace or a fake image is refused with exit 2", async () => {
    writeFileSync(join(e2e.dirs.cwd, "pic.png"), Buffer.from(PNG, "base64"));
    writeFileSync(join(e2e.dirs.cwd, "two.png"), Buffer.from(PNG, "base64"));
    writeFileSync(join(e2e.dirs.cwd, "fake.png"), "not an image");
    e2e.fake.script({ text: "a red dot" });
    const result = await e2e.shiro(["-p", "describe", "-i", "pic.png", "--image", "two.png"]);
    expect(result.code).toBe(0);
    const user = e2e.fake.requests[0]!.body.messages.find((m: any) => m.role === "user");
    expect(user.content).toEqual([
      { type: "text", text: "describe\n\n[image: pic.png]\n[image: two.png]" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    const escaped = await e2e.shiro(["-p", "describe", "-i", "../pic.png"]);
    const fake = await e2e.shiro(["-p", "describe", "-i", "fake.png"]);
    expect([escaped.code, fake.code]).toEqual([2, 2]);
    expect(escaped.stderr).toContain("-i ../pic.png: Path escapes workspace: ../pic.png");
    expect(fake.stderr).toContain("-i fake.png: not a PNG, JPEG, GIF or WebP image");
    expect(e2e.fake.requests.length).toBe(1);
  });
});
