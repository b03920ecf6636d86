/**
 * Claude Code-format hooks through the binary: what each hook received on stdin (written to disk
 * by the hook), what the fake model read afterwards (tool results, system prompt, user turns),
 * what the tools left on disk, and the `hook` events of --json.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, fakeEnv, parseEventLines, systemOf, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";
import { startPty } from "./_pty.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";
import { findOnPath, hostPackage, hostTest } from "../host-packages.ts";

const e2e = useE2E();

type Hook = { type: "command"; command: string; timeout?: number };
const hooksConfig = (event: string, matcher: string | undefined, ...commands: (string | Hook)[]) => ({
  [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: commands.map((c) => (typeof c === "string" ? { type: "command", command: c } : c)) }],
});
const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
const hookEvents = (stdout: string) => parseEventLines(stdout).filter((event) => event.type === "hook");
const inCwd = (name: string) => join(e2e.dirs.cwd, name);

/** True once `pid` is gone or a zombie (killed, not yet reaped by whoever adopted it), polling for at most `ms`. */
async function _endsWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    let state: string | undefined;
    try {
      state = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "")[0];
    } catch {
      return true;
    }
    if (state === "Z" || state === "X") return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(50);
  }
}

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

  test('permissionDecision "ask" asks where rules allow, --yolo included: a headless run refuses, --approvals block waits', async () => {
    const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm reads"}}'`;
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "Read", ask) });
    writeFileSync(inCwd("a.txt"), "hello\n");
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] }, { text: "ok" });
    const refused = await e2e.shiro(["-p", "read it", "--yolo", "--json"]);
    expect(parseEventLines(refused.stdout).find((event) => event.type === "tool-denied")).toMatchObject({ name: "read_file", by: "headless" });
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] });
    const blocked = await e2e.shiro(["-p", "read it", "--approvals", "block", "--json"]);
    expect(blocked.code).toBe(3);
    expect(parseEventLines(blocked.stdout).find((event) => event.type === "blocked")).toMatchObject({ name: "read_file" });
  }, 60_000);

  test("a hook's allow never passes a guard plugin's refusal", async () => {
    const allow = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`;
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "", allow) });
    e2e.fake.script(bash("rm -rf keep"), { text: "ok" });
    writeFileSync(inCwd("keep"), "x");
    // Without checkpoints: with one, a covered delete is a question instead (test/e2e/checkpoints.test.ts).
    const run = await e2e.shiro(["-p", "go", "--yolo", "--json", "--no-checkpoints"]);
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
    expect(await _endsWithin(pid, 3_000)).toBe(true);
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

describe(".claude/settings.json", () => {
  const settings = {
    permissions: { allow: ["Bash(echo:*)"], deny: ["Bash(touch:*)"] },
    hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo PROJECT-HOOK-CONTEXT" }] }] },
    model: "claude-sonnet-4-5",
  };
  const writeSettings = (name: string, value: unknown) => {
    mkdirSync(inCwd(".claude"), { recursive: true });
    writeFileSync(inCwd(`.claude/${name}`), JSON.stringify(value, null, 2));
  };
  const run = (command: string) => {
    e2e.fake.script(bash(command), { text: "ok" });
    return e2e.shiro(["-p", "go", "--yolo", "--json"]);
  };
  const systemOfRun = () => systemOf(e2e.fake.requests.at(-1)!);

  test("its hooks and permissions apply only after the trust question was answered y, and again only after a changed file is trusted", async () => {
    writeSettings("settings.json", settings);
    const untrusted = await run("touch a.txt");
    expect(existsSync(inCwd("a.txt"))).toBe(true);
    expect(systemOfRun()).not.toContain("PROJECT-HOOK-CONTEXT");
    expect(parseEventLines(untrusted.stdout)).toContainEqual({
      type: "notice",
      text: `${inCwd(".claude/settings.json")} not used: this folder's Claude Code settings are not trusted; a headless run never uses untrusted hooks or permissions (start shiro here once and answer y)`,
    });
    const listed = await e2e.shiro(["hooks"]);
    expect(listed.stdout).toContain(`UserPromptSubmit  *  echo PROJECT-HOOK-CONTEXT  (60s)  (not trusted: off)\n  from ${inCwd(".claude/settings.json")}`);

    const repl = startPty([], { cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
    try {
      await repl.until("  permission deny: Bash(touch:*)");
      await repl.until("Trust this folder's Claude Code settings?");
      repl.type("y\r");
      await repl.until("trusted; its hooks and permissions apply");
      const at = await repl.until("› ");
      repl.type("/hooks\r");
      await repl.until(`UserPromptSubmit  *  echo PROJECT-HOOK-CONTEXT  (60s)\n  from ${inCwd(".claude/settings.json")}`, at);
    } finally {
      repl.kill();
      await repl.exited;
    }

    const trusted = await run("touch b.txt");
    expect(existsSync(inCwd("b.txt"))).toBe(false);
    expect(parseEventLines(trusted.stdout).find((event) => event.type === "tool-denied")).toMatchObject({ name: "bash", by: "rule" });
    expect(systemOfRun()).toContain("# Context from hooks\n\nPROJECT-HOOK-CONTEXT");
    expect(hookEvents(trusted.stdout)).toMatchObject([{ event: "UserPromptSubmit", source: inCwd(".claude/settings.json"), exit: 0 }]);
    // An allow rule from the file lets a headless run without --yolo run what it names.
    e2e.fake.script(bash("echo allowed > allowed.txt"), { text: "ok" });
    await e2e.shiro(["-p", "go", "--json"]);
    expect(readFileSync(inCwd("allowed.txt"), "utf8")).toBe("allowed\n");

    writeSettings("settings.local.json", { permissions: { allow: ["Bash(touch:*)"] } });
    const changed = await run("touch c.txt");
    expect(existsSync(inCwd("c.txt"))).toBe(true);
    expect(systemOfRun()).not.toContain("PROJECT-HOOK-CONTEXT");
    expect(parseEventLines(changed.stdout).some((event) => event.type === "notice" && String(event.text).includes("not trusted"))).toBe(true);
  }, 120_000);
});

