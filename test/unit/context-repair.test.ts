import { describe, expect, test } from "bun:test";
import type { Message } from "../../lib/messages.ts";
import { repairForWire } from "../../lib/agent/context/repair.ts";
import { buildToolLoop, findWireViolations } from "./context-transcripts.ts";

const call = (id: string) => ({ type: "tool-call" as const, id, name: "bash", input: { command: "ls" } });
const result = (callId: string) => ({ type: "tool-result" as const, callId, name: "bash", output: `out ${callId}` });

describe("repairForWire", () => {
  test("a valid history comes back element for element identical", () => {
    const messages = buildToolLoop({ steps: 4, outputChars: 50, reasoning: "openai-responses" });
    const repaired = repairForWire(messages);
    expect(repaired).toEqual(messages);
    repaired.forEach((message, index) => expect(message).toBe(messages[index]!));
  });

  test("drops a result whose call is not in the assistant message just before it", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [{ type: "text", text: "running" }, call("a")] },
      { role: "tool", results: [result("a"), result("gone")] },
      { role: "tool", results: [result("a")] },
      { role: "user", content: "next" },
      { role: "tool", results: [result("x")] },
    ];
    expect(repairForWire(messages)).toEqual([messages[0]!, messages[1]!, { role: "tool", results: [result("a")] }, messages[4]!]);
  });

  test("drops a call without a result mid-history, and the assistant message it leaves empty", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [{ type: "reasoning", text: "hm", protocol: "anthropic", signature: "s" }, call("lost")] },
      { role: "user", content: "never mind" },
      { role: "assistant", parts: [{ type: "text", text: "ok" }, call("b"), call("c")] },
      { role: "tool", results: [result("c")] },
      { role: "assistant", parts: [{ type: "text", text: "done" }] },
    ];
    expect(repairForWire(messages)).toEqual([
      messages[0]!,
      messages[2]!,
      { role: "assistant", parts: [{ type: "text", text: "ok" }, call("c")] },
      messages[4]!,
      messages[5]!,
    ]);
  });

  test("keeps the unanswered calls of a trailing assistant message (a suspended approval)", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [call("a"), call("b")] },
      { role: "tool", results: [result("a")] },
    ];
    const repaired = repairForWire(messages);
    expect(repaired).toEqual(messages);
    expect(findWireViolations(repaired)).toEqual([]);
    expect(repairForWire(messages.slice(0, 2))).toEqual(messages.slice(0, 2));
  });

  test("removes empty messages and blank text parts", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [] },
      { role: "assistant", parts: [{ type: "reasoning", text: "only thinking", protocol: "openai-responses", itemId: "rs_1" }] },
      { role: "user", content: "  \n" },
      {
        role: "assistant",
        parts: [
          { type: "text", text: " " },
          { type: "text", text: "answer" },
        ],
      },
    ];
    expect(repairForWire(messages)).toEqual([messages[0]!, { role: "assistant", parts: [{ type: "text", text: "answer" }] }]);
  });

  test("answers each call once: a duplicated call id or result is dropped", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [call("a"), call("a")] },
      { role: "tool", results: [result("a"), result("a")] },
    ];
    expect(repairForWire(messages)).toEqual([messages[0]!, { role: "assistant", parts: [call("a")] }, { role: "tool", results: [result("a")] }]);
  });
});
