import { describe, expect, test } from "bun:test";
import type { Message } from "../../lib/messages.ts";
import { planWire } from "../../lib/agent/context/planner.ts";
import { createCompactionState, recordSpan, type CompactionState } from "../../lib/context-state/state.ts";
import {
  LEDGER_OUTPUT_CAP,
  SUMMARY_PROMPT_CAP,
  applyManualCompaction,
  buildManualCompactRequest,
  buildSpanSummaryRequest,
  formatLedgerResult,
  parseSummary,
  renderTranscript,
  searchLedger,
} from "../../lib/context-state/span-summaries.ts";
import { createRecallDiscardedTool } from "../../lib/tools/recall-discarded.ts";
import { toToolSpec } from "../../lib/tools/schema.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { buildToolLoop } from "./context-transcripts.ts";
import { buildFakeSecrets } from "../fixtures/fake-secrets.ts";

const NOW = new Date("2025-01-02T03:04:05.000Z");

describe("span summary request", () => {
  test("asks for the budgeted sections and renders calls and results compactly", () => {
    const span: Message[] = [
      { role: "user", content: "Make the build green." },
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "secret chain of thought", protocol: "anthropic", signature: "s" },
          { type: "text", text: "Running the build." },
          { type: "tool-call", id: "c1", name: "bash", input: { command: "y".repeat(400) } },
        ],
      },
      { role: "tool", results: [{ type: "tool-result", callId: "c1", name: "bash", output: "z".repeat(2000), isError: true }] },
    ];
    const { system, prompt } = buildSpanSummaryRequest(span, { budgetTokens: 800, focus: "the failing test" });
    expect(system).toContain("coding agent");
    expect(prompt).toContain("at most 800 tokens");
    expect(prompt).toContain("## Goal\n## Decisions\n## Files touched\n## Commands and outcomes\n## Dead ends\n## Open questions");
    expect(prompt).toContain("Pay most attention to: the failing test");
    const args = JSON.stringify({ command: "y".repeat(400) });
    expect(prompt).toContain(
      `<history>\n[user] Make the build green.\n[assistant] Running the build.\n[call] bash(${args.slice(0, 300)}… [${args.length - 300} more chars])\n[bash error] ${"z".repeat(1500)}… [500 more chars]\n</history>`,
    );
    expect(prompt).not.toContain("secret chain of thought");
    expect(buildSpanSummaryRequest(span).prompt).toContain("at most 1200 tokens");
  });

  test("a huge span keeps its start and end within the cap", () => {
    const span = buildToolLoop({ steps: 400, outputChars: 3000 });
    const rendered = renderTranscript(span);
    expect(rendered.length).toBeLessThanOrEqual(SUMMARY_PROMPT_CAP);
    expect(rendered.startsWith("[user] Fix the failing tests in src/.")).toBe(true);
    expect(rendered.endsWith("[assistant] All tests pass now.")).toBe(true);
    expect(rendered).toMatch(/\[… \d+ entries left out to fit the summary request …\]/);
  });

  test("parseSummary trims and rejects an empty reply", () => {
    expect(parseSummary("  ## Goal\n- x \n")).toBe("## Goal\n- x");
    expect(parseSummary(" \n\t")).toBeUndefined();
  });
});

