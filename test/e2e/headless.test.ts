/**
 * Headless mode through the built binary against the fake provider, for each wire protocol:
 * what the model received (recorded request bodies), what the user saw (stdout, stderr, exit
 * code), and what landed on disk (run log, session).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { uuidv7 } from "../../lib/platform/ids.ts";
import { join } from "node:path";
import { binaryEnv, fakeEnv, parseEventLines, systemOf, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";

const PROTOCOLS = ["chat", "responses", "anthropic"] as const;
const e2e = useE2E();

const run = (args: string[], protocol: (typeof PROTOCOLS)[number], extra: { stdin?: string; env?: Record<string, string> } = {}) =>
  e2e.shiro(args, { protocol, ...extra });

for (const protocol of PROTOCOLS) {
  describe(`headless over ${protocol}`, () => {
    test("a three-step tool loop feeds each result back and prints the answer", async () => {
      writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "alpha\nbeta\n");
      e2e.fake.script(
        { text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        { toolCalls: [{ name: "bash", input: { command: "printf 'marker-%s' 42" } }] },
        { text: "The file has two lines." },
      );
      const result = await run(["-p", "what is in notes.txt?", "--yolo"], protocol);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("Reading.\nThe file has two lines.\n");
      expect(result.stderr).toContain('[tool] read_file {"path":"notes.txt"}');
      expect(e2e.fake.requests.length).toBe(3);
      expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["what is in notes.txt?"]);
      expect(toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output)).toEqual(["1: alpha\n2: beta"]);
      const third = toolResultsOf(e2e.fake.requests[2]!).map((r) => r.output);
      expect(third[0]).toBe("1: alpha\n2: beta");
      expect(third[1]).toContain("marker-42");
      expect(systemOf(e2e.fake.requests[0]!)).toContain(`Workspace root: ${e2e.dirs.cwd}`);
    });

    test("without --yolo a call that needs approval is denied, the model is told, and the run still exits 0", async () => {
      e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "touch should-not-exist" } }] }, { text: "Understood." });
      const result = await run(["-p", "make a file"], protocol);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain("[denied] bash (run with --yolo to allow tool use in headless mode)");
      expect(result.stderr).toContain("unless --yolo is passed");
      const [denied] = toolResultsOf(e2e.fake.requests[1]!);
      expect(denied!.output).toContain("--yolo");
      expect(existsSync(join(e2e.dirs.cwd, "should-not-exist"))).toBe(false);
    });

    test("the step cap ends the run with exit 4", async () => {
      e2e.writeConfig({ maxSteps: 2 });
      e2e.fake.respond(() => ({ toolCalls: [{ name: "glob", input: { pattern: `*.${Math.random().toString(36).slice(2, 6)}` } }] }));
      const result = await run(["-p", "loop forever", "--json"], protocol);
      e2e.fake.respond(() => ({ error: { status: 500, message: "unexpected request" } }));
      expect(result.code).toBe(4);
      expect(e2e.fake.requests.length).toBe(2);
      const done = parseEventLines(result.stdout).at(-1)!;
      expect(done).toMatchObject({ type: "done", stop: "max-steps", steps: 2 });
    });

    test("a provider error ends the run with exit 1 and one error line", async () => {
      e2e.writeConfig({ maxRetries: 0 });
      e2e.fake.script({ error: { status: 401 } });
      const result = await run(["-p", "hi"], protocol);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/\[error\] 401 from 127\.0\.0\.1:\d+: the API key was rejected/);
      expect(result.stdout).toBe("");
    });
  });
}

// Over the other protocols these requests are asserted in-process (test/unit/tool-results-wire.test.ts).
describe("headless over chat: tool results", () => {
  test("parallel calls in one step are all answered, in call order", async () => {
    writeFileSync(join(e2e.dirs.cwd, "a.txt"), "A\n");
    writeFileSync(join(e2e.dirs.cwd, "b.txt"), "B\n");
    e2e.fake.script(
      {
        toolCalls: [
          { name: "read_file", input: { path: "a.txt" } },
          { name: "read_file", input: { path: "b.txt" } },
          { name: "glob", input: { pattern: "*.txt" } },
        ],
      },
      { text: "ok" },
    );
    const result = await run(["-p", "read both"], "chat");
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output);
    expect(outputs).toEqual(["1: A", "1: B", "a.txt\nb.txt"]);
  });

  test("an unknown tool and invalid arguments come back to the model as errors", async () => {
    e2e.fake.script(
      {
        toolCalls: [
          { name: "launch_rockets", input: {} },
          { name: "read_file", input: { path: 42 } },
          { name: "read_file", rawArgs: "{not json" },
        ],
      },
      { text: "sorry" },
    );
    const result = await run(["-p", "go"], "chat");
    expect(result.code).toBe(0);
    // chat and responses carry no error flag on results, so the adapters prefix "Error: ".
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output.replace(/^Error: /, ""));
    expect(outputs[0]).toStartWith('Unknown tool "launch_rockets". Available tools: ');
    expect(outputs[1]).toStartWith('Invalid arguments for read_file: "path" ');
    expect(outputs[2]).toStartWith("Invalid arguments for read_file: not a JSON object");
    expect(result.stderr).toContain("[tool-error] launch_rockets");
  });
});

describe("the prompt from stdin", () => {
  // Reading stdin happens before any protocol is chosen: each spelling runs once, the protocols
  // taking turns, so each protocol also carries a prompt read from stdin.
  const spellings: [string[], string, string][] = [
    [["-p"], "from stdin with -p\n", "from stdin with -p"],
    [[], "piped without -p", "piped without -p"],
    [["-p", "-"], "dash 0\n", "dash 0"],
    [["--print", "-"], "dash 1\n", "dash 1"],
    [["--print=-"], "dash 2\n", "dash 2"],
    [["-p", "-", "--json"], "dash 3\n", "dash 3"],
  ];
  for (const [index, [args, stdin, asked]] of spellings.entries()) {
    const protocol = PROTOCOLS[index % PROTOCOLS.length]!;
    test(`shiro ${args.join(" ") || "(no flags)"} with the prompt piped in, over ${protocol}`, async () => {
      e2e.fake.script({ text: `answer ${index}` });
      const result = await run(args, protocol, { stdin });
      expect(result.code).toBe(0);
      if (!args.includes("--json")) expect(result.stdout).toBe(`answer ${index}\n`);
      expect(userTextsOf(e2e.fake.requests[0]!)).toEqual([asked]);
    });
  }
});

describe("headless --json", () => {
  test("every line parses and every event and field is documented in docs/headless.md", async () => {
    const doc = readFileSync(join(import.meta.dir, "..", "..", "docs", "headless.md"), "utf8");
    e2e.fake.script(
      {
        reasoning: "thinking it over",
        text: "Looking.",
        toolCalls: [
          { name: "bash", input: { command: "echo live-output" } },
          { name: "bash", input: { command: "rm -rf /tmp/nothing-here" } },
        ],
      },
      {
        toolCalls: [
          { name: "todo_write", input: { todos: [{ content: "check", status: "in_progress" }] } },
          { name: "remember", input: { kind: "fact", text: "the build uses bun" } },
        ],
      },
      { text: "Done." },
    );
    const result = await run(["-p", "go", "--json", "--yolo"], "anthropic");
    expect(result.code).toBe(0);
    const events = parseEventLines(result.stdout);
    const types = new Set(events.map((event) => event.type));
    for (const type of ["run-start", "reasoning", "text", "message", "tool-start", "tool-call", "tool-output", "tool-result", "tool-denied", "state", "done"]) {
      expect(types.has(type)).toBe(true);
    }
    for (const event of events) {
      expect(doc).toContain(`### \`${event.type}\``);
      for (const key of Object.keys(event)) expect(doc).toContain(`\`${key}\``);
    }
    expect(result.stderr).not.toContain("[tool]");
    expect(events.filter((event) => event.type === "state")).toEqual([
      { type: "state", todos: [{ content: "check", status: "in_progress" }] },
      { type: "state", memory: { action: "remember", count: 1 } },
    ]);
  });
});

describe("interrupting a headless run", () => {
  test("SIGINT stops the running command, ends with an aborted done, and exits 130", async () => {
    const { spawn } = await import("node:child_process");
    const { BINARY } = await import("./_harness.ts");
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "sleep 30; echo never" } }] });
    const child = spawn(BINARY, ["-p", "wait", "--yolo", "--json"], {
      cwd: e2e.dirs.cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
    });
    let stdout = "";
    let interrupted = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      // One Ctrl-C: a second one leaves at once, before the turn's checkpoint and its done event.
      if (stdout.includes('"tool-call"') && !interrupted) {
        interrupted = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(130);
    const events = parseEventLines(stdout);
    expect(events.find((event) => event.type === "tool-error")!.error).toStartWith(
      "The user interrupted this command. It did not finish, so its effects are unknown.",
    );
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "aborted" });
    expect(e2e.fake.requests).toHaveLength(1);
  }, 30_000);
});

describe("the saved line", () => {
  test("names the session by the shortest prefix no other stored session or run shares, though the history was listed while the model answered", async () => {
    // Sessions and runs made within the same minute share their first 8 characters and more.
    const state = join(e2e.dirs.home, ".shiro-neko");
    for (const dir of ["sessions", "runs"]) mkdirSync(join(state, dir), { recursive: true });
    for (let i = 0; i < 20; i++) {
      writeFileSync(join(state, "sessions", `${uuidv7()}.json`), "{}");
      writeFileSync(join(state, "runs", `${uuidv7()}.json`), "{}");
    }
    e2e.fake.script({ text: "hi" });
    const result = await e2e.shiro(["-p", "hi"]);
    const short = /shiro -r (\S+)/.exec(result.stderr)?.[1] ?? "";
    const stored = ["sessions", "runs"].flatMap((dir) =>
      readdirSync(join(state, dir))
        .filter((name) => name.endsWith(".json"))
        .map((name) => name.slice(0, -".json".length)),
    );
    const saved = stored.filter((id) => id.startsWith(short));
    expect([result.code, saved.length, short.length >= 8]).toEqual([0, 1, true]);
    // One character less is shared with another id (or would drop below 8, or end on a dash).
    const shorter = short.slice(0, -1).replace(/-$/, "");
    expect(shorter.length < 8 || stored.filter((id) => id.startsWith(shorter)).length > 1).toBe(true);
  });
});
