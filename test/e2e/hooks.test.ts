/**
 * Claude Code-format hooks through the binary: what each hook received on stdin (written to disk
 * by the hook), what the fake model read afterwards (tool results, system prompt, user turns),
 * what the tools left on disk, and the `hook` events of --json.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEventLines, systemOf, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

type Hook = { type: "command"; command: string; timeout?: number };
const hooksConfig = (event: string, matcher: string | undefined, ...commands: (string | Hook)[]) => ({
  [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: commands.map((c) => (typeof c === "string" ? { type: "command", command: c } : c)) }],
});
const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
const hookEvents = (stdout: string) => parseEventLines(stdout).filter((event) => event.type === "hook");
const inCwd = (name: string) => join(e2e.dirs.cwd, name);

describe("PreToolUse", () => {
  test("exit 2 refuses bash: the command does not run and the model reads the hook's stderr", async () => {
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "Bash", 'echo "no bash today: use the build script" >&2; exit 2') });
    e2e.fake.script(bash("touch ran.txt"), { text: "understood" });
    const run = await e2e.shiro(["-p", "go", "--yolo", "--json"]);
    expect(run.code).toBe(0);
    expect(existsSync(inCwd("ran.txt"))).toBe(false);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toBe("Error: Refused by a PreToolUse hook: no bash today: use the build script");
    const events = parseEventLines(run.stdout);
    expect(events.find((event) => event.type === "tool-denied")).toMatchObject({ name: "bash", by: "hook" });
    expect(hookEvents(run.stdout)).toEqual([
      {
        type: "hook",
        event: "PreToolUse",
        command: 'echo "no bash today: use the build script" >&2; exit 2',
        source: join(e2e.dirs.home, ".shiro-neko", "config.json"),
        exit: 2,
        durationMs: expect.any(Number),
        decision: "block",
        tool: "bash",
      },
    ]);
  }, 60_000);

  test('JSON permissionDecision "deny" refuses with its reason; a matcher naming neither name does not run', async () => {
    const deny = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy: no touching"}}'`;
    e2e.writeConfig({
      hooks: {
        PreToolUse: [
          { matcher: "bash", hooks: [{ type: "command", command: deny }] },
          { matcher: "Write", hooks: [{ type: "command", command: "exit 2" }] },
        ],
      },
    });
    e2e.fake.script(bash("touch ran.txt"), { text: "ok" });
    const run = await e2e.shiro(["-p", "go", "--yolo", "--json"]);
    expect(existsSync(inCwd("ran.txt"))).toBe(false);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toBe("Error: Refused by a PreToolUse hook: policy: no touching");
    expect(hookEvents(run.stdout).map((event) => [event.command, event.decision])).toEqual([[deny, "deny"]]);
  }, 60_000);

  test("updatedInput rewrites the command before it runs; its allow answers the question a headless run could not ask", async () => {
    const rewrite = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo rewritten > out.txt"}}}'`;
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "Bash", rewrite) });
    e2e.fake.script(bash("echo original > out.txt"), { text: "done" });
    const run = await e2e.shiro(["-p", "go", "--json"]);
    expect(run.code).toBe(0);
    expect(readFileSync(inCwd("out.txt"), "utf8")).toBe("rewritten\n");
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toBe("exit: 0\n\n(no output)");
    expect(parseEventLines(run.stdout).some((event) => event.type === "notice" && String(event.text).includes('"command":"echo rewritten > out.txt"'))).toBe(
      true,
    );
  }, 60_000);

  test("a hook's allow never passes a guard plugin's refusal", async () => {
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "", allow) });
    e2e.fake.script(bash("rm -rf keep"), { text: "ok" });
    writeFileSync(inCwd("keep"), "x");
    const run = await e2e.shiro(["-p", "go", "--yolo", "--json"]);
    expect(existsSync(inCwd("keep"))).toBe(true);
    expect(parseEventLines(run.stdout).find((event) => event.type === "tool-denied")).toMatchObject({ name: "bash", by: "plugin" });
  }, 60_000);

  test("a hanging hook is killed at its timeout, its process tree with it, and the turn goes on", async () => {
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "*", { type: "command", command: "sleep 300 & echo $! > bg.pid; wait", timeout: 1 }) });
    e2e.fake.script(bash("echo ran > ran.txt"), { text: "finished" });
    const run = await e2e.shiro(["-p", "go", "--yolo", "--no-sandbox", "--json"], { timeoutMs: 25_000 });
    expect(run.code).toBe(0);
    expect(readFileSync(inCwd("ran.txt"), "utf8")).toBe("ran\n");
    expect(hookEvents(run.stdout)).toMatchObject([{ event: "PreToolUse", exit: null, timedOut: true }]);
    const pid = Number(readFileSync(inCwd("bg.pid"), "utf8"));
    expect(() => process.kill(pid, 0)).toThrow();
    expect(parseEventLines(run.stdout)).toContainEqual({
      type: "notice",
      text: "PreToolUse hook `sleep 300 & echo $! > bg.pid; wait` was killed at its timeout; shiro went on without it",
    });
  }, 60_000);
});

describe("PostToolUse, UserPromptSubmit, SessionStart, Stop", () => {
  test('PostToolUse on "Write|Edit" receives tool_name "Write", tool_input.file_path and shiro\'s own name; exit 2 feedback reaches the model', async () => {
    e2e.writeConfig({
      hooks: hooksConfig("PostToolUse", "Write|Edit", 'cat > "$CLAUDE_PROJECT_DIR/post.json"; echo "lint: trailing newline missing" >&2; exit 2'),
    });
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "notes/a.txt", content: "hi" } }] }, { text: "written" });
    const run = await e2e.shiro(["-p", "go", "--yolo", "--json"]);
    expect(run.code).toBe(0);
    const received = JSON.parse(readFileSync(inCwd("post.json"), "utf8"));
    expect(received).toEqual({
      session_id: expect.any(String),
      transcript_path: expect.stringContaining(join(e2e.dirs.home, ".shiro-neko", "sessions")),
      cwd: e2e.dirs.cwd,
      permission_mode: "bypassPermissions",
      hook_event_name: "PostToolUse",
      tool_name: "Write",
      tool_input: { file_path: inCwd("notes/a.txt"), content: "hi" },
      tool_use_id: expect.any(String),
      shiro_tool_name: "write_file",
      shiro_tool_input: { path: "notes/a.txt", content: "hi" },
      tool_response: { filePath: inCwd("notes/a.txt"), success: true, output: expect.any(String) },
    });
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toEndWith("\n\nPostToolUse hook: lint: trailing newline missing");
  }, 60_000);

  test("UserPromptSubmit and SessionStart output reaches the model; SessionStart hears source startup, UserPromptSubmit the prompt", async () => {
    e2e.writeConfig({
      hooks: {
        SessionStart: [
          { matcher: "startup", hooks: [{ type: "command", command: 'cat > "$CLAUDE_PROJECT_DIR/start.json"; echo "branch is feature/x"' }] },
          { matcher: "resume", hooks: [{ type: "command", command: "echo RESUME-ONLY" }] },
        ],
        ...hooksConfig(
          "UserPromptSubmit",
          undefined,
          `echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket ABC-42 is open"}}'`,
        ),
      },
    });
    e2e.fake.script({ text: "hello" });
    const run = await e2e.shiro(["-p", "what now", "--json"]);
    expect(run.code).toBe(0);
    const system = systemOf(e2e.fake.requests[0]!);
    expect(system).toContain("# Context from hooks\n\nbranch is feature/x\n\nticket ABC-42 is open");
    expect(system).not.toContain("RESUME-ONLY");
    expect(JSON.parse(readFileSync(inCwd("start.json"), "utf8"))).toMatchObject({ hook_event_name: "SessionStart", source: "startup" });
    expect(hookEvents(run.stdout).map((event) => event.event)).toEqual(["SessionStart", "UserPromptSubmit"]);
  }, 60_000);

  test("UserPromptSubmit exit 2 refuses the prompt: the model is never asked", async () => {
    e2e.writeConfig({ hooks: hooksConfig("UserPromptSubmit", undefined, 'echo "prompts naming prod are refused" >&2; exit 2') });
    const run = await e2e.shiro(["-p", "deploy to prod", "--json"]);
    expect(run.code).not.toBe(0);
    expect(e2e.fake.requests).toHaveLength(0);
    expect(parseEventLines(run.stdout).find((event) => event.type === "error")).toMatchObject({
      error: "A UserPromptSubmit hook refused the prompt: prompts naming prod are refused",
    });
  }, 60_000);

  test('Stop with decision "block" makes the agent take one more step, with stop_hook_active true the second time', async () => {
    const stop = `input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/stops.jsonl"; case "$input" in *'"stop_hook_active":true'*) exit 0;; esac; echo '{"decision":"block","reason":"run the tests before you stop"}'`;
    e2e.writeConfig({ hooks: hooksConfig("Stop", undefined, stop) });
    e2e.fake.script({ text: "all done" }, { text: "tests pass" });
    const run = await e2e.shiro(["-p", "fix it", "--json"]);
    expect(run.code).toBe(0);
    expect(e2e.fake.requests).toHaveLength(2);
    expect(userTextsOf(e2e.fake.requests[1]!)).toEqual(["fix it", "Stop hook feedback:\nrun the tests before you stop"]);
    const stops = readFileSync(inCwd("stops.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(stops.map((s) => [s.hook_event_name, s.stop_hook_active, s.last_assistant_message])).toEqual([
      ["Stop", false, "all done"],
      ["Stop", true, "tests pass"],
    ]);
    expect(parseEventLines(run.stdout).at(-1)).toMatchObject({ type: "done", stop: "completed", steps: 2 });
  }, 60_000);

  test("--no-hooks runs none; --yolo skips none", async () => {
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "Bash", "exit 2") });
    e2e.fake.script(bash("touch ran.txt"), { text: "ok" });
    const run = await e2e.shiro(["-p", "go", "--yolo", "--no-hooks", "--json"]);
    expect(run.code).toBe(0);
    expect(existsSync(inCwd("ran.txt"))).toBe(true);
    expect(hookEvents(run.stdout)).toEqual([]);
  }, 60_000);
});
