/**
 * `shiro acp` end to end: the compiled binary as a separate process, driven over a real stdio
 * pipe by the ACP library's client side (test/e2e/_acp-client.ts), every message it sends
 * validated against the vendored protocol schema, and what reached the model read from the fake
 * provider's received bodies.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { fakeEnv, toolResultsOf, userTextsOf, useE2E, type WireProtocol } from "./_harness.ts";
import { initialize, startAcpClient, type AcpClientOptions, type AcpTestClient } from "./_acp-client.ts";

const e2e = useE2E();
let open: AcpTestClient | undefined;

function start(protocol: WireProtocol = "chat", options: Partial<AcpClientOptions> = {}): AcpTestClient {
  open = startAcpClient({ cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, protocol), args: ["--no-sandbox"], ...options });
  return open;
}

afterEach(async () => {
  if (!open) return;
  const client = open;
  open = undefined;
  const code = await client.close();
  expect(client.invalid).toEqual([]);
  expect(code).toBe(0);
});

const newSession = (client: AcpTestClient, mcpServers: acp.McpServer[] = []) =>
  client.agent.request(acp.methods.agent.session.new, { cwd: e2e.dirs.cwd, mcpServers });
const prompt = (client: AcpTestClient, sessionId: string, text: string) =>
  client.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
const ofKind = <K extends acp.SessionUpdate["sessionUpdate"]>(client: AcpTestClient, kind: K) =>
  client.updates.filter((update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind);

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
    e2e.fake.script({ text: ["Let me ", "look."], toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] }, { text: ["It says ", "alpha."] });
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
  }, 60_000);
}
