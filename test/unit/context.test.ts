import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { AssistantMessage, Message, Protocol } from "../../lib/messages.ts";
import {
  TAIL_LADDER,
  estimateTokens,
  formatCompactedLine,
  planWire,
  pruneStats,
  renderSegmentText,
  type WireOptions,
} from "../../lib/agent/context/planner.ts";
import { CompactionStateSchema, createCompactionState, recordSpan, uncompact, type CompactionState } from "../../lib/context-state/state.ts";
import { buildRandomTranscript, buildToolLoop, createRng, findWireViolations } from "./context-transcripts.ts";

const NOW = new Date("2025-01-02T03:04:05.000Z");

function options(threshold: number, extra: Partial<WireOptions> = {}): WireOptions {
  return { threshold, protocol: "openai-chat", thinking: false, state: createCompactionState(), auto: true, ...extra };
}

function stripReasoning(message: Message): Message {
  return message.role === "assistant" ? { ...message, parts: message.parts.filter((part) => part.type !== "reasoning") } : message;
}

function marker(count: number): Message {
  return { role: "user", content: `[${count} earlier messages were removed from the context to fit the window. Use recall_discarded to search them.]` };
}

describe("estimateTokens", () => {
  test("is a quarter of the JSON length plus the system prompt, rounded", () => {
    const messages: Message[] = [{ role: "user", content: "hello" }];
    const json = JSON.stringify(messages).length;
    expect(estimateTokens(messages)).toBe(Math.round(json / 4));
    expect(estimateTokens(messages, "x".repeat(10))).toBe(Math.round((json + 10) / 4));
    expect(estimateTokens([])).toBe(1);
  });
});

describe("planWire: steps 1 and 2", () => {
  test("a history under the threshold goes out untouched", () => {
    const messages = buildToolLoop({ steps: 3, outputChars: 200, reasoning: "anthropic" });
    const plan = planWire(messages, options(estimateTokens(messages, "sys"), { system: "sys" }));
    expect(plan).toEqual({
      messages,
      before: messages.length,
      after: messages.length,
      pruned: false,
      reasoningDropped: false,
      estimate: estimateTokens(messages, "sys"),
    });
    plan.messages.forEach((message, index) => expect(message).toBe(messages[index]!));
  });

  test("auto off sends everything however large", () => {
    const messages = buildToolLoop({ steps: 20, outputChars: 2000 });
    const plan = planWire(messages, options(100, { auto: false }));
    expect(plan.messages).toEqual(messages);
    expect(plan.pruned).toBe(false);
    expect(plan.newSpan).toBeUndefined();
  });

  test("reasoning leaves first, oldest response first, all of a response at once", () => {
    const messages = buildToolLoop({ steps: 3, outputChars: 100, reasoning: "openai-responses" });
    const expected = messages.map((message, index) => (index === 1 ? stripReasoning(message) : message));
    const plan = planWire(messages, options(estimateTokens(expected)));
    expect(estimateTokens(messages)).toBeGreaterThan(estimateTokens(expected));
    expect(plan).toEqual({
      messages: expected,
      before: 8,
      after: 8,
      pruned: true,
      reasoningDropped: true,
      estimate: estimateTokens(expected),
    });
  });

  test("reasoning is dropped from every response before any message leaves", () => {
    const messages = buildToolLoop({ steps: 3, outputChars: 100, reasoning: "openai-responses" });
    const expected = messages.map(stripReasoning);
    const plan = planWire(messages, options(estimateTokens(expected)));
    expect(plan.messages).toEqual(expected);
    expect(plan.newSpan).toBeUndefined();
  });

  test("with Anthropic thinking on, the last assistant message keeps its signed thinking", () => {
    const messages = buildToolLoop({ steps: 3, outputChars: 100, reasoning: "anthropic", answer: false });
    const last = messages.length - 2;
    const expected = messages.map((message, index) => (index === last ? message : stripReasoning(message)));
    const threshold = estimateTokens(expected);
    const thinking = planWire(messages, options(threshold, { protocol: "anthropic", thinking: true }));
    expect(thinking.messages).toEqual(expected);
    expect(thinking.messages[last]).toBe(messages[last]!);
    expect((thinking.messages[last] as AssistantMessage).parts[0]).toEqual({
      type: "reasoning",
      text: "thinking about step 2",
      protocol: "anthropic",
      signature: "sig-21",
    });

    const allStripped = messages.map(stripReasoning);
    const off = planWire(messages, options(estimateTokens(allStripped), { protocol: "anthropic", thinking: false }));
    expect(off.messages).toEqual(allStripped);
  });

  test("an assistant message that was only reasoning leaves the wire with it", () => {
    const messages: Message[] = [
      { role: "user", content: "go" },
      { role: "assistant", parts: [{ type: "reasoning", text: "r".repeat(400), protocol: "openai-chat" }] },
      { role: "user", content: "and now?" },
      { role: "assistant", parts: [{ type: "text", text: "done" }] },
    ];
    const plan = planWire(messages, options(40));
    expect(plan.messages).toEqual([messages[0]!, messages[2]!, messages[3]!]);
    expect(plan.reasoningDropped).toBe(true);
  });
});

