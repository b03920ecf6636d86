/**
 * Headless runs that scripts steer, through the built binary against the fake provider: the one
 * json result object, --output-last-message, --max-steps and --max-cost (exit 4, resumable),
 * one run's tool rules (shiro's and Claude Code's spellings), --append-system-prompt, -C and
 * --add-dir (jailed), measured on the request bodies the fake received and the bytes on disk.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEventLines, systemOf, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";

const e2e = useE2E();

const toolNames = (index: number): string[] => (e2e.fake.requests[index]!.body.tools ?? []).map((tool: any) => tool.function?.name ?? tool.name);

/** A folder outside the workspace, removed after `fn`. */
async function withOutside(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "shiro-e2e-outside-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("--output-format", () => {
  test("json prints exactly one object with the documented fields, and nothing else on stdout", async () => {
    e2e.fake.script(
      { text: "Reading.", toolCalls: [{ name: "glob", input: { pattern: "*" } }], usage: { input: 100, output: 10 } },
      { text: "Two files.", usage: { input: 200, output: 20 } },
    );
    const result = await e2e.shiro(["-p", "count files", "--output-format", "json", "--model", "gpt-4o"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n").filter(Boolean);
    expect(lines.length).toBe(1);
    const object = JSON.parse(lines[0]!);
    expect(Object.keys(object).sort()).toEqual(["cost_usd", "duration_ms", "is_error", "num_steps", "result", "run_id", "session_id", "stop", "usage"]);
    expect(object).toMatchObject({ result: "Two files.", is_error: false, stop: "completed", num_steps: 2, usage: { input_tokens: 300, output_tokens: 30 } });
    expect(object.cost_usd).toBeCloseTo((300 * 2.5 + 30 * 10) / 1_000_000, 12);
    expect(object.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(object.run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof object.duration_ms).toBe("number");
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "runs", `${object.run_id}.json`))).toBe(true);
  });

  test("stream-json is --json: one event per line, the same events", async () => {
    e2e.fake.script({ text: "a" }, { text: "a" });
    // --no-memory: the second run would otherwise carry the first one's session as memory.
    const stream = await e2e.shiro(["-p", "hi", "--output-format", "stream-json", "--no-memory"]);
    const alias = await e2e.shiro(["-p", "hi", "--json", "--no-memory"]);
    const types = (stdout: string) => parseEventLines(stdout).map((event) => event.type);
    expect(types(stream.stdout)).toEqual(types(alias.stdout));
    expect(types(stream.stdout).at(-1)).toBe("done");
  });

  test("a failed run is is_error with the error, and exit 1", async () => {
    e2e.writeConfig({ maxRetries: 0 });
    e2e.fake.script({ error: { status: 401 } });
    const result = await e2e.shiro(["-p", "hi", "--output-format", "json"]);
    expect(result.code).toBe(1);
    const object = JSON.parse(result.stdout);
    expect(object).toMatchObject({ is_error: true, stop: "error", num_steps: 1, result: "", usage: null });
    expect(object.errors[0]).toContain("401");
  });

  test.each([
    [["-p", "x", "--output-format", "yaml"], 'unknown output format "yaml" for --output-format. Available: text, json, stream-json'],
    [["-p", "x", "--json", "--output-format", "json"], "--json is --output-format stream-json; it cannot be combined with --output-format json"],
    [["-p", "x", "--max-steps", "0"], '--max-steps needs a whole number of steps, at least 1 (got "0")'],
    [["-p", "x", "--max-steps", "two"], '--max-steps needs a whole number of steps, at least 1 (got "two")'],
    [["-p", "x", "--max-cost", "free"], '--max-cost needs an amount in US dollars above 0, e.g. 0.50 (got "free")'],
    [
      ["-p", "x", "--max-cost", "1", "--model", "fake-model"],
      '--max-cost needs a priced model: "fake-model" is not in shiro\'s price table, so its spending cannot be bounded',
    ],
    [["-p", "x", "-C", "no-such-dir"], "-C no-such-dir: no such folder"],
    [["-p", "x", "--add-dir", "no-such-dir"], "--add-dir no-such-dir: no such folder"],
    [["-p", "x", "--append-system-prompt", "@missing.md"], "--append-system-prompt @missing.md: cannot read"],
    [["-p", "x", "--disallowed-tools", "bash("], '--disallowed-tools: permission rule "bash(" is not Tool or Tool(specifier)'],
    [["-p", "x", "--allowed-tools", "Rockets"], '--allowed-tools: permission rule "Rockets" names no tool shiro has'],
  ])("bad input %j is one line and exit 2, before any request", async (args, message) => {
    const result = await e2e.shiro(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split("\n").length).toBe(1);
    expect(e2e.fake.requests.length).toBe(0);
  });
});

