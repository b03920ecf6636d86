/**
 * `shiro acp` end to end: the compiled binary as a separate process, driven over a real stdio
 * pipe by the ACP library's client side (test/e2e/_acp-client.ts), every message it sends
 * validated against the vendored protocol schema, and what reached the model read from the fake
 * provider's received bodies.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { fakeEnv, toolResultsOf, userTextsOf, useE2E, type WireProtocol } from "./_harness.ts";
import { agentMessageProblems, initialize, startAcpClient, type AcpClientOptions, type AcpTestClient } from "./_acp-client.ts";

let open: AcpTestClient | undefined;
// Declared before useE2E's: bun runs afterEach hooks in the order they are declared, and the agent
// must have saved and exited before the harness removes its home (else its last save recreates it).
afterEach(async () => {
  if (!open) return;
  const client = open;
  open = undefined;
  const code = await client.close();
  expect(client.invalid).toEqual([]);
  expect(code).toBe(0);
});

const e2e = useE2E();

function start(protocol: WireProtocol = "chat", options: Partial<AcpClientOptions> = {}): AcpTestClient {
  open = startAcpClient({ cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, protocol), args: ["--no-sandbox"], ...options });
  return open;
}

const newSession = (client: AcpTestClient, mcpServers: acp.McpServer[] = []) =>
  client.agent.request(acp.methods.agent.session.new, { cwd: e2e.dirs.cwd, mcpServers });
const prompt = (client: AcpTestClient, sessionId: string, text: string) =>
  client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
const ofKind = <K extends acp.SessionUpdate["sessionUpdate"]>(client: AcpTestClient, kind: K) =>
  client.updates.filter((update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind);

test("the schema check refuses what an agent must not send", () => {
  const update = (update: unknown) => ({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
  const table: [Record<string, any>, string | undefined][] = [
    [update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } }), undefined],
    [update({ sessionUpdate: "agent_message_chunk", content: { type: "txt", text: "hi" } }), "SessionNotification"],
    [update({ sessionUpdate: "tool_call", toolCallId: "1", title: "t", kind: "write" }), "SessionNotification"],
    [update({ sessionUpdate: "tool_call_update", toolCallId: "1", status: "done" }), "SessionNotification"],
    [update({ sessionUpdate: "plan", entries: [{ content: "x", status: "done", priority: "medium" }] }), "SessionNotification"],
    [{ jsonrpc: "2.0", id: 1, result: { stopReason: "finished" } }, "PromptResponse"],
    [{ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }, undefined],
    [{ jsonrpc: "2.0", method: "session/prompt", id: 3, params: {} }, "unexpected request"],
    [{ id: 1, result: {} }, "not an Agent message"],
  ];
  for (const [message, problem] of table) {
    const found = agentMessageProblems(message, "session/prompt").join("; ");
    if (problem === undefined) expect(found).toBe("");
    else expect(found).toContain(problem);
  }
});

test("initialize advertises what is real: protocol v1, loadSession, images and embedded context, MCP over HTTP and SSE", async () => {
  const client = start();
  const answer = await initialize(client);
  expect(answer).toEqual({
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    },
    agentInfo: { name: "shiro-neko", title: "shiro", version: expect.any(String) },
    authMethods: [],
  });
});

for (const protocol of ["chat", "responses", "anthropic"] as const) {
  test(`a turn streams text, a completed tool call with kind, title, locations and raw input, and ends with end_turn (${protocol})`, async () => {
    writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "alpha\nbeta\n");
    e2e.fake.script(
      { reasoning: "check the notes", text: ["Let me ", "look."], toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
      { text: ["It says ", "alpha."] },
    );
    const client = start(protocol);
    await initialize(client);
    const session = await newSession(client);
    expect(session.modes).toEqual({
      currentModeId: "default",
      availableModes: ["default", "quick", "deep", "plan", "review"].map((id) => ({ id, name: id, description: expect.any(String) })),
    });
    const answer = await prompt(client, session.sessionId, "what do the notes say?");
    expect(answer).toEqual({ stopReason: "end_turn" });
    const chunks = ofKind(client, "agent_message_chunk").map((update) => (update.content as acp.TextContent).text);
    expect(chunks.join("")).toBe("Let me look.It says alpha.");
    const thoughts = ofKind(client, "agent_thought_chunk").map((update) => (update.content as acp.TextContent).text);
    expect(thoughts.join("")).toBe("check the notes");
    const call = ofKind(client, "tool_call");
    expect(call).toEqual([
      {
        sessionUpdate: "tool_call",
        toolCallId: expect.any(String),
        title: "read_file: notes.txt",
        kind: "read",
        status: "pending",
        locations: [{ path: join(e2e.dirs.cwd, "notes.txt") }],
        rawInput: { path: "notes.txt" },
      },
    ]);
    const done = ofKind(client, "tool_call_update").at(-1)!;
    expect(done).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: call[0]!.toolCallId,
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "1: alpha\n2: beta" } }],
      rawOutput: { output: "1: alpha\n2: beta" },
    });
    expect(toolResultsOf(e2e.fake.requests[1]!).map((result) => result.output)).toEqual(["1: alpha\n2: beta"]);
    expect(userTextsOf(e2e.fake.requests[0]!)).toContain("what do the notes say?");
    // The slash and custom commands follow the session's answer.
    const commands = ofKind(client, "available_commands_update")[0]!;
    expect(commands.availableCommands.map((command) => command.name)).toContain("help");
    expect(ofKind(client, "session_info_update")).toEqual([
      { sessionUpdate: "session_info_update", title: "what do the notes say?", updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    // The context in use against the compaction threshold closes the turn.
    const usage = ofKind(client, "usage_update");
    expect(usage).toHaveLength(1);
    expect(usage[0]!.used).toBeGreaterThan(0);
    expect(usage[0]!.size).toBeGreaterThan(usage[0]!.used);
  }, 60_000);
}

test("a write asks permission: allowed once, then allow-always is not asked again, then rejections the model reads", async () => {
  const answers: acp.PermissionOptionKind[] = ["allow_once", "allow_always", "reject_once", "reject_always"];
  const client = start("chat", { permission: () => answers.shift()! });
  const call = (name: string, input: unknown) => ({ toolCalls: [{ name, input }] });
  e2e.fake.script(
    call("write_file", { path: "a.txt", content: "one\n" }),
    { text: "wrote a" },
    call("write_file", { path: "b.txt", content: "two\n" }),
    call("write_file", { path: "c.txt", content: "three\n" }),
    { text: "wrote b and c" },
    call("edit_file", { path: "a.txt", oldString: "one", newString: "uno" }),
    { text: "not edited" },
    call("edit_file", { path: "a.txt", oldString: "one", newString: "eins" }),
    call("edit_file", { path: "a.txt", oldString: "one", newString: "un" }),
    { text: "still not edited" },
  );
  await initialize(client);
  const { sessionId } = await newSession(client);
  for (const text of ["write a", "write b and c", "edit a", "edit a twice"]) expect(await prompt(client, sessionId, text)).toEqual({ stopReason: "end_turn" });

  // write a, write b (always), edit a (reject once), edit a (reject always); c.txt and the last edit were not asked.
  expect(client.permissions.map((asked) => asked.toolCall.title)).toEqual(["write_file: a.txt", "write_file: b.txt", "edit_file: a.txt", "edit_file: a.txt"]);
  expect(client.permissions[0]!.options.map((option) => option.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
  expect(client.permissions[0]!.toolCall).toMatchObject({
    kind: "edit",
    rawInput: { path: "a.txt", content: "one\n" },
    locations: [{ path: join(e2e.dirs.cwd, "a.txt") }],
    // What the REPL shows under its question: the change as it would land.
    content: [{ type: "content", content: { type: "text", text: "a.txt +1 -0\n    1 + one" } }],
  });
  expect(readFileSync(join(e2e.dirs.cwd, "a.txt"), "utf8")).toBe("one\n");
  expect(readFileSync(join(e2e.dirs.cwd, "c.txt"), "utf8")).toBe("three\n");
  const denied = [6, 8, 9].map((index) => toolResultsOf(e2e.fake.requests[index]!).at(-1)!.output);
  // The chat wire marks an error result with `Error: `.
  expect(denied).toEqual(["Error: User denied this tool call.", "Error: User denied this tool call.", "Error: User denied this tool call."]);
  // Every edit that landed carries its diff.
  const diffs = ofKind(client, "tool_call_update").flatMap((update) => (update.content ?? []).filter((content) => content.type === "diff"));
  expect(diffs).toEqual([
    { type: "diff", path: join(e2e.dirs.cwd, "a.txt"), oldText: null, newText: "one\n" },
    { type: "diff", path: join(e2e.dirs.cwd, "b.txt"), oldText: null, newText: "two\n" },
    { type: "diff", path: join(e2e.dirs.cwd, "c.txt"), oldText: null, newText: "three\n" },
  ]);
  expect(ofKind(client, "tool_call_update").filter((update) => update.status === "failed")).toHaveLength(3);
}, 60_000);

test("session/cancel during a long tool call kills its process tree, answers cancelled, and the turn is marked interrupted", async () => {
  const pidFile = join(e2e.dirs.cwd, "sleeper.pid");
  e2e.fake.script(
    { reasoning: "run it", toolCalls: [{ name: "bash", input: { command: "echo started; sleep 120 & echo $! > sleeper.pid; wait" } }] },
    { text: "Understood, stopped." },
  );
  const client = start("anthropic", { permission: () => "allow_once" });
  await initialize(client);
  const { sessionId } = await newSession(client);
  const running = prompt(client, sessionId, "run the long thing");
  const deadline = Date.now() + 20_000;
  while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") {
    if (Date.now() > deadline) throw new Error("the command never started");
    await Bun.sleep(50);
  }
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  await client.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  expect(await running).toEqual({ stopReason: "cancelled" });
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let i = 0; i < 100 && alive(); i++) await Bun.sleep(50);
  expect(alive()).toBe(false);
  const failed = ofKind(client, "tool_call_update").at(-1)!;
  expect(failed.status).toBe("failed");

  expect(await prompt(client, sessionId, "never mind")).toEqual({ stopReason: "end_turn" });
  const next = e2e.fake.requests.at(-1)!;
  expect(toolResultsOf(next)[0]!.output).toStartWith("The user interrupted this command.");
  expect(userTextsOf(next)).toEqual(["run the long thing", "[the user interrupted this request]", "never mind"]);
}, 60_000);

test("session/load replays a saved session as updates, continues it, and shiro -c continues it in the terminal", async () => {
  writeFileSync(join(e2e.dirs.cwd, "notes.txt"), "alpha\n");
  e2e.fake.script({ text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] }, { text: "It says alpha." });
  const first = start();
  await initialize(first);
  const { sessionId } = await newSession(first);
  await prompt(first, sessionId, "what do the notes say?");
  expect(first.invalid).toEqual([]);
  expect(await first.close()).toBe(0);
  open = undefined;
  // The turn was a run like any other, and closing the session recorded an episode of it.
  const runs = JSON.parse((await e2e.shiro(["runs", "list", "--json"])).stdout);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ sessionId, status: "completed", prompt: "what do the notes say?" });
  const log = readFileSync(join(e2e.dirs.home, ".shiro-neko", "events", `${runs[0].id}.jsonl`), "utf8");
  expect(JSON.parse(log.trim().split("\n").at(-1)!)).toMatchObject({ type: "done", stop: "completed", sessionId });
  const memory = join(e2e.dirs.home, ".shiro-neko", "memory");
  const episodes = readdirSync(memory).filter((name) => name.endsWith(".episodes.jsonl"));
  expect(episodes).toHaveLength(1);
  expect(readFileSync(join(memory, episodes[0]!), "utf8")).toContain(sessionId);

  const second = start();
  await initialize(second);
  const loaded = await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: e2e.dirs.cwd, mcpServers: [] });
  expect(loaded.modes?.currentModeId).toBe("default");
  const replayed = second.updates.filter((update) => update.sessionUpdate !== "available_commands_update");
  expect(replayed).toEqual([
    { sessionUpdate: "user_message_chunk", content: { type: "text", text: "what do the notes say?" } },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Reading." } },
    {
      sessionUpdate: "tool_call",
      toolCallId: expect.any(String),
      title: "read_file: notes.txt",
      kind: "read",
      status: "pending",
      locations: [{ path: join(e2e.dirs.cwd, "notes.txt") }],
      rawInput: { path: "notes.txt" },
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: expect.any(String),
      status: "completed",
      content: [{ type: "content", content: { type: "text", text: "1: alpha" } }],
    },
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "It says alpha." } },
  ]);
  e2e.fake.script({ text: "Still alpha." }, { text: "Yes." });
  expect(await prompt(second, sessionId, "and now?")).toEqual({ stopReason: "end_turn" });
  expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["what do the notes say?", "and now?"]);
  // Loading it again in the same connection reopens it with everything the open one had.
  await second.agent.request(acp.methods.agent.session.load, { sessionId, cwd: e2e.dirs.cwd, mcpServers: [] });
  expect(await prompt(second, sessionId, "still?")).toEqual({ stopReason: "end_turn" });
  expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["what do the notes say?", "and now?", "still?"]);
  expect(await second.close()).toBe(0);
  expect(second.invalid).toEqual([]);

  e2e.fake.script({ text: "From the terminal." });
  const terminal = await e2e.shiro(["-c", "-p", "one more"]);
  expect(terminal.code).toBe(0);
  expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["what do the notes say?", "and now?", "still?", "one more"]);
}, 60_000);

test("with fs delegation the model reads the editor's buffer and edits land in the editor, still through the jail and the secrets gate", async () => {
  const path = join(e2e.dirs.cwd, "notes.txt");
  writeFileSync(path, "disk text\n");
  writeFileSync(join(e2e.dirs.cwd, ".env"), "API_KEY=sk-disk\n");
  const buffers = new Map([
    [path, "unsaved buffer text\n"],
    [join(e2e.dirs.cwd, ".env"), "API_KEY=sk-buffer\n"],
  ]);
  e2e.fake.script(
    { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
    { toolCalls: [{ name: "read_file", input: { path: "../outside.txt" } }] },
    { toolCalls: [{ name: "read_file", input: { path: ".env" } }] },
    { toolCalls: [{ name: "edit_file", input: { path: "notes.txt", oldString: "unsaved", newString: "edited" } }] },
    { text: "Done." },
  );
  const client = start("responses", { buffers, permission: (asked) => (asked.toolCall.title?.includes(".env") ? "reject_once" : "allow_once") });
  await initialize(client, { fs: { readTextFile: true, writeTextFile: true } });
  const { sessionId } = await newSession(client);
  expect(await prompt(client, sessionId, "edit the notes")).toEqual({ stopReason: "end_turn" });
  const results = toolResultsOf(e2e.fake.requests.at(-1)!).map((result) => result.output);
  expect(results[0]).toBe("1: unsaved buffer text");
  expect(results[1]).toContain("Path escapes workspace: ../outside.txt");
  expect(results[2]).toContain("User denied this tool call.");
  expect(results.join("\n")).not.toContain("sk-");
  // The editor was asked for what passed the jail and the gate: the notes, read, then read for the edit and its diff.
  expect(new Set(client.reads.map((read) => read.path))).toEqual(new Set([path]));
  expect(client.writes).toEqual([{ sessionId, path, content: "edited buffer text\n" }]);
  expect(buffers.get(path)).toBe("edited buffer text\n");
  expect(readFileSync(path, "utf8")).toBe("disk text\n");
  const diff = ofKind(client, "tool_call_update").flatMap((update) => (update.content ?? []).filter((content) => content.type === "diff"));
  expect(diff).toEqual([{ type: "diff", path, oldText: "unsaved buffer text\n", newText: "edited buffer text\n" }]);
}, 60_000);

describe("modes", () => {
  const toolNames = (index: number) => (e2e.fake.requests[index]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);

  test("a switch to plan stops offering write tools, and current_mode_update says so", async () => {
    e2e.fake.script({ text: "default answer" }, { text: "a plan" });
    const client = start();
    await initialize(client);
    const { sessionId } = await newSession(client);
    await prompt(client, sessionId, "first");
    expect(await client.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" })).toEqual({});
    await prompt(client, sessionId, "second");
    expect(toolNames(0)).toEqual(expect.arrayContaining(["write_file", "edit_file", "bash"]));
    expect(toolNames(0)).not.toContain("ask");
    for (const name of ["write_file", "edit_file", "bash", "delete_file", "move_file"]) expect(toolNames(1)).not.toContain(name);
    expect(toolNames(1)).toContain("read_file");
    expect(ofKind(client, "current_mode_update")).toEqual([{ sessionUpdate: "current_mode_update", currentModeId: "plan" }]);
    await expect(client.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" })).rejects.toThrow('unknown mode "yolo"');
  }, 60_000);

  test("the task list streams as a plan", async () => {
    const todos = [
      { content: "read the code", status: "done" },
      { content: "change it", status: "in_progress" },
      { content: "test it", status: "pending" },
    ];
    e2e.fake.script({ toolCalls: [{ name: "todo_write", input: { todos } }] }, { text: "planned" });
    const client = start();
    await initialize(client);
    const { sessionId } = await newSession(client);
    await prompt(client, sessionId, "plan it");
    expect(ofKind(client, "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "read the code", priority: "medium", status: "completed" },
          { content: "change it", priority: "medium", status: "in_progress" },
          { content: "test it", priority: "medium", status: "pending" },
        ],
      },
    ]);
    expect(ofKind(client, "tool_call")[0]!.kind).toBe("think");
  }, 60_000);
});

test("the step cap ends the turn with max_turn_requests", async () => {
  e2e.writeConfig({ maxSteps: 2 });
  writeFileSync(join(e2e.dirs.cwd, "loop.txt"), "again\n");
  e2e.fake.respond(() => ({ toolCalls: [{ name: "read_file", input: { path: "loop.txt" } }] }));
  const client = start();
  await initialize(client);
  const { sessionId } = await newSession(client);
  expect(await prompt(client, sessionId, "loop")).toEqual({ stopReason: "max_turn_requests" });
  expect(e2e.fake.requests).toHaveLength(2);
}, 60_000);

test("a prompt takes resource links as @file attachments, embedded resources as the editor's copy, and images as image parts", async () => {
  writeFileSync(join(e2e.dirs.cwd, "linked.ts"), "export const a = 1;\n");
  const png = Buffer.from(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082",
    "hex",
  );
  e2e.fake.script({ text: "Seen." });
  const client = start("anthropic", { args: ["--no-sandbox", "--model", "claude-sonnet-4-5"] });
  await initialize(client);
  const { sessionId } = await newSession(client);
  const answer = await client.agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [
      { type: "text", text: "compare these" },
      { type: "resource_link", uri: `file://${join(e2e.dirs.cwd, "linked.ts")}`, name: "linked.ts" },
      { type: "resource", resource: { uri: `file://${join(e2e.dirs.cwd, "open.ts")}`, text: "let b = 2;\nlet c = 3;\n", mimeType: "text/typescript" } },
      { type: "image", mimeType: "image/png", data: png.toString("base64") },
    ],
  });
  expect(answer).toEqual({ stopReason: "end_turn" });
  const body = e2e.fake.requests[0]!.body;
  const user = body.messages.at(-1);
  const texts = (user.content as any[])
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
  expect(texts).toContain("compare these\n@linked.ts\n[image: pasted image]");
  expect(texts).toContain('<attached path="linked.ts">\n1: export const a = 1;\n</attached>');
  expect(texts).toContain('<attached path="open.ts">\n1: let b = 2;\n2: let c = 3;\n</attached>');
  const images = (user.content as any[]).filter((part) => part.type === "image");
  expect(images).toEqual([{ type: "image", source: { type: "base64", media_type: "image/png", data: png.toString("base64") } }]);
  // A priced model: the session's cost so far, as the session record keeps it.
  await client.close();
  open = undefined;
  expect(client.invalid).toEqual([]);
  const saved = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "sessions", `${sessionId}.json`), "utf8"));
  expect(saved.costUsd).toBeGreaterThan(0);
  expect(ofKind(client, "usage_update").at(-1)!.cost).toEqual({ amount: saved.costUsd, currency: "USD" });
}, 60_000);

test("a slash command runs as in the REPL and a custom command expands into a turn, narrowed to its allowed-tools", async () => {
  mkdirSync(join(e2e.dirs.cwd, ".shiro", "commands"), { recursive: true });
  writeFileSync(
    join(e2e.dirs.cwd, ".shiro", "commands", "greet.md"),
    "---\ndescription: say hello\nallowed-tools: Read, Grep\n---\nSay hello to $ARGUMENTS.\n",
  );
  e2e.fake.script({ text: "Hello, Ada." });
  const client = start();
  await initialize(client);
  const { sessionId } = await newSession(client);
  expect(await prompt(client, sessionId, "/help")).toEqual({ stopReason: "end_turn" });
  const help = ofKind(client, "agent_message_chunk")
    .map((update) => (update.content as acp.TextContent).text)
    .join("");
  expect(help).toContain("/help");
  expect(help).toContain("/greet");
  expect(e2e.fake.requests).toHaveLength(0);
  const before = ofKind(client, "agent_message_chunk").length;
  expect(await prompt(client, sessionId, "/clear")).toEqual({ stopReason: "end_turn" });
  expect(ofKind(client, "agent_message_chunk").slice(before)).toEqual([
    {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "/clear works in the terminal REPL (shiro) only; in an editor, use its own session and agent controls.\n" },
    },
  ]);
  expect(await prompt(client, sessionId, "/greet Ada")).toEqual({ stopReason: "end_turn" });
  expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["Say hello to Ada."]);
  const offered = (e2e.fake.requests[0]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
  expect([offered.includes("read_file"), offered.includes("grep"), offered.includes("bash"), offered.includes("write_file")]).toEqual([
    true,
    true,
    false,
    false,
  ]);
  const commands = ofKind(client, "available_commands_update")[0]!.availableCommands;
  expect(commands.find((command) => command.name === "greet")).toEqual({ name: "greet", description: "say hello" });
}, 60_000);

test("the editor's MCP servers join the configured ones and their tools are offered", async () => {
  const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");
  const graph = join(e2e.dirs.home, "graph.jsonl");
  e2e.writeConfig({ mcpServers: { configured: { command: process.execPath, args: [server], env: { MEMORY_FILE_PATH: join(e2e.dirs.home, "other.jsonl") } } } });
  e2e.fake.script({ toolCalls: [{ name: "mcp__editor-memory__read_graph", input: {} }] }, { text: "Empty." });
  const client = start("chat", { permission: () => "allow_once" });
  await initialize(client);
  const { sessionId } = await newSession(client, [
    { name: "editor-memory", command: process.execPath, args: [server], env: [{ name: "MEMORY_FILE_PATH", value: graph }] },
  ]);
  expect(await prompt(client, sessionId, "what is in the graph?")).toEqual({ stopReason: "end_turn" });
  expect(client.permissions.map((asked) => asked.toolCall.title)).toEqual(["mcp__editor-memory__read_graph"]);
  expect(client.permissions[0]!.toolCall.kind).toBe("execute");
  expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain('"entities"');
  expect(client.stderr()).toContain("MCP editor-memory: connected");
  expect(client.stderr()).toContain("MCP configured: connected");
}, 60_000);

test("the command's flags set up every session: --agent picks the starting mode", async () => {
  const client = start("chat", { args: ["--no-sandbox", "--agent", "review"] });
  await initialize(client);
  const session = await newSession(client);
  expect(session.modes?.currentModeId).toBe("review");
});

test("SIGTERM from the editor saves the session before the process leaves", async () => {
  e2e.fake.script({ text: "Saved, I hope." });
  const client = start();
  await initialize(client);
  const { sessionId } = await newSession(client);
  await prompt(client, sessionId, "remember this exchange");
  client.child.kill("SIGTERM");
  expect(await client.close()).toBe(0);
  expect(client.invalid).toEqual([]);
  open = undefined;
  const listed = await e2e.shiro(["sessions", "show", sessionId]);
  expect(listed.stdout).toContain("remember this exchange");
  expect(listed.stdout).toContain("Saved, I hope.");
}, 60_000);

test("session/cancel while a permission question is open withdraws it: nothing runs, stop reason cancelled", async () => {
  e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "never.txt", content: "x" } }] });
  let asked: () => void = () => undefined;
  const question = new Promise<void>((resolve) => (asked = resolve));
  const client = start("chat", {
    permission: () => {
      asked();
      return new Promise<never>(() => undefined);
    },
  });
  await initialize(client);
  const { sessionId } = await newSession(client);
  const running = prompt(client, sessionId, "write it");
  await question;
  await client.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  expect(await running).toEqual({ stopReason: "cancelled" });
  expect(existsSync(join(e2e.dirs.cwd, "never.txt"))).toBe(false);
  expect(client.sent.some((message) => message.method === "$/cancel_request")).toBe(true);
}, 60_000);

test("a linked file that may hold secrets asks the editor before it is attached; a refusal keeps it off the wire", async () => {
  writeFileSync(join(e2e.dirs.cwd, ".env"), "API_KEY=sk-live-abc123\n");
  e2e.fake.script({ text: "Not seen." }, { text: "Seen." });
  const answers: acp.PermissionOptionKind[] = ["reject_once", "allow_once"];
  const client = start("chat", { permission: () => answers.shift()! });
  await initialize(client);
  const { sessionId } = await newSession(client);
  const link: acp.ContentBlock = { type: "resource_link", uri: `file://${join(e2e.dirs.cwd, ".env")}`, name: ".env" };
  for (const text of ["check this", "and again"])
    await client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }, link] });
  expect(client.permissions.map((asked) => asked.toolCall.title)).toEqual([
    "@.env may hold secrets (an env file); what is attached goes to the model provider.",
    "@.env may hold secrets (an env file); what is attached goes to the model provider.",
  ]);
  expect(client.permissions[0]!.options.map((option) => option.kind)).toEqual(["allow_once", "reject_once"]);
  expect(JSON.stringify(e2e.fake.requests[0]!.body)).not.toContain("sk-live-abc123");
  expect(userTextsOf(e2e.fake.requests[1]!).at(-1)).toContain("1: API_KEY=sk-live-abc123");
}, 60_000);

test("a turn the provider fails answers the prompt with a JSON-RPC error carrying shiro's message; the session goes on", async () => {
  e2e.fake.script({ error: { status: 400, message: "model fake-model does not exist" } }, { text: "Back." });
  const client = start();
  await initialize(client);
  const { sessionId } = await newSession(client);
  const failed = await prompt(client, sessionId, "hello").then(
    () => undefined,
    (error: acp.RequestError) => error,
  );
  expect(failed?.code).toBe(-32603);
  expect(failed?.message).toContain("model fake-model does not exist");
  expect(await prompt(client, sessionId, "again")).toEqual({ stopReason: "end_turn" });
}, 60_000);

test("with the terminal capability a command's live output shows in an editor terminal that only follows shiro's output file", async () => {
  e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo one; sleep 0.3; echo two" } }] }, { text: "Ran it." });
  const client = start("chat", { permission: () => "allow_once" });
  await initialize(client, { terminal: true });
  const { sessionId } = await newSession(client);
  expect(await prompt(client, sessionId, "run it")).toEqual({ stopReason: "end_turn" });
  expect([...client.terminals.keys()]).toEqual(["term-1"]);
  const terminal = client.terminals.get("term-1")!;
  expect(terminal.params).toEqual({
    sessionId,
    command: "tail",
    args: ["-n", "+1", "-f", expect.stringMatching(/shiro-acp-.*output-1\.txt$/)],
    cwd: e2e.dirs.cwd,
  });
  expect(terminal.output).toBe("one\ntwo\n");
  expect([terminal.killed, terminal.released]).toEqual([true, true]);
  expect(existsSync(terminal.params.args![3]!)).toBe(false);
  const updates = ofKind(client, "tool_call_update");
  expect(updates.filter((update) => update.status === "in_progress")).toEqual([
    { sessionUpdate: "tool_call_update", toolCallId: expect.any(String), status: "in_progress", content: [{ type: "terminal", terminalId: "term-1" }] },
  ]);
  expect(updates.at(-1)!.content![0]).toEqual({ type: "terminal", terminalId: "term-1" });
  expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain("one\ntwo");
}, 60_000);