describe("planWire: step 3, the tail ladder", () => {
  const messages = buildToolLoop({ steps: 60, outputChars: 1000 });
  const n = messages.length;

  function wireForWidth(width: number): { wire: Message[]; cut: number } {
    let cut = n - width;
    if (messages[cut]!.role === "tool") cut -= 1;
    // The current request (the only one) follows the marker: the last user text before the tail.
    return { wire: [marker(cut - 1), messages[0]!, ...messages.slice(cut)], cut };
  }

  test("keeps the widest rung that fits under half the threshold and reports the span that left", () => {
    const { wire, cut } = wireForWidth(32);
    const target = estimateTokens(wire);
    expect(estimateTokens(wireForWidth(64).wire)).toBeGreaterThan(target);
    const plan = planWire(messages, options(target * 2));
    expect(plan).toEqual({
      messages: wire,
      before: n,
      after: wire.length,
      pruned: true,
      reasoningDropped: false,
      newSpan: { from: 1, to: cut },
      estimate: target,
    });
    expect(findWireViolations(plan.messages)).toEqual([]);
    expect(planWire(messages, options(target * 2 - 1)).newSpan).toEqual({ from: 1, to: wireForWidth(16).cut });
    expect(planWire(messages, options(target + 1, { compactTo: target })).messages).toEqual(wire);
  });

  test("the cut never separates a result from its call", () => {
    expect(messages[n - 32]!.role).toBe("tool");
    const plan = planWire(messages, options(estimateTokens(wireForWidth(32).wire) * 2));
    expect(plan.messages[2]!.role).toBe("assistant");
    expect(plan.messages.slice(0, 2)).toEqual([marker(n - 34), messages[0]!]);
    expect(plan.newSpan).toEqual({ from: 1, to: n - 33 });
  });

  test("after a cut, the next steps have room before the next span", () => {
    const threshold = 20_000;
    let history = buildToolLoop({ steps: 40, outputChars: 1500, answer: false });
    let state = createCompactionState();
    let spans = 0;
    for (let step = 0; step < 60; step++) {
      const plan = planWire(history, options(threshold, { state }));
      expect(plan.estimate).toBeLessThanOrEqual(threshold);
      if (plan.newSpan) {
        spans += 1;
        state = recordSpan(state, plan.newSpan, { summary: "- progress so far", now: NOW });
      }
      history = [...history, ...buildToolLoop({ steps: 1, outputChars: 1500, idPrefix: `s${step}`, answer: false }).slice(1)];
    }
    expect(spans).toBeGreaterThan(1);
    expect(spans).toBeLessThan(12);
  });

  test("sends the narrowest rung when nothing fits", () => {
    const plan = planWire(messages, options(10));
    expect(plan.messages).toEqual(wireForWidth(TAIL_LADDER[TAIL_LADDER.length - 1]!).wire);
    expect(plan.estimate).toBeGreaterThan(10);
  });

  test("an earlier question leaves with the first span; the current request stays byte for byte, after the marker", () => {
    const first = buildToolLoop({ prompt: "Set up the project. ".repeat(50), steps: 2, outputChars: 500, idPrefix: "a" });
    const second = buildToolLoop({ prompt: "Now port the parser. ".repeat(80), steps: 50, outputChars: 1500, idPrefix: "b", answer: false });
    const history = [...first, ...second];
    const newest = first.length;
    const plan = planWire(history, options(8_000));
    expect(plan.newSpan!.from).toBe(1);
    // The marker counts the first message too: it is off the wire with the span.
    expect(plan.messages[0]).toEqual(marker(plan.newSpan!.to));
    expect(plan.messages[1]).toBe(history[newest]!);
    expect(JSON.stringify(plan.messages[1])).toBe(JSON.stringify(second[0]));
    expect(plan.messages.slice(2)).toEqual(history.slice(plan.newSpan!.to));
    expect(plan.messages).not.toContain(history[0]!);
    expect(findWireViolations(plan.messages)).toEqual([]);
  });

  test("before the current request the cut falls on a user message: exchanges go whole", () => {
    // Ten earlier exchanges of six messages each, then a short current request.
    const earlier = Array.from({ length: 10 }, (_, i) => buildToolLoop({ prompt: `question ${i}`, steps: 2, outputChars: 800, idPrefix: `q${i}` }));
    const history: Message[] = [...earlier.flat(), { role: "user", content: "the current request" }];
    const starts = history.flatMap((message, index) => (message.role === "user" ? [index] : []));
    const whole = estimateTokens(history);
    for (const threshold of [0.2, 0.4, 0.6, 0.9].map((share) => Math.floor(whole * share))) {
      const plan = planWire(history, options(threshold));
      expect({ threshold, cutOnAQuestion: starts.includes(plan.newSpan!.to) }).toEqual({ threshold, cutOnAQuestion: true });
      expect(plan.messages[0]).toEqual(marker(plan.newSpan!.to));
      expect(plan.messages.slice(1)).toEqual(history.slice(plan.newSpan!.to));
      expect(plan.messages.at(-1)).toBe(history.at(-1)!);
    }
  });
});

