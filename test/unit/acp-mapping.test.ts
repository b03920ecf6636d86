/**
 * How shiro's declarations and answers map onto ACP, in-process: a made-up tool gets its kind,
 * title and locations from what it declares; the permission answers map onto the gate's answers
 * as the REPL's keys do; the task list, the stop kinds, the editor's MCP servers and the prompt
 * blocks an editor may send each become what the protocol (or the agent) expects.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalRequest } from "../../lib/approval/request.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import { createAcpDecision } from "../../lib/ui/acp/permission.ts";
import { promptFromBlocks } from "../../lib/ui/acp/prompt-blocks.ts";
import { mcpServersFrom } from "../../lib/ui/acp/server.ts";
import { diffsSince, snapshotFiles, toolKindOf, toolLocationsOf, toolTitleOf } from "../../lib/ui/acp/tool-calls.ts";
import { planUpdate, stopReasonOf } from "../../lib/ui/acp/turn-updates.ts";

const root = mkdtempSync(join(tmpdir(), "shiro-acp-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const madeUp = (declared: Partial<ToolDefinition>): ToolDefinition => ({
  name: "frobnicate",
  description: "a tool nobody ships",
  schema: v.object({ target: v.string() }),
  effect: "read",
  execute: async () => "",
  ...declared,
});

describe("a tool call's kind, title and locations come from its declaration", () => {
  const table: [Partial<ToolDefinition>, acp.ToolKind][] = [
    [{ effect: "read" }, "read"],
    [{ effect: "write" }, "edit"],
    [{ effect: "exec" }, "execute"],
    [{ effect: "net" }, "fetch"],
    [{ effect: "read", action: "search" }, "search"],
    [{ effect: "write", action: "delete" }, "delete"],
    [{ effect: "write", action: "move" }, "move"],
    [{ effect: "read", action: "think" }, "think"],
  ];
  for (const [declared, kind] of table) test(`${JSON.stringify(declared)} → ${kind}`, () => expect(toolKindOf(madeUp(declared))).toBe(kind));
  test("an unknown tool is other", () => expect(toolKindOf(undefined)).toBe("other"));

  test("the title names the subjects, else the paths; locations are the declared paths inside the workspace", () => {
    const paths = (input: unknown) => [(input as { target: string }).target, "../outside.txt"];
    const byPaths = madeUp({ effect: "write", paths });
    expect(toolTitleOf("frobnicate", byPaths, { target: "src/a.ts" }, root)).toBe("frobnicate: src/a.ts, ../outside.txt");
    expect(toolLocationsOf(byPaths, { target: "src/a.ts" }, root)).toEqual([{ path: join(root, "src/a.ts") }]);
    const bySubjects = madeUp({ effect: "exec", subjects: () => ["make   all"] });
    expect(toolTitleOf("frobnicate", bySubjects, { target: "x" }, root)).toBe("frobnicate: make all");
    expect(toolTitleOf("frobnicate", madeUp({ paths: () => ["x".repeat(300)] }), {}, root)).toHaveLength(100);
    expect(
      toolTitleOf(
        "frobnicate",
        madeUp({
          paths: () => {
            throw new Error("bad input");
          },
        }),
        {},
        root,
      ),
    ).toBe("frobnicate");
  });

  test("a diff for each declared file that changed: created, changed, deleted; unchanged files give none", async () => {
    writeFileSync(join(root, "kept.txt"), "same\n");
    writeFileSync(join(root, "changed.txt"), "old\n");
    writeFileSync(join(root, "gone.txt"), "bye\n");
    const locations = ["kept.txt", "changed.txt", "gone.txt", "new.txt"].map((name) => ({ path: join(root, name) }));
    const before = await snapshotFiles(locations);
    writeFileSync(join(root, "changed.txt"), "new\n");
    rmSync(join(root, "gone.txt"));
    writeFileSync(join(root, "new.txt"), "hello\n");
    expect(await diffsSince(before)).toEqual([
      { type: "diff", path: join(root, "changed.txt"), oldText: "old\n", newText: "new\n" },
      { type: "diff", path: join(root, "gone.txt"), oldText: "bye\n", newText: "" },
      { type: "diff", path: join(root, "new.txt"), oldText: null, newText: "hello\n" },
    ]);
  });
});

describe("permission answers map onto the gate's answers as the REPL's y / a / n do", () => {
  const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
    id: "a1",
    callId: "c1",
    tool: "write_file",
    input: { path: "a.txt" },
    subjects: ["a.txt"],
    subject: "a.txt",
    repeated: false,
    suggestedPattern: "*",
    cwd: root,
    ...over,
  });
  const decision = (answer: (params: acp.RequestPermissionRequest) => acp.RequestPermissionOutcome) => {
    const asked: acp.RequestPermissionRequest[] = [];
    const decide = createAcpDecision({
      sessionId: () => "s1",
      ask: async (params) => {
        asked.push(params);
        return { outcome: answer(params) };
      },
      toolNamed: () => madeUp({ name: "write_file", effect: "write", paths: () => ["a.txt"] }),
      turnSignal: () => undefined,
    });
    return { decide, asked };
  };
  const table: [string, string][] = [
    ["allow_once", "once"],
    ["allow_always", "always"],
    ["reject_once", "deny"],
    ["reject_always", "deny"],
    ["something_else", "deny"],
  ];
  for (const [optionId, answer] of table)
    test(`${optionId} → ${answer}`, async () => {
      const { decide } = decision(() => ({ outcome: "selected", optionId }));
      expect(await decide(request())).toBe(answer as never);
    });

  test("a cancelled question denies", async () => {
    const { decide } = decision(() => ({ outcome: "cancelled" }));
    expect(await decide(request())).toBe("deny");
  });

  test("reject always denies what its pattern covers without asking again; a secret question is always put", async () => {
    const { decide, asked } = decision(() => ({ outcome: "selected", optionId: "reject_always" }));
    expect(await decide(request())).toBe("deny");
    expect(await decide(request({ subjects: ["b.txt"] }))).toBe("deny");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toEqual({
      sessionId: "s1",
      toolCall: {
        toolCallId: "c1",
        title: "write_file: a.txt",
        kind: "edit",
        status: "pending",
        locations: [{ path: join(root, "a.txt") }],
        rawInput: { path: "a.txt" },
        content: [{ type: "content", content: { type: "text", text: "path: a.txt" } }],
      },
      options: [
        { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
        { optionId: "allow_always", name: "Always allow every write_file call in this session", kind: "allow_always" },
        { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        { optionId: "reject_always", name: "Always reject every write_file call in this session", kind: "reject_always" },
      ],
    });
    const secret = decision(() => ({ outcome: "selected", optionId: "allow_once" }));
    expect(await secret.decide(request({ secret: { path: ".env", why: "an env file" } }))).toBe("once");
    expect(secret.asked[0]!.options.map((option) => option.kind)).toEqual(["allow_once", "reject_once"]);
  });
});

test("the task list is a plan; stop kinds are stop reasons", () => {
  expect(
    planUpdate([
      { content: "a", status: "pending" },
      { content: "b", status: "in_progress" },
      { content: "c", status: "done" },
      { content: "d", status: "blocked" },
    ]),
  ).toEqual({
    sessionUpdate: "plan",
    entries: [
      { content: "a", priority: "medium", status: "pending" },
      { content: "b", priority: "medium", status: "in_progress" },
      { content: "c", priority: "medium", status: "completed" },
      { content: "d (blocked)", priority: "medium", status: "pending" },
    ],
  });
  expect(["completed", "max-steps", "aborted", "error", "blocked"].map((stop) => stopReasonOf(stop as never))).toEqual([
    "end_turn",
    "max_turn_requests",
    "cancelled",
    undefined,
    undefined,
  ]);
});

test("the editor's MCP servers in config form", () => {
  expect(
    mcpServersFrom([
      { name: "local", command: "/bin/srv", args: ["-v"], env: [{ name: "K", value: "1" }] },
      { type: "http", name: "web", url: "https://example.test/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] },
      { type: "sse", name: "events", url: "https://example.test/sse", headers: [] },
    ]),
  ).toEqual({
    local: { command: "/bin/srv", args: ["-v"], env: { K: "1" } },
    web: { url: "https://example.test/mcp", type: "http", headers: { Authorization: "Bearer x" } },
    events: { url: "https://example.test/sse", type: "sse", headers: {} },
  });
});

describe("prompt blocks an editor sends", () => {
  const refusals: [acp.ContentBlock, string | undefined, string][] = [
    [{ type: "audio", mimeType: "audio/wav", data: "AA==" }, undefined, "audio content is not supported"],
    [{ type: "image", mimeType: "image/bmp", data: "AA==" }, undefined, "image/bmp is not a PNG, JPEG, GIF or WebP image"],
    [{ type: "image", mimeType: "image/png", data: "AA==" }, "tiny-model", "the model tiny-model does not take images"],
    [{ type: "resource", resource: { uri: "file:///x.bin", blob: "AA==", mimeType: "application/zip" } }, undefined, "application/zip is not a PNG"],
  ];
  for (const [block, refusedBy, message] of refusals)
    test(`refused: ${block.type} (${message})`, async () => {
      await expect(promptFromBlocks([block], { root, imagesRefusedBy: refusedBy, ask: async () => "y" })).rejects.toThrow(message);
    });

  test("a link outside the workspace stays a link; one inside becomes an @mention and is attached", async () => {
    writeFileSync(join(root, "inside.txt"), "in\n");
    const taken = await promptFromBlocks(
      [
        { type: "resource_link", uri: "file:///etc/hostname", name: "hostname" },
        { type: "resource_link", uri: `file://${join(root, "inside.txt")}`, name: "inside.txt" },
        { type: "resource_link", uri: "https://example.test/page", name: "page" },
      ],
      { root, ask: async () => "y" },
    );
    expect(taken.prompt).toBe(
      '[hostname](file:///etc/hostname)\n@inside.txt\n[page](https://example.test/page)\n\n<attached path="inside.txt">\n1: in\n</attached>',
    );
    expect(taken.images).toEqual([]);
  });

  test("a linked or embedded file that may hold secrets is attached only when the question is answered yes", async () => {
    writeFileSync(join(root, ".env"), "API_KEY=sk-live-123\n");
    const blocks: acp.ContentBlock[] = [
      { type: "resource_link", uri: `file://${join(root, ".env")}`, name: ".env" },
      { type: "resource", resource: { uri: `file://${join(root, "notes.txt")}`, text: "-----BEGIN RSA PRIVATE KEY-----\nabc\n" } },
      { type: "resource", resource: { uri: `file://${join(root, "plain.txt")}`, text: "nothing to see\n" } },
    ];
    for (const answer of ["y", "n"]) {
      const questions: string[] = [];
      const taken = await promptFromBlocks(blocks, { root, ask: async (question) => (questions.push(question), answer) });
      expect(questions).toHaveLength(2);
      expect(questions[0]).toStartWith("@notes.txt may hold secrets (a private key)");
      expect(questions[1]).toStartWith("@.env may hold secrets");
      expect(taken.prompt.includes("sk-live-123")).toBe(answer === "y");
      expect(taken.prompt.includes("BEGIN RSA PRIVATE KEY")).toBe(answer === "y");
      expect(taken.prompt).toContain('<attached path="plain.txt">\n1: nothing to see\n</attached>');
    }
  });
});