describe("manual compaction", () => {
  const messages = buildToolLoop({ steps: 2, outputChars: 30 });

  test("the request names the sections and the focus", () => {
    const { prompt } = buildManualCompactRequest(messages, "the parser");
    expect(prompt).toContain("## Goal\n## Files touched\n## Decisions\n## Commands and outcomes\n## What remains");
    expect(prompt).toContain("Pay most attention to: the parser");
    expect(prompt).toContain('[call] read_file({"path":"src/file-1.ts"})');
  });

  test("replaces the transcript with one summary message and archives it verbatim", () => {
    const earlier: CompactionState = {
      spans: [{ from: 1, to: 3, summary: "s", createdAt: NOW.toISOString() }],
      uncompactedAt: NOW.toISOString(),
      archive: [{ at: "2024-12-01T00:00:00.000Z", messages: [{ role: "user", content: "old" }], summary: "older" }],
    };
    const result = applyManualCompaction(messages, earlier, "\n- goal: tests\n", " parser ", NOW);
    expect(result).toEqual({
      messages: [{ role: "user", content: "Summary of the session so far:\n\n- goal: tests" }],
      state: {
        spans: [],
        archive: [earlier.archive![0]!, { at: NOW.toISOString(), messages, summary: "- goal: tests", focus: "parser" }],
      },
    });
  });

  test("an empty session is left alone, an empty summary is refused", () => {
    const state = createCompactionState();
    const result = applyManualCompaction([], state, "anything");
    expect(result.state).toBe(state);
    expect(result.messages).toEqual([]);
    expect(() => applyManualCompaction(messages, state, "  ")).toThrow("the summary is empty, so the session was left as it was");
  });
});