const JQ = hostPackage("jq", "apt-get install -y jq", findOnPath("jq") !== undefined && spawnSync("jq", ["--version"]).status === 0, "jq is not on PATH");
/** `test` when jq is on PATH; without it a failing test under CI=true (CI installs jq), else skipped with one notice. */
function jqTest(name: string, fn: () => Promise<void>, timeoutMs: number): void {
  hostTest(JQ, name, fn, timeoutMs);
}

describe("hook scripts as people share them for Claude Code, unchanged", () => {
  const install = (...names: string[]) => {
    mkdirSync(inCwd(".claude/hooks"), { recursive: true });
    for (const name of names) cpSync(join(ROOT, "test/fixtures/claude-hooks", name), inCwd(`.claude/hooks/${name}`));
  };
  const script = (name: string) => `"$CLAUDE_PROJECT_DIR"/.claude/hooks/${name}`;

  jqTest(
    "a formatter after Write and Edit (jq reads tool_input.file_path)",
    async () => {
      install("format-after-edit.sh");
      e2e.writeConfig({ hooks: hooksConfig("PostToolUse", "Write|Edit|MultiEdit", script("format-after-edit.sh")) });
      e2e.fake.script(
        { toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "#  Notes\n\tfirst\n" } }] },
        { toolCalls: [{ name: "edit_file", input: { path: "notes.md", oldString: "first", newString: "first\n\tsecond" } }] },
        { text: "done" },
      );
      const run = await e2e.shiro(["-p", "write notes", "--yolo", "--json"]);
      expect(run.code).toBe(0);
      expect(readFileSync(inCwd("notes.md"), "utf8")).toBe("#  Notes\n  first\n  second\n");
      expect(hookEvents(run.stdout).map((event) => [event.tool, event.exit, event.output])).toEqual([
        ["write_file", 0, `formatted ${inCwd("notes.md")}`],
        ["edit_file", 0, `formatted ${inCwd("notes.md")}`],
      ]);
    },
    60_000,
  );

  jqTest(
    "a bash policy gate: dangerous commands refused with its stderr, the rest run",
    async () => {
      install("bash-policy.sh");
      e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "Bash", script("bash-policy.sh")) });
      writeFileSync(inCwd("keep.txt"), "kept");
      e2e.fake.script(bash("git push --force origin main"), bash("rm -rf keep.txt"), bash("echo safe > safe.txt"), { text: "done" });
      const run = await e2e.shiro(["-p", "clean up", "--yolo", "--json"]);
      expect(run.code).toBe(0);
      expect(readFileSync(inCwd("keep.txt"), "utf8")).toBe("kept");
      expect(readFileSync(inCwd("safe.txt"), "utf8")).toBe("safe\n");
      expect(toolResultsOf(e2e.fake.requests[1]!).at(-1)!.output).toBe(
        "Error: Refused by a PreToolUse hook: Blocked by policy: 'git push --force origin main' matches a dangerous pattern. Use a safer command.",
      );
      expect(hookEvents(run.stdout).map((event) => event.decision ?? "none")).toEqual(["block", "block", "none"]);
    },
    60_000,
  );

  jqTest(
    "a desktop-notification stand-in on Notification and Stop",
    async () => {
      install("notify.sh");
      e2e.writeConfig({ hooks: { ...hooksConfig("Notification", "", script("notify.sh")), ...hooksConfig("Stop", undefined, script("notify.sh")) } });
      e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "CHANGELOG.md", content: "x" } }] });
      const blocked = await e2e.shiro(["-p", "write it", "--approvals", "block", "--json"]);
      expect(blocked.code).toBe(3);
      e2e.fake.script({ text: "all done" });
      await e2e.shiro(["-p", "anything else?"]);
      expect(readFileSync(inCwd(".claude/notifications.log"), "utf8")).toBe(
        "[Notification] shiro needs your permission to use write_file\n[Stop] Claude has finished its turn\n",
      );
    },
    60_000,
  );
});

