/**
 * Hooks in-process: which hooks a matcher selects, how one run's exit code and stdout read
 * (Claude Code's contract), what a made-up tool's `claudeCode` declaration gives hooks (the
 * stdin a real hook process received, the rewrite it asked for), and how a hook's permission
 * decision meets the gate.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { createGate } from "../../lib/extensions/gate.ts";
import { defaultPermission, parsePermissionRules } from "../../lib/approval/rules.ts";
import { hookEntriesFromSettings, type HookEntry } from "../../lib/config/hooks-config.ts";
import { hookMatches, readHookRun } from "../../lib/extensions/hooks/hook-output.ts";
import { createSessionHooks } from "../../lib/extensions/hooks/session-hooks.ts";
import { createDisabledPluginHost } from "../../lib/extensions/plugin-host.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { editFileTool } from "../../lib/tools/edit.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "shiro-hooks-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("matchers", () => {
  const cases: [matcher: string, names: string[], matches: boolean][] = [
    ["", ["Bash", "bash"], true],
    ["*", ["Write", "write_file"], true],
    ["Bash", ["Bash", "bash"], true],
    ["bash", ["Bash", "bash"], true],
    ["Write|Edit", ["Edit", "edit_file"], true],
    ["Write|Edit", ["MultiEdit", "multi_edit"], false],
    ["Edit", ["MultiEdit", "multi_edit"], false],
    ["write_file", ["Write", "write_file"], true],
    ["Notebook.*", ["NotebookEdit"], true],
    [".*Edit", ["MultiEdit", "multi_edit"], true],
    ["mcp__github__.*", ["mcp__github__create_issue"], true],
    ["mcp__github", ["mcp__github__create_issue"], false],
    ["mcp__.*__write.*", ["mcp__fs__write_file"], true],
    ["Bas", ["Bash", "bash"], false],
    ["(unclosed", ["(unclosed"], false],
    ["startup", ["startup"], true],
    ["startup|resume", ["compact"], false],
  ];
  test.each(cases)("%p against %p: %p", (matcher, names, matches) => {
    expect(hookMatches(matcher, names)).toBe(matches);
  });
});

describe("one hook run, read by Claude Code's rules", () => {
  const ran = (exit: number | null, stdout = "", stderr = "", timedOut = false) => ({ exit, stdout, stderr, durationMs: 1, timedOut });
  const cases: [event: Parameters<typeof readHookRun>[0], run: ReturnType<typeof ran>, verdict: ReturnType<typeof readHookRun>][] = [
    ["PreToolUse", ran(0), {}],
    ["PreToolUse", ran(2, "", "nope\n"), { block: "nope" }],
    ["PreToolUse", ran(2, '{"decision":"approve"}', ""), { block: "the PreToolUse hook `x` blocked this (exit 2) without saying why" }],
    ["PreToolUse", ran(1, "", "boom\nmore"), { notice: "PreToolUse hook `x` failed (exit 1): boom" }],
    ["PreToolUse", ran(null, "", "", true), { notice: "PreToolUse hook `x` was killed at its timeout; shiro went on without it" }],
    ["PreToolUse", ran(0, "checked\n"), { logged: "checked" }],
    [
      "PreToolUse",
      ran(0, '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"look"}}'),
      { permission: "ask", permissionReason: "look" },
    ],
    ["PreToolUse", ran(0, '{"decision":"block","reason":"old style"}'), { permission: "deny", permissionReason: "old style" }],
    ["PreToolUse", ran(0, '{"decision":"approve"}'), { permission: "allow" }],
    ["PreToolUse", ran(0, '{"hookSpecificOutput":{"updatedInput":{"command":"ls"}}}'), { updatedInput: { command: "ls" } }],
    ["PreToolUse", ran(0, '{"hookSpecificOutput":{"updatedInput":["ls"]}}'), {}],
    ["PreToolUse", ran(0, '{"continue":false,"stopReason":"enough"}'), { stop: "enough" }],
    ["PreToolUse", ran(0, '{"continue":false}'), { stop: "a PreToolUse hook stopped the turn" }],
    ["PreToolUse", ran(0, '{"systemMessage":"careful"}'), { notice: "careful" }],
    ["PostToolUse", ran(0, '{"decision":"block","reason":"fix lint"}'), { block: "fix lint" }],
    ["PostToolUse", ran(0, '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"3 warnings"}}'), { context: "3 warnings" }],
    ["PostToolUse", ran(0, '{"suppressOutput":true}'), {}],
    ["PostToolUse", ran(0, "not json {"), { logged: "not json {" }],
    ["UserPromptSubmit", ran(0, "ticket 7\n"), { context: "ticket 7" }],
    ["UserPromptSubmit", ran(0, '{"decision":"block","reason":"no"}'), { block: "no" }],
    ["SessionStart", ran(0, "on branch main"), { context: "on branch main" }],
    ["SessionStart", ran(0, '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}'), { context: "ctx" }],
    ["Stop", ran(0, '{"decision":"block","reason":"keep going"}'), { block: "keep going" }],
    ["Stop", ran(0, '{"decision":"block"}'), { block: "a Stop hook blocked this without saying why" }],
    ["Notification", ran(0, "shown\n"), { logged: "shown" }],
    ["Notification", ran(2, "", "cannot notify\n"), { notice: "Notification hook `x`: cannot notify" }],
    ["SessionStart", ran(0, '{"decision":"block","reason":"no"}'), {}],
    ["PreCompact", ran(2, "", ""), { notice: "PreCompact hook `x`: exit 2" }],
  ];
  test.each(cases)("%s %p", (event, run, verdict) => {
    expect(readHookRun(event, run, "x")).toEqual(verdict);
  });
});

describe("a Claude Code settings file's hooks, read leniently", () => {
  test("events shiro does not raise and hooks that are not commands are skipped with why", () => {
    const read = hookEntriesFromSettings(
      {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "a.sh", timeout: 5 },
              { type: "prompt", prompt: "is it safe?" },
            ],
          },
        ],
        PermissionRequest: [{ hooks: [{ type: "command", command: "b.sh" }] }],
        Stop: [{ hooks: [{ type: "command", command: "" }] }, "nonsense"],
      },
      "/p/.claude/settings.json",
    );
    expect(read.entries).toEqual([{ event: "PreToolUse", matcher: "Bash", command: "a.sh", timeoutSec: 5, source: "/p/.claude/settings.json" }]);
    expect(read.skipped).toEqual([
      'PreToolUse[0]: a "prompt" hook (shiro runs command hooks only)',
      "PermissionRequest: shiro does not raise this event",
      "Stop[0]: a command hook without a command",
      "Stop[1]: not {matcher?: string, hooks: [...]}",
    ]);
  });
});

/** A made-up tool: everything hooks do with it follows from its declaration. */
const frobTool: ToolDefinition<{ target: string; force?: boolean }> = {
  name: "frob",
  description: "frob a thing",
  schema: v.object({ target: v.string(), force: v.optional(v.boolean()) }),
  effect: "exec",
  decision: "ask",
  claudeCode: {
    name: "Frobnicate",
    input: (args, root) => ({ target_path: join(root, args.target), force: args.force === true }),
    args: (input) => ({ ...(typeof input.target_path === "string" ? { target: input.target_path } : {}) }),
    response: (output) => ({ frobbed: output }),
  },
  execute: async () => "frobbed",
};

