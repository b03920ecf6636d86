/**
 * Policy by declaration: a made-up shell tool (effect `exec`, a declared `command`) and a made-up
 * write tool (effect `write`, declared `paths`), known to nothing by name, get every treatment
 * their declarations ask for: the sandbox, the guard, shell rules and grants, `!cmd`, episodes,
 * note provenance and so staleness, the prompt's approval list, the schema deferral, and the
 * approval question's view (the write tool's declared preview as a diff, the shell tool's command).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { createGate, type GateCall } from "../../lib/extensions/gate.ts";
import type { ApprovalRequest } from "../../lib/approval/request.ts";
import { addDeclaredDefaults, parsePermissionRules } from "../../lib/approval/rules.ts";
import { fieldPaths } from "../../lib/approval/write-paths.ts";
import { createToolDeferral } from "../../lib/agent/context/tool-deferral.ts";
import { openSessionMemory } from "../../lib/agent/memory-session.ts";
import { collectToolCall, executeToolCall } from "../../lib/agent/tool-call.ts";
import { runUserCommand } from "../../lib/agent/user-command.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import type { Message } from "../../lib/messages.ts";
import { createCommandSandbox, type CommandSandbox } from "../../lib/sandbox/session.ts";
import { buildEpisode } from "../../lib/store/episode-build.ts";
import { staleNote } from "../../lib/store/memory-provenance.ts";
import type { LoggedEvent } from "../../lib/store/runs.ts";
import { describeToolCalls } from "../../lib/tools/call-facts.ts";
import type { ToolContext, ToolDefinition } from "../../lib/tools/types.ts";
import { renderApprovalQuestion } from "../../lib/ui/approval-view.ts";
import { createStyle } from "../../lib/ui/style.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-capabilities-");

/** What the made-up tools saw of their context, per call. */
const seen: { tool: string; sandbox: CommandSandbox | undefined; argv?: string[] }[] = [];

const scriptOf = (input: unknown) => {
  const script = input !== null && typeof input === "object" ? (input as { script?: unknown }).script : undefined;
  return typeof script === "string" ? script : undefined;
};

/** A shell tool nobody has heard of: it declares effect `exec` and where its command is. */
const runScript: ToolDefinition<{ script: string }> = {
  name: "run_script",
  description: "Runs a script.",
  schema: v.object({ script: v.string() }),
  effect: "exec",
  decision: "ask",
  command: scriptOf,
  commandInput: (script) => ({ script }),
  async execute(input, ctx: ToolContext) {
    const argv = ["sh", "-c", input.script];
    seen.push({ tool: "run_script", sandbox: ctx.sandbox, argv: ctx.sandbox?.confines("run_script", input.script) ? ctx.sandbox.wrap(argv, ctx.root) : argv });
    return "exit: 3\n\n(no output)";
  },
};

/** A write tool nobody has heard of: it declares effect `write`, the path it changes and what a question shows of a call. */
const stampFile: ToolDefinition<{ target: string }> = {
  name: "stamp_file",
  description: "Stamps a file.",
  schema: v.object({ target: v.string() }),
  effect: "write",
  paths: fieldPaths("target"),
  preview: (input) => {
    const target = (input as { target?: unknown } | null)?.target;
    return typeof target === "string" ? { kind: "content", path: target, content: "stamped\n" } : undefined;
  },
  async execute(input, ctx) {
    seen.push({ tool: "stamp_file", sandbox: ctx.sandbox });
    writeFileSync(join(ctx.root, input.target), "stamped\n");
    return "stamped";
  },
};

const BWRAP_STATUS = { mode: "workspace-write", network: false, runner: { kind: "bwrap", path: "/usr/bin/bwrap" }, source: "default", mcp: false } as const;

function workspace(): { root: string; remove(): void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "shiro-capabilities-ws-")));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

async function runCall(tool: ToolDefinition, input: unknown, root: string, sandbox: CommandSandbox) {
  const call = { type: "tool-call" as const, id: `c-${seen.length}`, name: tool.name, input };
  return collectToolCall(executeToolCall(call, tool, input, { root, signal: new AbortController().signal, sandbox, gate: {}, tools: () => [tool] }));
}

function gateOver(tools: ToolDefinition[], answers: ("once" | "always" | "deny")[], config: unknown = {}) {
  const asked: ApprovalRequest[] = [];
  const plugins = createPluginHost({ cwd: "/ws", writeStderr: () => {} });
  const rules = parsePermissionRules(config, {});
  addDeclaredDefaults(rules, tools);
  const gate = createGate({
    rules,
    plugins,
    yolo: false,
    decide: async (request) => {
      asked.push(request);
      return answers.shift() ?? "deny";
    },
  });
  let n = 0;
  const check = (tool: ToolDefinition, input: unknown) => gate.check({ callId: `g-${++n}`, tool, name: tool.name, input, cwd: "/ws" } satisfies GateCall);
  return { gate, asked, check };
}

