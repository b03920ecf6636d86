/**
 * The context manager wired to a model: spans are summarised the first time they leave the wire,
 * a failed summary falls back to a marker, and summaries that pile up are rolled into one.
 */
import { describe, expect, test } from "bun:test";
import { createContextManager, readCompactionState } from "../../lib/agent/context/manager.ts";
import type { ModelClient } from "../../lib/providers/client.ts";
import type { Message } from "../../lib/messages.ts";
import type { ModelEvent, ModelRequest } from "../../lib/providers/types.ts";
import type { SessionRecord } from "../../lib/store/session-record.ts";

function _client(reply: (request: ModelRequest) => string | Error): ModelClient & { protocol: "openai-chat"; prompts: string[] } {
  const prompts: string[] = [];
  return {
    protocol: "openai-chat",
    prompts,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
      const prompt = request.messages[0]!.role === "user" ? request.messages[0]!.content : "";
      prompts.push(prompt);
      const answer = reply(request);
      if (answer instanceof Error) {
        yield { type: "error", error: { kind: "server", message: answer.message } };
        return;
      }
      yield {
        type: "finish",
        message: { role: "assistant", parts: [{ type: "text", text: answer }] },
        usage: { inputTokens: 1, outputTokens: 1 },
        stop: "stop",
      };
    },
  };
}

/** Appends one tool-loop step with a bulky result. */
function _step(messages: Message[], index: number): void {
  messages.push({ role: "assistant", parts: [{ type: "tool-call", id: `c${index}`, name: "read_file", input: { path: `f${index}.txt` } }] });
  messages.push({ role: "tool", results: [{ type: "tool-result", callId: `c${index}`, name: "read_file", output: `${index}:`.padEnd(1200, "x") }] });
}

function _setup(reply: (request: ModelRequest) => string | Error) {
  const messages: Message[] = [{ role: "user", content: "the first request" }];
  const session = { messages, compaction: undefined } as unknown as SessionRecord;
  const client = _client(reply);
  const manager = createContextManager({
    session,
    client,
    model: () => "m",
    thinking: () => "off",
    markChanged: () => undefined,
    threshold: 2_000,
    auto: true,
  });
  return { messages, session, client, manager };
}

describe("context manager", () => {
  test("summaries that pile up past a quarter of the threshold are rolled into one span", async () => {
    let summaries = 0;
    const { messages, session, client, manager } = _setup(() => `summary ${++summaries}: ${"s".repeat(700)}`);
    const seen: number[] = [];
    for (let index = 0; index < 80; index++) {
      _step(messages, index);
      await manager.prepareWire(messages, "system", new AbortController().signal, "run");
      seen.push(readCompactionState(session).spans.length);
    }
    expect(Math.max(...seen)).toBeGreaterThan(1);
    const rolled = client.prompts.filter((prompt) => prompt.includes("<earlier-summaries>"));
    expect(rolled.length).toBeGreaterThan(0);
    const state = readCompactionState(session);
    expect(state.spans[0]!.from).toBe(1);
    expect(state.spans.map((span) => span.summary!.split(":")[0])).not.toContain(undefined);
    const wire = await manager.prepareWire(messages, "system", new AbortController().signal, "run");
    expect(JSON.stringify(wire.messages).length / 4).toBeLessThan(2_000);
    // The current request is the last user text before the tail: after the summary.
    expect((wire.messages[0] as { content: string }).content).toStartWith("[Summary of messages 2–");
    expect((wire.messages[1] as { content: string }).content).toBe("the first request");
  });

  test("a view that is not the session's history (historyPairs) is summarised too, its spans kept with the view, not the session", async () => {
    const { session, client, manager } = _setup(() => "## Goal\n- the pairs so far");
    const view: Message[] = [];
    for (let pair = 0; pair < 6; pair++) {
      view.push({ role: "user", content: `old question ${pair} ${"q".repeat(600)}` });
      view.push({ role: "assistant", parts: [{ type: "text", text: `old answer ${pair} ${"a".repeat(600)}` }] });
    }
    view.push({ role: "user", content: "the current request" });
    const events = [];
    for (let index = 0; index < 12; index++) {
      _step(view, index);
      const wire = await manager.prepareWire(view, "system", new AbortController().signal, "run");
      events.push(...(wire.events ?? []));
      const texts = wire.messages.flatMap((message) => (message.role === "user" ? [message.content] : []));
      // No marker: every span that left has its summary, and the current request follows it.
      expect(texts.some((text) => text.includes("were removed from the context"))).toBe(false);
      expect(texts.at(-1)).toBe("the current request");
      // An old question on the wire has its answer right after it.
      for (const [at, message] of wire.messages.entries())
        if (message.role === "user" && message.content.startsWith("old question")) expect(wire.messages[at + 1]!.role).toBe("assistant");
    }
    const compacted = events.filter((event) => event.type === "compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted.every((event) => event.type === "compacted" && event.summary === "## Goal\n- the pairs so far")).toBe(true);
    // The first summary was written from the first question too, which left the wire with it.
    expect(client.prompts[0]).toContain("old question 0");
    expect(session.compaction).toBeUndefined();
  });

  test("a failed summary leaves a marker, records the span without one, and says so", async () => {
    const { messages, session, manager } = _setup(() => new Error("500 from the fake"));
    const events = [];
    for (let index = 0; index < 6; index++) {
      _step(messages, index);
      events.push(...((await manager.prepareWire(messages, "system", new AbortController().signal, "run")).events ?? []));
    }
    expect(events.some((event) => event.type === "notice" && event.text.includes("500 from the fake"))).toBe(true);
    const state = readCompactionState(session);
    expect(state.spans.length).toBeGreaterThan(0);
    expect(state.spans[0]!.summary).toBeUndefined();
  });
});