describe("ledger search", () => {
  const history: Message[] = [...buildToolLoop({ prompt: "Investigate the crash.", steps: 30, outputChars: 1500, idPrefix: "a", answer: false })];
  const buried = 6;
  const secret = "Segfault at 0xDEADBEEF in parse_header (MARKER-7731)";
  const original = history[buried] as Extract<Message, { role: "tool" }>;
  history[buried] = { role: "tool", results: [{ ...original.results[0]!, name: "bash", output: `${"a".repeat(2000)}${secret}${"b".repeat(2000)}` }] };
  const onWireOnly = "ONLY-ON-THE-WIRE-5120";
  const lastTool = history.length - 1;
  const last = history[lastTool] as Extract<Message, { role: "tool" }>;
  history[lastTool] = { role: "tool", results: [{ ...last.results[0]!, output: onWireOnly }] };

  const plan = planWire(history, { threshold: 4_000, protocol: "openai-chat", thinking: false, state: createCompactionState(), auto: true });
  const state = recordSpan(createCompactionState(), plan.newSpan!, { now: NOW });

  test("finds a string that exists only in a pruned tool result, verbatim, with its message number and tool", () => {
    expect(plan.newSpan!.to).toBeGreaterThan(buried);
    expect(JSON.stringify(plan.messages)).not.toContain("MARKER-7731");
    const found = searchLedger(history, state, "marker-7731 0xdeadbeef");
    expect(found.matches).toBe(1);
    expect(found.excerpts).toHaveLength(1);
    expect(found.excerpts[0]!.label).toBe(`message ${buried + 1}, bash result`);
    const text = found.excerpts[0]!.text;
    expect(text).toContain(secret);
    expect(text.startsWith("…")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
    expect(text.length).toBe(402);
    expect(formatLedgerResult(found)).toBe(`[message ${buried + 1}, bash result]\n${text}`);
  });

  test("every term must match, and history still on the wire is not searched", () => {
    expect(searchLedger(history, state, "MARKER-7731 absent-word").matches).toBe(0);
    expect(searchLedger(history, state, onWireOnly).matches).toBe(0);
    expect(searchLedger(history, state, "   ").matches).toBe(0);
    expect(searchLedger(history, createCompactionState(), "MARKER-7731").matches).toBe(0);
  });

  test("newest first, bounded in count and in total size", () => {
    const many = searchLedger(history, state, "src/file", { maxExcerpts: 3 });
    expect(many.excerpts.map((excerpt) => excerpt.label)).toEqual([
      `message ${plan.newSpan!.to}, read_file result`,
      `message ${plan.newSpan!.to - 1}, assistant`,
      `message ${plan.newSpan!.to - 2}, read_file result`,
    ]);
    expect(many.matches).toBeGreaterThan(3);
    expect(formatLedgerResult(many)).toEndWith(`${many.matches - 3} more matches not shown; add words to the query to narrow it.`);
    const wide = searchLedger(history, state, "src/file", { maxExcerpts: 100, excerptChars: 5000 });
    expect(formatLedgerResult(wide).length).toBeLessThanOrEqual(LEDGER_OUTPUT_CAP);
    expect(wide.excerpts.length).toBeGreaterThan(0);
  });

  test("the first message is searched once it is an earlier question, which left the wire with the first span", () => {
    expect(searchLedger(history, state, "Investigate the crash").matches).toBe(0);
    const later: Message[] = [...history, { role: "user", content: "Now something else." }];
    const found = searchLedger(later, state, "Investigate the crash");
    expect(found.excerpts.map((excerpt) => excerpt.label)).toEqual(["message 1, user"]);
  });

  test("searches transcripts archived by /compact", () => {
    const compacted = applyManualCompaction(history, state, "summary", undefined, NOW);
    const found = searchLedger(compacted.messages, compacted.state, "0xDEADBEEF");
    expect(found.excerpts.map((excerpt) => excerpt.label)).toEqual([`archived transcript 1, message ${buried + 1}, bash result`]);
  });
});

describe("recall_discarded tool", () => {
  const ctx: ToolContext = { root: "/tmp", signal: new AbortController().signal, emitOutput: () => {}, callId: "t1" };
  const history: Message[] = [
    { role: "user", content: "start" },
    {
      role: "assistant",
      parts: [
        { type: "text", text: "checking" },
        { type: "tool-call", id: "c1", name: "grep", input: { pattern: "TODO" } },
      ],
    },
    { role: "tool", results: [{ type: "tool-result", callId: "c1", name: "grep", output: "src/a.ts:3: TODO remove the retry hack" }] },
    { role: "assistant", parts: [{ type: "text", text: "now the tail" }] },
  ];
  let state = recordSpan(createCompactionState(), { from: 1, to: 3 }, { now: NOW });
  const tool = createRecallDiscardedTool(() => ({ messages: history, state }));

  test("returns excerpts or says nothing matched", async () => {
    expect(await tool.execute({ query: "retry hack" }, ctx)).toBe("[message 3, grep result]\nsrc/a.ts:3: TODO remove the retry hack");
    expect(await tool.execute({ query: " nothing-like-this " }, ctx)).toBe('Nothing in the compacted history matches "nothing-like-this".');
    state = createCompactionState();
    expect(await tool.execute({ query: "retry" }, ctx)).toBe('Nothing in the compacted history matches "retry".');
    await expect(tool.execute({ query: "  " }, ctx)).rejects.toThrow("query is empty: give one or more words to search for");
  });

  test("is a read-only session tool with a query argument", () => {
    expect([tool.effect, tool.decision]).toEqual(["read", "allow"]);
    expect(tool.set).toBeUndefined();
    const spec = toToolSpec(tool);
    expect(spec.name).toBe("recall_discarded");
    expect(spec.inputSchema).toEqual({
      type: "object",
      properties: { query: { type: "string", description: "words every matching message contains" } },
      required: ["query"],
    });
    expect(spec.description.startsWith("Search this session's history that compaction took out of your context")).toBe(true);
  });
});

describe("ledger excerpts are redacted before they are cut", () => {
  const token = buildFakeSecrets().find((secret) => secret.kind === "github-token")!.value;
  const history: Message[] = [...buildToolLoop({ prompt: "Investigate the crash.", steps: 30, outputChars: 1500, idPrefix: "k", answer: false })];
  const original = history[6] as Extract<Message, { role: "tool" }>;
  history[6] = { role: "tool", results: [{ ...original.results[0]!, name: "bash", output: `${"a".repeat(2000)} MARKER-4242 ${token} ${"b".repeat(2000)}` }] };
  const plan = planWire(history, { threshold: 4_000, protocol: "openai-chat", thinking: false, state: createCompactionState(), auto: true });
  const state = recordSpan(createCompactionState(), plan.newSpan!, { now: NOW });

  test("an excerpt window that ends inside a key keeps no part of it", () => {
    for (const width of [20, 24, 30, 40]) {
      const { excerpts } = searchLedger(history, state, "MARKER-4242", { excerptChars: width });
      const text = excerpts[0]!.text;
      expect({ width, marker: text.includes("MARKER-4242"), prefix: text.includes(token.slice(0, 4)) }).toEqual({ width, marker: true, prefix: false });
    }
  });
});