describe("--output-last-message", () => {
  test("writes the final answer to the file, in text and json mode", async () => {
    e2e.fake.script({ text: "first\n" }, { text: "The answer." });
    const file = join(e2e.dirs.cwd, "out", "last.txt");
    mkdirSync(join(e2e.dirs.cwd, "out"));
    const result = await e2e.shiro(["-p", "hi", "--output-last-message", "out/last.txt"]);
    expect(result.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("first\n");
    const json = await e2e.shiro(["-p", "again", "--output-format", "json", "--output-last-message", file]);
    expect(json.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("The answer.\n");
  });
});

describe("bounds", () => {
  test("--max-steps stops at the flag's cap, over the config's", async () => {
    e2e.writeConfig({ maxSteps: 10 });
    e2e.fake.respond(() => ({ toolCalls: [{ name: "glob", input: { pattern: `*.${Math.random().toString(36).slice(2, 6)}` } }] }));
    const result = await e2e.shiro(["-p", "loop", "--max-steps", "3"]);
    e2e.fake.respond(() => ({ error: { status: 500, message: "unexpected request" } }));
    expect(result.code).toBe(4);
    expect(e2e.fake.requests.length).toBe(3);
    expect(result.stderr).toContain("[stopped] the step cap of 3 steps was reached (exit 4): raise it with --max-steps");
  });

  test("--max-cost stops before the request that would start past the budget (exit 4), and -c resumes the session", async () => {
    // gpt-4o-mini: $0.15 per million input tokens, so each scripted step costs $0.15.
    e2e.fake.respond(() => ({
      toolCalls: [{ name: "glob", input: { pattern: `*.${Math.random().toString(36).slice(2, 6)}` } }],
      usage: { input: 1_000_000, output: 0 },
    }));
    const result = await e2e.shiro(["-p", "long job", "--model", "gpt-4o-mini", "--max-cost", "0.40", "--output-format", "json"]);
    expect(result.code).toBe(4);
    // $0.15 and $0.30 spent leave room; at $0.45 the fourth request would start past $0.40.
    expect(e2e.fake.requests.length).toBe(3);
    const object = JSON.parse(result.stdout);
    expect(object).toMatchObject({ stop: "max-cost", is_error: true, num_steps: 3 });
    expect(object.cost_usd).toBeCloseTo(0.45, 9);
    expect(object.errors[0]).toStartWith("the cost limit of $0.40 (--max-cost) would be passed by the next request: spent $0.45");

    const text = await e2e.shiro(["-p", "long job", "--model", "gpt-4o-mini", "--max-cost", "0.30"]);
    expect(text.code).toBe(4);
    expect(text.stderr).toContain("[stopped] the cost limit of $0.30 (--max-cost) would be passed by the next request: spent $0.30");
    expect(e2e.fake.requests.length).toBe(5);
    e2e.fake.respond(() => ({ error: { status: 500, message: "unexpected request" } }));
    e2e.fake.requests.length = 0;
    e2e.fake.script({ text: "Carried on." });
    const resumed = await e2e.shiro(["-p", "carry on", "-c"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("Carried on.\n");
    expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["long job", "carry on"]);
  });
});

describe("one run's tools", () => {
  test.each([["bash"], ["Bash"], ["bash,glob"], ["Bash glob"]])("--disallowed-tools %s removes bash for that run only", async (spelling) => {
    e2e.fake.script({ text: "a" }, { text: "b" });
    const narrowed = await e2e.shiro(["-p", "hi", "--yolo", "--disallowed-tools", spelling]);
    const plain = await e2e.shiro(["-p", "hi", "--yolo"]);
    expect([narrowed.code, plain.code]).toEqual([0, 0]);
    expect(toolNames(0)).not.toContain("bash");
    expect(toolNames(0)).toContain("read_file");
    expect(toolNames(0).includes("glob")).toBe(!spelling.includes("glob"));
    expect(toolNames(1)).toContain("bash");
  });

  test("a disallowed tool the model calls anyway is refused by the rule", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "touch made" } }] }, { text: "ok" });
    const result = await e2e.shiro(["-p", "hi", "--yolo", "--disallowed-tools", "Bash"]);
    expect(result.code).toBe(0);
    expect(existsSync(join(e2e.dirs.cwd, "made"))).toBe(false);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain("Refused by the permission rules: bash is denied by --disallowed-tools.");
  });

  test.each([["Bash(printf:*)"], ["bash(printf*)"]])("--allowed-tools %s lets those commands run without --yolo, and nothing else", async (spelling) => {
    e2e.fake.script(
      {
        toolCalls: [
          { name: "bash", input: { command: "printf allowed-%s 7" } },
          { name: "bash", input: { command: "touch not-allowed" } },
        ],
      },
      { text: "ok" },
    );
    const result = await e2e.shiro(["-p", "hi", "--allowed-tools", spelling]);
    expect(result.code).toBe(0);
    const [ran, refused] = toolResultsOf(e2e.fake.requests[1]!);
    expect(ran!.output).toContain("allowed-7");
    expect(refused!.output).toContain("--yolo");
    expect(existsSync(join(e2e.dirs.cwd, "not-allowed"))).toBe(false);
  });

  test("--append-system-prompt adds text, or a file's text, at the end of the system prompt", async () => {
    writeFileSync(join(e2e.dirs.cwd, "extra.md"), "Always answer in French.\n");
    e2e.fake.script({ text: "a" }, { text: "b" });
    await e2e.shiro(["-p", "hi", "--append-system-prompt", "Reply tersely."]);
    await e2e.shiro(["-p", "hi", "--append-system-prompt", "@extra.md"]);
    expect(systemOf(e2e.fake.requests[0]!)).toEndWith("\n\nReply tersely.");
    expect(systemOf(e2e.fake.requests[1]!)).toEndWith("\n\nAlways answer in French.");
  });
});