describe("where hooks run, and the events around a session", () => {
  test("a hook gets bash's stripped environment plus CLAUDE_PROJECT_DIR and SHIRO_PROJECT_DIR", async () => {
    e2e.writeConfig({ hooks: hooksConfig("UserPromptSubmit", undefined, 'env > "$CLAUDE_PROJECT_DIR/env.txt"') });
    e2e.fake.script({ text: "ok" });
    await e2e.shiro(["-p", "hi"], { env: { OPENAI_API_KEY: "sk-should-not-leak", SOME_SETTING: "kept" } });
    const env = readFileSync(inCwd("env.txt"), "utf8").split("\n");
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${e2e.dirs.cwd}`);
    expect(env).toContain(`SHIRO_PROJECT_DIR=${e2e.dirs.cwd}`);
    expect(env).toContain("SOME_SETTING=kept");
    expect(env.filter((line) => /^(OPENAI_API_KEY|SHIRO_API_KEY)=/.test(line))).toEqual([]);
  }, 60_000);

  sandboxTest(
    "a hook runs in the session's sandbox: it writes the workspace, not the home folder",
    async () => {
      e2e.writeConfig({ hooks: hooksConfig("UserPromptSubmit", undefined, 'echo in > "$CLAUDE_PROJECT_DIR/inside.txt"; echo out > "$HOME/outside.txt"') });
      e2e.fake.script({ text: "ok" });
      await e2e.shiro(["-p", "hi"]);
      expect(readFileSync(inCwd("inside.txt"), "utf8")).toBe("in\n");
      expect(existsSync(join(e2e.dirs.home, "outside.txt"))).toBe(false);
    },
    60_000,
  );

  test("SessionStart hears resume when -c continues a session; SessionEnd hears other when a headless run ends", async () => {
    const log = `cat >> "$CLAUDE_PROJECT_DIR/session.raw"; echo >> "$CLAUDE_PROJECT_DIR/session.raw"`;
    e2e.writeConfig({ hooks: { ...hooksConfig("SessionStart", "", log), ...hooksConfig("SessionEnd", "", log) } });
    e2e.fake.script({ text: "one" }, { text: "two" });
    await e2e.shiro(["-p", "first"]);
    await e2e.shiro(["-p", "second", "-c"]);
    const seen = readFileSync(inCwd("session.raw"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .map((input) => [input.hook_event_name, input.source ?? input.reason]);
    expect(seen).toEqual([
      ["SessionStart", "startup"],
      ["SessionEnd", "other"],
      ["SessionStart", "resume"],
      ["SessionEnd", "other"],
    ]);
  }, 60_000);

  test("SubagentStop: a task subagent's end, which a block makes take one more step", async () => {
    const stop = `input=$(cat); echo "$input" >> "$CLAUDE_PROJECT_DIR/sub.jsonl"; case "$input" in *'"stop_hook_active":true'*) exit 0;; esac; echo "cite the file" >&2; exit 2`;
    e2e.writeConfig({ hooks: hooksConfig("SubagentStop", undefined, stop) });
    writeFileSync(inCwd("notes.txt"), "alpha\n");
    e2e.fake.script(
      { toolCalls: [{ name: "task", input: { description: "read the notes", prompt: "What does notes.txt say?" } }] },
      { text: "alpha" },
      { text: "alpha (notes.txt:1)" },
      { text: "The notes say alpha." },
    );
    const run = await e2e.shiro(["-p", "what do the notes say?", "--json"]);
    expect(run.code).toBe(0);
    expect(userTextsOf(e2e.fake.requests[2]!)).toEqual(["What does notes.txt say?", "SubagentStop hook feedback:\ncite the file"]);
    expect(toolResultsOf(e2e.fake.requests[3]!)[0]!.output).toBe("alpha (notes.txt:1)");
    const seen = readFileSync(inCwd("sub.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(seen.map((input) => [input.hook_event_name, input.stop_hook_active])).toEqual([
      ["SubagentStop", false],
      ["SubagentStop", true],
    ]);
    expect(hookEvents(run.stdout).map((event) => [event.event, event.decision ?? "none"])).toEqual([
      ["SubagentStop", "block"],
      ["SubagentStop", "none"],
    ]);
    // The run log keeps the same events.
    const runId = String(parseEventLines(run.stdout)[0]!.runId);
    const logged = parseEventLines((await e2e.shiro(["runs", "events", runId, "--json", "--type", "hook"])).stdout);
    expect(logged.map((event) => [event.type, event.event])).toEqual([
      ["hook", "SubagentStop"],
      ["hook", "SubagentStop"],
    ]);
  }, 60_000);

  test("PreCompact hears trigger auto before the wire is compacted, and SessionStart compact puts its context back after", async () => {
    e2e.writeConfig({
      maxSteps: 50,
      compaction: { threshold: 4_000 },
      hooks: {
        ...hooksConfig("PreCompact", "auto", 'cat >> "$CLAUDE_PROJECT_DIR/precompact.jsonl"; echo >> "$CLAUDE_PROJECT_DIR/precompact.jsonl"'),
        ...hooksConfig("SessionStart", "compact", "echo REMEMBER-THE-PLAN"),
      },
    });
    writeFileSync(inCwd("big.txt"), Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n"));
    let step = 0;
    e2e.fake.respond((request) => {
      if (!request.body.tools || request.body.tools.length === 0) return { text: "## Goal\n- reading big.txt" };
      step += 1;
      return step < 12 ? { toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: step } }] } : { text: "done" };
    });
    const run = await e2e.shiro(["-p", "read big.txt many times", "--json"], { timeoutMs: 90_000 });
    expect(run.code).toBe(0);
    const events = parseEventLines(run.stdout);
    expect(events.some((event) => event.type === "compacted" && event.summary)).toBe(true);
    const first = JSON.parse(readFileSync(inCwd("precompact.jsonl"), "utf8").trim().split("\n")[0]!);
    expect(first).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", custom_instructions: "" });
    expect(systemOf(e2e.fake.requests.at(-1)!)).toContain("# Context from hooks\n\nREMEMBER-THE-PLAN");
    const kinds = events
      .filter((event) => event.type === "hook" || event.type === "compacted")
      .map((event) => (event.type === "hook" ? event.event : "compacted"));
    expect(kinds.slice(0, 3)).toEqual(["PreCompact", "compacted", "SessionStart"]);
  }, 120_000);
});

describe("continue: false", () => {
  test("from PreToolUse: the call does not run, the turn ends without another model step, the user reads the stop reason", async () => {
    e2e.writeConfig({ hooks: hooksConfig("PreToolUse", "Bash", `echo '{"continue":false,"stopReason":"deploy freeze until Monday"}'`) });
    e2e.fake.script({
      toolCalls: [
        { name: "bash", input: { command: "touch one.txt" } },
        { name: "bash", input: { command: "touch two.txt" } },
      ],
    });
    const run = await e2e.shiro(["-p", "deploy", "--yolo", "--json"]);
    expect(run.code).toBe(0);
    expect([existsSync(inCwd("one.txt")), existsSync(inCwd("two.txt"))]).toEqual([false, false]);
    expect(e2e.fake.requests).toHaveLength(1);
    const events = parseEventLines(run.stdout);
    expect(events).toContainEqual({ type: "notice", text: "a hook stopped the turn: deploy freeze until Monday" });
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed", steps: 1 });
    expect(hookEvents(run.stdout).map((event) => event.decision)).toEqual(["stop"]);
  }, 60_000);
});
