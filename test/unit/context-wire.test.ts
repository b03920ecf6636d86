/**
 * Wire plans driven through the real adapters into the fake provider, which refuses any request
 * that breaks a protocol's pairing or thinking rules or overflows its context window.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Message, Protocol } from "../../lib/messages.ts";
import { estimateTokens, planWire } from "../../lib/agent/context/planner.ts";
import { createCompactionState, recordSpan } from "../../lib/context-state/state.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { ADAPTERS, PROTOCOLS, collect, connectTo, requestOf, terminalOf } from "./providers-harness.ts";

const SYSTEM = "You are a test.";
const THRESHOLD = 3_000;
const WINDOW = 6_000;

describe.each(PROTOCOLS)("compacted wire plans on %s", (protocol: Protocol) => {
  let fake: FakeProvider;

  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: "sk-test-key-0123456789", contextWindow: WINDOW });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("a long tool loop with thinking stays valid and inside the window", async () => {
    const history: Message[] = [{ role: "user", content: "Read every file under src/ and report." }];
    let state = createCompactionState();
    let spans = 0;
    for (let step = 0; step < 24; step++) {
      let plan = planWire(history, { threshold: THRESHOLD, protocol, thinking: protocol === "anthropic", state, system: SYSTEM, auto: true });
      if (plan.newSpan) {
        spans += 1;
        state = recordSpan(state, plan.newSpan, spans % 2 === 1 ? { summary: `- read files up to message ${plan.newSpan.to}` } : {});
        plan = planWire(history, { threshold: THRESHOLD, protocol, thinking: protocol === "anthropic", state, system: SYSTEM, auto: true });
      }
      fake.script({
        reasoning: `Step ${step}: ${"which file next? ".repeat(60)}`,
        text: `Reading file ${step}.`,
        toolCalls: [{ name: "read_file", input: { path: `src/f${step}.ts` } }],
      });
      const events = await collect(ADAPTERS[protocol](connectTo(fake, protocol), requestOf({ system: SYSTEM, messages: plan.messages, thinking: "low" })));
      const last = terminalOf(events);
      if (last.type !== "finish") throw new Error(`step ${step}: ${JSON.stringify(last)}`);
      history.push(last.message);
      const call = last.message.parts.find((part) => part.type === "tool-call")!;
      if (call.type !== "tool-call") throw new Error("no call");
      history.push({ role: "tool", results: [{ type: "tool-result", callId: call.id, name: "read_file", output: `// src/f${step}.ts\n${"q".repeat(1500)}` }] });
    }

    expect(fake.violations).toEqual([]);
    expect(spans).toBeGreaterThan(1);
    expect(estimateTokens(history)).toBeGreaterThan(WINDOW);
    const bodies = JSON.stringify(fake.requests.at(-1)!.body);
    expect(bodies).toContain("Read every file under src/ and report.");
    expect(bodies).toContain("read files up to message");
    if (protocol === "anthropic") {
      for (const request of fake.requests.slice(1)) expect(request.body.thinking).toEqual({ type: "enabled", budget_tokens: expect.any(Number) });
    }
  });

  test("the fake refuses the naive cut that repair prevents", async () => {
    const history: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [{ type: "tool-call", id: "call_x1", name: "read_file", input: { path: "a" } }] },
      { role: "tool", results: [{ type: "tool-result", callId: "call_x1", name: "read_file", output: "a" }] },
      { role: "assistant", parts: [{ type: "text", text: "done" }] },
      { role: "user", content: "again" },
    ];
    fake.script({ text: "ok" }, { text: "ok" });
    const naive = [history[0]!, ...history.slice(2)];
    await collect(ADAPTERS[protocol](connectTo(fake, protocol), requestOf({ messages: naive })));
    expect(fake.violations.map((violation) => violation.status)).toEqual([400]);

    const plan = planWire(history, { threshold: 1_000_000, protocol, thinking: false, state: createCompactionState(), auto: true });
    const repaired = planWire(naive, { threshold: 1_000_000, protocol, thinking: false, state: createCompactionState(), auto: true });
    expect(repaired.messages).toEqual([history[0]!, history[3]!, history[4]!]);
    await collect(ADAPTERS[protocol](connectTo(fake, protocol), requestOf({ messages: repaired.messages })));
    expect(fake.violations).toHaveLength(1);
    expect(plan.messages).toEqual(history);
  });
});