function hooksOf(entries: Omit<HookEntry, "source" | "timeoutSec">[], outside: AgentEvent[] = []) {
  return createSessionHooks({
    entries: entries.map((entry) => ({ ...entry, source: "test", timeoutSec: 10 })),
    sessionId: "s-1",
    transcriptPath: "/t/s-1.json",
    cwd: dir,
    projectRoot: dir,
    permissionMode: "default",
    outside,
  });
}

describe("a made-up tool's claudeCode declaration", () => {
  test("its Claude Code name selects the hook; the hook reads Claude Code's fields with shiro's beside them; updatedInput maps back", async () => {
    const hooks = hooksOf([
      {
        event: "PreToolUse",
        matcher: "Frobnicate",
        command: `cat > "${dir}/pre.json"; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"target_path":"other"}}}'`,
      },
      { event: "PreToolUse", matcher: "Write", command: "exit 2" },
      { event: "PostToolUse", matcher: "frob", command: `cat > "${dir}/post.json"; echo '{"hookSpecificOutput":{"additionalContext":"noted"}}'` },
    ]);
    const call = { id: "c1", tool: frobTool, input: { target: "a.txt" } };
    const pre = await hooks.preToolUse(call, dir);
    expect({ ...pre, events: pre.events.map((event) => event.type === "hook" && [event.command.slice(0, 3), event.decision]) }).toEqual({
      events: [["cat", "allow"]],
      input: { target: "other" },
      permission: "allow",
    });
    expect(JSON.parse(readFileSync(join(dir, "pre.json"), "utf8"))).toEqual({
      session_id: "s-1",
      transcript_path: "/t/s-1.json",
      cwd: dir,
      permission_mode: "default",
      hook_event_name: "PreToolUse",
      tool_name: "Frobnicate",
      tool_input: { target_path: join(dir, "a.txt"), force: false },
      tool_use_id: "c1",
      shiro_tool_name: "frob",
      shiro_tool_input: { target: "a.txt" },
    });
    const post = await hooks.postToolUse(call, "frobbed", dir);
    expect(post.feedback).toBe("PostToolUse hook: noted");
    expect(JSON.parse(readFileSync(join(dir, "post.json"), "utf8")).tool_response).toEqual({ frobbed: "frobbed" });
  });

  test("edit_file: an updatedInput in Claude Code's fields becomes edit_file's own arguments", async () => {
    const hooks = hooksOf([
      { event: "PreToolUse", matcher: "Edit", command: `echo '{"hookSpecificOutput":{"updatedInput":{"new_string":"NEW","replace_all":true}}}'` },
    ]);
    const pre = await hooks.preToolUse({ id: "c2", tool: editFileTool, input: { path: "a.ts", oldString: "old", newString: "new" } }, dir);
    expect(pre.input).toEqual({ path: join(dir, "a.ts"), oldString: "old", newString: "NEW", replaceAll: true });
  });

  test("several hooks: any deny refuses, else any ask asks; reasons join in order; identical commands run once", async () => {
    const ask = `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`;
    const allow = `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`;
    const call = { id: "c3", tool: frobTool, input: { target: "x" } };
    const asked = await hooksOf([
      { event: "PreToolUse", matcher: "", command: allow },
      { event: "PreToolUse", matcher: "frob", command: ask },
      { event: "PreToolUse", matcher: "*", command: ask },
    ]).preToolUse(call, dir);
    expect([asked.permission, asked.events.length]).toEqual(["ask", 2]);
    const refused = await hooksOf([
      { event: "PreToolUse", matcher: "", command: allow },
      { event: "PreToolUse", matcher: "", command: "echo one >&2; exit 2" },
      { event: "PreToolUse", matcher: "", command: `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"two"}}'` },
    ]).preToolUse(call, dir);
    expect(refused.refused).toBe("Refused by a PreToolUse hook: one\ntwo");
  });

  test("the hooks of one event run in parallel: two that each wait for the other's file both finish", async () => {
    const waitFor = (mine: string, theirs: string) =>
      `touch "${dir}/${mine}"; for i in $(seq 100); do [ -f "${dir}/${theirs}" ] && exit 0; sleep 0.05; done; echo "never saw ${theirs}" >&2; exit 1`;
    const outside: AgentEvent[] = [];
    await hooksOf(
      [
        { event: "Notification", matcher: "", command: waitFor("a.flag", "b.flag") },
        { event: "Notification", matcher: "", command: waitFor("b.flag", "a.flag") },
      ],
      outside,
    ).notification("hello", "permission_prompt");
    expect(outside.map((event) => event.type === "hook" && event.exit)).toEqual([0, 0]);
  });

  test("hooks outside a turn put their events where the run driver takes them", async () => {
    const outside: AgentEvent[] = [];
    const hooks = hooksOf(
      [
        { event: "SessionStart", matcher: "compact", command: "echo after compaction" },
        { event: "PreCompact", matcher: "manual", command: `cat > "${dir}/compact.json"` },
      ],
      outside,
    );
    await hooks.sessionStart("startup");
    expect(hooks.contextSection()).toBe("");
    await hooks.preCompact("manual", "keep the API notes");
    await hooks.sessionStart("compact");
    expect(hooks.contextSection()).toBe("# Context from hooks\n\nafter compaction");
    expect(JSON.parse(readFileSync(join(dir, "compact.json"), "utf8"))).toMatchObject({
      hook_event_name: "PreCompact",
      trigger: "manual",
      custom_instructions: "keep the API notes",
    });
    expect(outside.map((event) => event.type === "hook" && event.event)).toEqual(["PreCompact", "SessionStart"]);
  });
});

