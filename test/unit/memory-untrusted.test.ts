/**
 * The untrusted mark follows the tools' declarations, never their names: made-up tools with each
 * declaration get the treatment it asks for, and the built-in tools get theirs through the same rule.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { untrustedSeen } from "../../lib/agent/memory-session.ts";
import { fieldPaths } from "../../lib/approval/write-paths.ts";
import type { Message } from "../../lib/messages.ts";
import { builtinTools } from "../../lib/tools/index.ts";
import { createTodoTool, type TodoHolder } from "../../lib/tools/todo.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";

const made = (name: string, declared: Partial<ToolDefinition>): ToolDefinition => ({
  name,
  description: name,
  schema: v.any(),
  effect: "read",
  execute: async () => "",
  ...declared,
});
const MADE_UP = [
  made("peek", { effect: "read", paths: fieldPaths("path") }),
  made("scribble", { effect: "write", paths: fieldPaths("path") }),
  made("shout", { effect: "exec" }),
  made("surf", { effect: "net" }),
  made("tally", { effect: "read", resultText: "own" }),
  made("carve", { effect: "write", paths: fieldPaths("path"), resultText: "foreign" }),
  made("gaze", { effect: "read" }),
];

let n = 0;
const calls = (...list: [string, Record<string, unknown>][]): Message[] =>
  list.flatMap(([name, input]): Message[] => [
    { role: "user", content: "go" },
    { role: "assistant", parts: [{ type: "tool-call", id: `c${++n}`, name, input }] },
  ]);
const seen = (tools: readonly ToolDefinition[], messages: Message[]) =>
  untrustedSeen(messages, (name) => tools.find((tool) => tool.name === name), "/ws", "/ws");

describe("untrustedSeen", () => {
  test("made-up tools: foreign by effect unless declared own; a read of a file the session wrote first is trusted", () => {
    const messages = calls(
      ["peek", { path: "README.md" }],
      ["scribble", { path: "new.md" }],
      ["peek", { path: "new.md" }],
      ["peek", { path: "/elsewhere/notes.txt" }],
      ["shout", {}],
      ["surf", {}],
      ["tally", {}],
      ["carve", { path: "x.md" }],
      ["gaze", {}],
      ["vanished", {}],
    );
    expect(seen(MADE_UP, messages)).toEqual(["peek README.md", "peek /elsewhere/notes.txt", "shout", "surf", "carve", "gaze", "vanished"]);
  });

  test("only own results: nothing is untrusted", () => {
    expect(seen(MADE_UP, calls(["tally", {}], ["scribble", { path: "a.md" }], ["peek", { path: "a.md" }]))).toEqual([]);
  });

  test("built-in tools through the same rule: bash, grep, a committed README, web_fetch are marked; todo_write and edits are not", () => {
    const builtins = [...builtinTools({ complete: async () => "" }), createTodoTool({ get: () => [], set: () => undefined } satisfies TodoHolder)];
    const messages = calls(
      ["read_file", { path: "README.md" }],
      ["bash", { command: "cat notes.txt" }],
      ["grep", { pattern: "TODO" }],
      ["web_fetch", { url: "https://example.com" }],
      ["todo_write", { todos: [] }],
      ["write_file", { path: "out.md", content: "x" }],
      ["read_file", { path: "out.md" }],
      ["read_file", { path: "../outside.txt" }],
    );
    expect(seen(builtins, messages)).toEqual(["read_file README.md", "bash", "grep", "web_fetch", "read_file /outside.txt"]);
  });

  test("more than 8 marks: the first 7 and how many more", () => {
    const messages = calls(...Array.from({ length: 12 }, (_, at): [string, Record<string, unknown>] => ["peek", { path: `f${at}.md` }]));
    expect(seen(MADE_UP, messages)).toEqual(["peek f0.md", "peek f1.md", "peek f2.md", "peek f3.md", "peek f4.md", "peek f5.md", "peek f6.md", "5 more"]);
  });
});