describe("planWire with compaction state", () => {
  const messages = buildToolLoop({ steps: 60, outputChars: 1000, answer: false });

  test("a summary replaces its span; a second overflow starts a new span where the first ended", () => {
    const first = planWire(messages, options(9_000));
    expect(first.newSpan).toBeDefined();
    const span = first.newSpan!;
    let state = recordSpan(createCompactionState(), span, { summary: "- read src/file-0..n", runId: "run-1", now: NOW });
    expect(state).toEqual({ spans: [{ from: 1, to: span.to, summary: "- read src/file-0..n", createdAt: NOW.toISOString(), runId: "run-1" }] });

    const summarised = planWire(messages, options(9_000, { state }));
    expect(summarised.newSpan).toBeUndefined();
    expect(summarised.messages).toEqual([
      { role: "user", content: `[Summary of messages 2–${span.to}, compacted to fit the context window]\n- read src/file-0..n` },
      messages[0]!,
      ...messages.slice(span.to),
    ]);

    const grown = [...messages, ...buildToolLoop({ steps: 40, outputChars: 1000, idPrefix: "more" }).slice(1)];
    const second = planWire(grown, options(9_000, { state }));
    expect(second.newSpan!.from).toBe(span.to);
    expect(second.messages.slice(0, 3)).toEqual([
      { role: "user", content: `[Summary of messages 2–${span.to}, compacted to fit the context window]\n- read src/file-0..n` },
      marker(second.newSpan!.to - span.to),
      messages[0]!,
    ]);
    state = recordSpan(state, second.newSpan!, { now: NOW });
    const markerOnly = planWire(grown, options(9_000, { state }));
    expect(markerOnly.newSpan).toBeUndefined();
    expect(markerOnly.messages[1]).toEqual(marker(second.newSpan!.to - span.to));
  });

  test("once compacted, the span stays off the wire even when the rest is small", () => {
    const state = recordSpan(createCompactionState(), { from: 1, to: 99 }, { summary: "s", now: NOW });
    const plan = planWire(messages, options(1_000_000, { state }));
    expect(plan.messages).toEqual([
      { role: "user", content: "[Summary of messages 2–99, compacted to fit the context window]\ns" },
      messages[0]!,
      ...messages.slice(99),
    ]);
    expect(plan.pruned).toBe(true);
  });

  test("uncompact sends the full history while it fits, and the summaries again when it does not", () => {
    const compacted = recordSpan(createCompactionState(), { from: 1, to: 99 }, { summary: "s", now: NOW });
    const state = uncompact(compacted, new Date(NOW.getTime() + 1000));
    expect(state.uncompactedAt).toBe("2025-01-02T03:04:06.000Z");
    const full = planWire(messages, options(1_000_000, { state }));
    expect(full.messages).toEqual(messages);
    expect(full.pruned).toBe(false);

    const tight = planWire(messages, options(estimateTokens(messages.slice(99)) + 100, { state }));
    expect(tight.messages).toEqual([
      { role: "user", content: "[Summary of messages 2–99, compacted to fit the context window]\ns" },
      messages[0]!,
      ...messages.slice(99),
    ]);
    expect(tight.newSpan).toBeUndefined();
  });

  test("a span recorded after uncompact puts compaction back in force", () => {
    let state = uncompact(recordSpan(createCompactionState(), { from: 1, to: 49 }, { summary: "a", now: NOW }), NOW);
    expect(planWire(messages, options(1_000_000, { state })).messages).toEqual(messages);
    state = recordSpan(state, { from: 49, to: 99 }, { summary: "b", now: new Date(NOW.getTime() + 5000) });
    const plan = planWire(messages, options(1_000_000, { state }));
    expect(plan.messages).toEqual([
      { role: "user", content: "[Summary of messages 2–49, compacted to fit the context window]\na" },
      { role: "user", content: "[Summary of messages 50–99, compacted to fit the context window]\nb" },
      messages[0]!,
      ...messages.slice(99),
    ]);
  });

  test("recordSpan refuses a span that overlaps the last one", () => {
    const state = recordSpan(createCompactionState(), { from: 1, to: 10 }, { now: NOW });
    expect(() => recordSpan(state, { from: 5, to: 20 })).toThrow("span 5–20 does not follow the last recorded span");
    expect(recordSpan(state, { from: 1, to: 10 }, { summary: "late" }).spans).toEqual([{ from: 1, to: 10, summary: "late", createdAt: NOW.toISOString() }]);
  });

  test("spans that do not fit the history are ignored", () => {
    const state: CompactionState = { spans: [{ from: 1, to: 10_000, summary: "x", createdAt: NOW.toISOString() }] };
    const plan = planWire(messages, options(1_000_000, { state }));
    expect(plan.messages).toEqual(messages);
  });
});