describe("a made-up exec tool", () => {
  test("is handed the session's sandbox, which confines its command; the write tool is not", async () => {
    const ws = workspace();
    try {
      seen.length = 0;
      const sandbox = createCommandSandbox(BWRAP_STATUS);
      await runCall(runScript, { script: "touch /etc/x" }, ws.root, sandbox);
      await runCall(stampFile, { target: "a.txt" }, ws.root, sandbox);
      expect(seen.map((entry) => [entry.tool, entry.sandbox === sandbox])).toEqual([
        ["run_script", true],
        ["stamp_file", false],
      ]);
      // Confined: the argv it runs is bubblewrap's (behind the `sh` that loads the seccomp filter), around its own.
      expect(seen[0]!.argv!.slice(0, 6).includes("/usr/bin/bwrap")).toBe(true);
      expect(seen[0]!.argv!.slice(-3)).toEqual(["sh", "-c", "touch /etc/x"]);
    } finally {
      ws.remove();
    }
  });

  test("is judged by the guard, whatever its name", async () => {
    const { check, asked } = gateOver([runScript], []);
    const verdict = await check(runScript, { script: "rm -rf /" });
    expect(verdict).toMatchObject({ allowed: false, by: "plugin" });
    expect(asked).toEqual([]);
  });

  test("its rules match its simple commands, and an always grant never covers a chained command", async () => {
    const ruled = gateOver([runScript], [], { run_script: { "git status*": "allow", "git push*": "deny" } });
    expect(await ruled.check(runScript, { script: "env X=1 git status -s" })).toEqual({ allowed: true });
    expect(await ruled.check(runScript, { script: "true && git push origin main" })).toMatchObject({ allowed: false, by: "rule" });

    const granted = gateOver([runScript], ["always", "deny"]);
    expect(await granted.check(runScript, { script: "git log -5" })).toMatchObject({ allowed: true });
    expect(granted.asked.map((request) => [request.tool, request.subject, request.suggestedPattern])).toEqual([["run_script", "git log -5", "git *"]]);
    expect(await granted.check(runScript, { script: "git diff" })).toEqual({ allowed: true });
    expect(await granted.check(runScript, { script: "git diff; rm notes" })).toMatchObject({ allowed: false });
    expect(granted.asked.length).toBe(2);
  });

  test("is the shell `!cmd` runs through when no bash is registered", async () => {
    const ws = workspace();
    try {
      seen.length = 0;
      const { gate } = gateOver([runScript], ["once"]);
      const sandbox = createCommandSandbox(BWRAP_STATUS);
      const out = await runUserCommand("ls -la", {
        gate,
        tools: [stampFile, runScript],
        root: ws.root,
        sandbox,
        signal: new AbortController().signal,
        onOutput: () => {},
      });
      expect([out, seen.map((entry) => [entry.tool, entry.sandbox === sandbox, entry.argv?.at(-1)])]).toEqual([
        "exit: 3\n\n(no output)",
        [["run_script", true, "ls -la"]],
      ]);
    } finally {
      ws.remove();
    }
  });
});

describe("the approval question shows the made-up tools as declared", () => {
  test("the write tool's call as the diff it would make, the shell tool's as its command", async () => {
    const ws = workspace();
    try {
      writeFileSync(join(ws.root, "a.txt"), "plain\n");
      const { check, asked } = gateOver([runScript, stampFile], ["deny", "deny"]);
      await check(stampFile, { target: "a.txt" });
      await check(runScript, { script: "make test" });
      const shown = asked.map((request) => renderApprovalQuestion(request, ws.root, createStyle(false)).text.split("\n").slice(2, -1));
      expect(shown).toEqual([["a.txt +1 -1", "    1 - plain", "    1 + stamped"], ["$ make test"]]);
    } finally {
      ws.remove();
    }
  });
});