describe("a hook's permission decision at the gate", () => {
  const tools = [frobTool];
  const gate = (permission: Record<string, unknown>, yolo: boolean, asked: string[]) =>
    createGate({
      rules: parsePermissionRules(permission, defaultPermission(tools)),
      plugins: createDisabledPluginHost(),
      yolo,
      decide: async (request) => {
        asked.push(request.tool);
        return "deny";
      },
    });
  const check = (g: ReturnType<typeof gate>, hook?: "allow" | "ask") =>
    g.check({ callId: "c", tool: frobTool, name: "frob", input: { target: "x" }, cwd: dir, ...(hook ? { hook } : {}) });

  test("allow answers the question a rule would ask, never a deny rule", async () => {
    const asked: string[] = [];
    expect((await check(gate({}, false, asked), "allow")).allowed).toBe(true);
    expect(await check(gate({ frob: "deny" }, false, asked), "allow")).toMatchObject({ allowed: false, by: "rule" });
    expect(asked).toEqual([]);
  });

  test('ask is asked again after an "always" answer', async () => {
    let questions = 0;
    const g = createGate({
      rules: parsePermissionRules({}, defaultPermission(tools)),
      plugins: createDisabledPluginHost(),
      yolo: false,
      decide: async () => {
        questions += 1;
        return "always";
      },
    });
    await check(g);
    await check(g);
    expect(questions).toBe(1);
    expect((await check(g, "ask")).allowed).toBe(true);
    expect(questions).toBe(2);
  });

  test("ask asks where a rule allows, and under --yolo", async () => {
    const asked: string[] = [];
    expect((await check(gate({ frob: "allow" }, false, asked), "ask")).allowed).toBe(false);
    expect((await check(gate({}, true, asked), "ask")).allowed).toBe(false);
    expect((await check(gate({}, true, asked))).allowed).toBe(true);
    expect(asked).toEqual(["frob", "frob"]);
  });
});
