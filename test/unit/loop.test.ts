/**
 * The agent loop against an in-process model that replays scripted ModelEvents: what a turn
 * leaves in the history and reports when a stream is interrupted or fails part way.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { runTurn, type LoopGate, type TurnResult } from "../../lib/agent/loop.ts";
import type { ModelClient } from "../../lib/providers/client.ts";
import type { AgentEvent } from "../../lib/events.ts";
import type { Message } from "../../lib/messages.ts";
import type { ModelEvent } from "../../lib/providers/types.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";

const tools: ToolDefinition[] = [
  {
    name: "note",
    description: "records a note",
    effect: "read",
    schema: v.object({ text: v.string() }),
    execute: async ({ text }) => `noted ${text}`,
  },
  // A made-up tool that declares itself bookkeeping: only the declaration marks its results.
  {
    name: "tally",
    description: "counts",
    effect: "read",
    memoryContent: false,
    schema: v.object({}),
    execute: async () => "3 so far",
  },
];
const gate: LoopGate = { check: async () => ({ allowed: true }), newTurn: () => undefined };

async function turnWith(
  steps: ModelEvent[][],
  messages: Message[] = [],
  extra: Partial<Parameters<typeof runTurn>[1]> = {},
): Promise<{ events: AgentEvent[]; result: TurnResult; messages: Message[] }> {
  let index = 0;
  const client: Pick<ModelClient, "stream"> = {
    async *stream() {
      for (const event of steps[index++] ?? []) yield event;
    },
  };
  const turn = runTurn(
    { prompt: "go" },
    {
      client,
      model: "m",
      thinking: "off",
      messages,
      tools: () => tools,
      systemPrompt: () => "system",
      gate,
      root: process.cwd(),
      maxSteps: 10,
      signal: new AbortController().signal,
      ...extra,
    },
  );
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await turn.next();
    if (next.done) return { events, result: next.value, messages };
    events.push(next.value);
  }
}

const partial: Message = {
  role: "assistant",
  parts: [
    { type: "text", text: "partial answer" },
    { type: "tool-call", id: "c2", name: "note", input: {} },
  ],
};

describe("runTurn", () => {
  test("an interrupted stream keeps its text, never its half-made tool call, and reports no usage it did not get", async () => {
    const { result, messages } = await turnWith([
      [
        { type: "text-delta", text: "partial answer" },
        { type: "aborted", partial: partial as never, usage: { inputTokens: 0, outputTokens: 0 } },
      ],
    ]);
    expect(result).toEqual({ stop: "aborted", steps: 1, usage: undefined, lastInputTokens: undefined, answer: "partial answer" });
    expect(messages).toEqual([
      { role: "user", content: "go" },
      { role: "assistant", parts: [{ type: "text", text: "partial answer" }] },
    ]);
  });

  test("a provider error before any usage leaves the turn without token counts", async () => {
    const { result, events } = await turnWith([[{ type: "error", error: { message: "boom" } as never, usage: { inputTokens: 0, outputTokens: 0 } }]]);
    expect(events).toEqual([{ type: "error", error: "boom" }]);
    expect(result).toEqual({ stop: "error", steps: 1, usage: undefined, lastInputTokens: undefined, answer: "", error: "boom" });
  });

  test("usage sums the steps that reported it", async () => {
    const { result } = await turnWith([
      [
        {
          type: "finish",
          stop: "tool-calls",
          usage: { inputTokens: 100, outputTokens: 7 },
          message: { role: "assistant", parts: [{ type: "tool-call", id: "c1", name: "note", input: { text: "x" } }] },
        },
      ],
      [{ type: "finish", stop: "stop", usage: { inputTokens: 120, outputTokens: 3 }, message: { role: "assistant", parts: [{ type: "text", text: "ok" }] } }],
    ]);
    expect(result).toEqual({ stop: "completed", steps: 2, usage: { inputTokens: 220, outputTokens: 10 }, lastInputTokens: 120, answer: "ok" });
  });

  test("a tool declaring memoryContent: false has its result marked bookkeeping, in the history and the event; others are not", async () => {
    const calls = [
      { type: "tool-call" as const, id: "c1", name: "note", input: { text: "x" } },
      { type: "tool-call" as const, id: "c2", name: "tally", input: {} },
    ];
    const { messages, events } = await turnWith([
      [{ type: "finish", stop: "tool-calls", usage: { inputTokens: 1, outputTokens: 1 }, message: { role: "assistant", parts: calls } }],
      [{ type: "finish", stop: "stop", usage: { inputTokens: 1, outputTokens: 1 }, message: { role: "assistant", parts: [{ type: "text", text: "ok" }] } }],
    ]);
    expect(messages[2]).toEqual({
      role: "tool",
      results: [
        { type: "tool-result", callId: "c1", name: "note", output: "noted x" },
        { type: "tool-result", callId: "c2", name: "tally", output: "3 so far", bookkeeping: true },
      ],
    });
    expect(events.filter((event) => event.type === "tool-result")).toEqual([
      { type: "tool-result", id: "c1", name: "note", output: "noted x" },
      { type: "tool-result", id: "c2", name: "tally", output: "3 so far", bookkeeping: true },
    ]);
  });

  test("a checkpoint's coverage is asked for, and told to the gate, only for calls whose tool declares write or exec", async () => {
    const made = (name: string, effect: ToolDefinition["effect"]): ToolDefinition => ({
      name,
      description: name,
      effect,
      schema: v.object({}),
      execute: async () => `${name} ran`,
    });
    const effects = [made("looks", "read"), made("fetches", "net"), made("writes", "write"), made("runs", "exec")];
    const seen: [string, unknown][] = [];
    let asked = 0;
    const calls = effects.map((tool, i) => ({ type: "tool-call" as const, id: `c${i}`, name: tool.name, input: {} }));
    await turnWith(
      [
        [{ type: "finish", stop: "tool-calls", usage: { inputTokens: 1, outputTokens: 1 }, message: { role: "assistant", parts: calls } }],
        [{ type: "finish", stop: "stop", usage: { inputTokens: 1, outputTokens: 1 }, message: { role: "assistant", parts: [{ type: "text", text: "ok" }] } }],
      ],
      [],
      {
        tools: () => effects,
        checkpoint: () => (asked++, { maxFileBytes: 7 }),
        gate: { check: async (call) => (seen.push([call.name, call.checkpoint]), { allowed: true }), newTurn: () => undefined },
      },
    );
    expect(seen).toEqual([
      ["looks", undefined],
      ["fetches", undefined],
      ["writes", { maxFileBytes: 7 }],
      ["runs", { maxFileBytes: 7 }],
    ]);
    expect(asked).toBe(2);
  });
});