describe("where a run works", () => {
  test("-C runs in another folder: its root, its files, its session", async () => {
    const project = join(e2e.dirs.cwd, "project");
    mkdirSync(project);
    writeFileSync(join(project, "here.txt"), "inside\n");
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: "here.txt" } }] }, { text: "ok" }, { text: "again" });
    const result = await e2e.shiro(["-C", "project", "-p", "read it"], { cwd: e2e.dirs.cwd });
    expect(result.code).toBe(0);
    expect(systemOf(e2e.fake.requests[0]!)).toContain(`Workspace root: ${project}`);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toBe("1: inside");
    const resumed = await e2e.shiro(["-p", "more", "-c", "-C", project], { cwd: tmpdir() });
    expect(resumed.code).toBe(0);
    expect(userTextsOf(e2e.fake.requests[2]!)).toEqual(["read it", "more"]);
  });

  test("--add-dir widens the jail to one more folder, and only for that run", async () => {
    await withOutside(async (outside) => {
      const target = join(outside, "made.txt");
      e2e.fake.script(
        { toolCalls: [{ name: "write_file", input: { path: target, content: "added\n" } }] },
        { text: "ok" },
        { toolCalls: [{ name: "write_file", input: { path: join(outside, "second.txt"), content: "no\n" } }] },
        { text: "ok" },
      );
      const widened = await e2e.shiro(["-p", "write", "--yolo", "--add-dir", outside]);
      const plain = await e2e.shiro(["-p", "write", "--yolo"]);
      expect([widened.code, plain.code]).toEqual([0, 0]);
      expect(readFileSync(target, "utf8")).toBe("added\n");
      expect(toolResultsOf(e2e.fake.requests[3]!)[0]!.output).toContain("Path escapes workspace");
      expect(existsSync(join(outside, "second.txt"))).toBe(false);
    });
  });

  sandboxTest("--add-dir makes the folder writable inside the shell sandbox", async () => {
    await withOutside(async (outside) => {
      e2e.fake.script(
        { toolCalls: [{ name: "bash", input: { command: `printf sandboxed > ${outside}/from-bash.txt` } }] },
        { text: "ok" },
        { toolCalls: [{ name: "bash", input: { command: `printf nope > ${outside}/refused.txt` } }] },
        { text: "ok" },
      );
      const widened = await e2e.shiro(["-p", "write", "--yolo", "--add-dir", outside]);
      const plain = await e2e.shiro(["-p", "write", "--yolo"]);
      expect([widened.code, plain.code]).toEqual([0, 0]);
      expect(readFileSync(join(outside, "from-bash.txt"), "utf8")).toBe("sandboxed");
      expect(existsSync(join(outside, "refused.txt"))).toBe(false);
    });
  });
});