describe("CompactionStateSchema", () => {
  test("accepts a full record and rejects a malformed one", () => {
    const state: CompactionState = {
      spans: [{ from: 1, to: 9, summary: "s", createdAt: NOW.toISOString(), runId: "r" }],
      uncompactedAt: NOW.toISOString(),
      archive: [{ at: NOW.toISOString(), messages: [{ role: "user", content: "hi" }], summary: "s", focus: "tests" }],
    };
    expect(v.parse(CompactionStateSchema, state)).toEqual(state);
    expect(v.safeParse(CompactionStateSchema, { spans: [{ from: -1, to: 2, createdAt: "x" }] }).success).toBe(false);
    expect(v.safeParse(CompactionStateSchema, { spans: [], archive: [{ at: "x", messages: [{ role: "system" }], summary: "" }] }).success).toBe(false);
  });
});

describe("the compacted line", () => {
  test("names both counts", () => {
    const messages = buildToolLoop({ steps: 60, outputChars: 1000 });
    const plan = planWire(messages, options(5_000));
    expect(pruneStats(plan)).toEqual({ before: 122, after: plan.messages.length });
    expect(formatCompactedLine(192, 15)).toBe("context compacted: 192 messages pruned to 15 on the wire");
    expect(renderSegmentText({ from: 4, to: 5 })).toBe(
      "[1 earlier message was removed from the context to fit the window. Use recall_discarded to search them.]",
    );
  });
});