describe("what the made-up tools did is recorded as declared", () => {
  const at = "2026-11-01T10:00:00.000Z";
  let seq = 0;
  const ev = (event: Record<string, unknown>): LoggedEvent => ({ seq: ++seq, at, ...event }) as LoggedEvent;

  test("in the episode: the write tool's path changed, the exec tool's command with its exit", () => {
    const events = [
      ev({ type: "tool-call", id: "1", name: "stamp_file", input: { target: "src/a.txt" } }),
      ev({ type: "tool-result", id: "1", name: "stamp_file", output: "stamped" }),
      ev({ type: "tool-call", id: "2", name: "run_script", input: { script: "make test" } }),
      ev({ type: "tool-result", id: "2", name: "run_script", output: "exit: 3\n\n(no output)" }),
      ev({ type: "done", stop: "completed", steps: 2 }),
    ];
    const episode = buildEpisode({
      describe: describeToolCalls([runScript, stampFile], "/ws"),
      sessionId: "s",
      cwd: "/ws",
      projectRoot: "/ws",
      runs: [{ runId: "r", events, prompt: "stamp it" }],
    })!;
    expect([episode.filesRead, episode.filesChanged, episode.commands]).toEqual([[], ["src/a.txt"], [{ command: "make test", exit: 3 }]]);
  });

  test("in a note's provenance, so the note is marked stale once the file changes", async () => {
    const ws = workspace();
    try {
      writeFileSync(join(ws.root, "a.txt"), "before\n");
      const messages: Message[] = [
        { role: "user", content: "stamp a.txt and remember the format" },
        { role: "assistant", parts: [{ type: "tool-call", id: "1", name: "stamp_file", input: { target: "a.txt" } }] },
      ];
      const memory = openSessionMemory({
        projectRoot: ws.root,
        cwd: ws.root,
        agent: "build",
        sessionId: "s",
        runId: () => "r",
        messages: () => messages,
        toolFor: (name) => [runScript, stampFile].find((tool) => tool.name === name),
      });
      const remember = memory.tools.find((tool) => tool.name === "remember")!;
      await remember.execute(
        { kind: "fact", text: "the stamp format is version two" },
        { root: ws.root, signal: new AbortController().signal, callId: "m", emitOutput: () => {} },
      );
      const [entry] = memory.shelf.project.list();
      expect(entry!.source?.files?.map((file) => file.path)).toEqual(["a.txt"]);
      expect(staleNote(entry!, ws.root)).toBeUndefined();
      writeFileSync(join(ws.root, "a.txt"), "after\n");
      expect(staleNote(entry!, ws.root)).toBe("(possibly stale: a.txt changed since this note)");
    } finally {
      ws.remove();
    }
  });
});

describe("the schema deferral offers tools as they declare", () => {
  test("core and eager in full, budgeted while they fit, the rest behind load_tools", () => {
    const make = (name: string, extra: Partial<ToolDefinition>): ToolDefinition => ({ ...stampFile, name, ...extra });
    const tools = [
      make("core_made_up", { set: "core" }),
      make("eager_made_up", { deferral: "eager" }),
      make("budgeted_made_up", { deferral: "budgeted" }),
      make("plain_made_up", {}),
      { ...runScript, name: "shell_made_up" },
    ];
    const offered = createToolDeferral({ mcpBudget: 10_000 }).offer(tools);
    expect(offered.map((tool) => tool.name)).toEqual(["core_made_up", "eager_made_up", "budgeted_made_up", "load_tools"]);
    expect(
      createToolDeferral({ mcpBudget: 0 })
        .offer(tools)
        .map((tool) => tool.name),
    ).toEqual(["core_made_up", "eager_made_up", "load_tools"]);
  });
});

describe("a made-up read tool that declares pathInput", () => {
  /** A read tool nobody has heard of: its paths live in `target`, and it says how to read one path. */
  const peekFile: ToolDefinition<{ target: string }> = {
    name: "peek_file",
    description: "Peeks at a file.",
    schema: v.object({ target: v.string() }),
    effect: "read",
    decision: "allow",
    paths: fieldPaths("target"),
    pathInput: (path) => ({ target: path }),
    execute: async () => "",
  };

  test("an @path is judged as its call: its deny rules refuse, a rule naming a path allows a secret there, nothing asks", async () => {
    const { gate, asked } = gateOver([peekFile], [], { peek_file: { "*": "allow", "private/**": "deny", ".env": "allow", "a.txt": "ask" } });
    const judge = (path: string) => gate.judgeRead(peekFile, peekFile.pathInput!(path), "/ws");
    expect(await Promise.all(["private/plan.md", ".env", "a.txt", "b.txt"].map(judge))).toEqual([
      { denied: 'Refused by the permission rule peek_file: "private/**" = deny.', secretAllowed: false },
      { secretAllowed: true },
      { secretAllowed: false },
      { secretAllowed: false },
    ]);
    // An `ask` rule asks nothing: the user typed the @path (as `!cmd`, a byUser call).
    expect(asked).toEqual([]);
  });
});