describe("wire invariants over random transcripts", () => {
  const protocols: Protocol[] = ["openai-chat", "openai-responses", "anthropic"];

  test("3000 seeded plans: valid wire, pins kept, exact estimate, spans chain", () => {
    let plans = 0;
    let compactedPlans = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const rng = createRng(seed);
      const full = buildRandomTranscript(rng, 20 + Math.floor(rng() * 200));
      const protocol = protocols[seed % 3]!;
      const thinking = rng() < 0.5;
      const system = "s".repeat(Math.floor(rng() * 2000));
      const threshold = 500 + Math.floor(rng() * 30_000);
      let state = createCompactionState();
      // Grow the history the way a session does, planning at several points, as the loop would.
      for (const share of [0.2, 0.45, 0.7, 0.9, 1]) {
        const messages = full.slice(0, Math.max(1, Math.floor(full.length * share)));
        const plan = planWire(messages, { threshold, protocol, thinking, state, system, auto: true });
        plans += 1;
        const context = `seed ${seed}, share ${share}`;
        expect({ context, violations: findWireViolations(plan.messages) }).toEqual({ context, violations: [] });
        expect(plan.estimate).toBe(estimateTokens(plan.messages, system));
        expect(plan.after).toBe(plan.messages.length);
        const first = messages.findIndex((message) => message.role === "user");
        const newest = messages.findLastIndex((message) => message.role === "user");
        if (newest >= 0) expect({ context, newest: plan.messages.includes(messages[newest]!) }).toEqual({ context, newest: true });
        // Summaries and markers are the wire's only messages not taken from the history (user messages are never copied).
        const fromHistory = new Set(messages);
        const rendered = plan.messages.flatMap((message, at) => (message.role === "user" && !fromHistory.has(message) ? [at] : []));
        // The current request comes after every summary and marker.
        if (newest >= 0) expect({ context, after: rendered.every((at) => at < plan.messages.indexOf(messages[newest]!)) }).toEqual({ context, after: true });
        // The first message is on the wire, or it left with the first span, which opens the wire.
        if (first >= 0 && !plan.messages.includes(messages[first]!)) expect({ context, folded: rendered[0] }).toEqual({ context, folded: 0 });
        // An earlier question is followed by its answer (or, when repair dropped an empty one, the next question): never by a summary.
        for (const [at, message] of plan.messages.entries()) {
          if (message.role !== "user" || !fromHistory.has(message) || message === messages[newest]) continue;
          const index = messages.indexOf(message);
          const next = plan.messages[at + 1];
          const nextQuestion = messages.slice(index + 1).find((later) => later.role === "user");
          const whole = next !== undefined && (next.role !== "user" || next === nextQuestion);
          expect({ context, index, whole }).toEqual({ context, index, whole: true });
        }
        if (protocol === "anthropic" && thinking) {
          const lastAssistant = messages.findLastIndex((message) => message.role === "assistant");
          const covered = Math.max(plan.newSpan?.to ?? 0, state.spans.at(-1)?.to ?? 0);
          const message = messages[lastAssistant] as AssistantMessage | undefined;
          const next = messages[lastAssistant + 1];
          const answered = new Set(next?.role === "tool" ? next.results.map((result) => result.callId) : []);
          const trailing = messages.slice(lastAssistant + 1).every((later) => later.role === "tool");
          const intact =
            message?.parts.some((part) => part.type === "tool-call") &&
            message.parts.every((part) => (part.type === "text" ? part.text.trim() : part.type !== "tool-call" || trailing || answered.has(part.id)));
          if (intact && lastAssistant >= covered) expect({ context, kept: plan.messages.includes(message!) }).toEqual({ context, kept: true });
        }
        if (plan.newSpan) {
          compactedPlans += 1;
          expect(plan.newSpan.from).toBe(state.spans.at(-1)?.to ?? 1);
          expect(plan.newSpan.to).toBeGreaterThan(plan.newSpan.from);
          expect(messages[plan.newSpan.to]!.role).not.toBe("tool");
          state = recordSpan(state, plan.newSpan, rng() < 0.7 ? { summary: `summary ${seed}`, now: NOW } : { now: NOW });
          const again = planWire(messages, { threshold, protocol, thinking, state, system, auto: true });
          plans += 1;
          expect(findWireViolations(again.messages)).toEqual([]);
          expect(again.newSpan === undefined || again.newSpan.from === plan.newSpan.to).toBe(true);
        }
      }
    }
    expect(plans).toBeGreaterThan(3000);
    expect(compactedPlans).toBeGreaterThan(300);
  }, 60_000);
});
