/**
 * Compaction keeps the thread, through the binary, per protocol: a turn resumed with
 * `historyPairs` (the old exchanges as question/answer pairs) that outgrows its window sends a
 * summary of the pruned span, written from the old questions it pruned; no old question is ever
 * on the wire without its answer; and the current request is the last, separate user text of
 * every request (on Anthropic its own last text block, not merged into the summary's). Asserted on
 * the bodies the fake provider received.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest } from "../fakes/provider.ts";
import { fakeEnv, parseEventLines, useE2E } from "./_harness.ts";
import { withPty } from "./_pty.ts";

const STEPS = 30;
const CURRENT = "now the current request: read big.txt many times";
const e2e = useE2E({ contextWindow: 9_000 });
const isSummaryRequest = (request: RecordedRequest) => !request.body.tools || request.body.tools.length === 0;

const question = (k: number) => `old question ${k}: what does module ${k} do? ${"context ".repeat(40).trim()}`;
const answer = (k: number) => `old answer ${k}: module ${k} parses the ${k}th format. ${"detail ".repeat(40).trim()}`;

interface UserTexts {
  /** Every user-role message that carries text, as its text blocks, in order. */
  messages: string[][];
}

/** The user messages with text of a request, each as its separate text blocks, whatever the protocol. */
function userMessages(request: RecordedRequest): UserTexts {
  const list = (request.body.messages ?? request.body.input ?? []) as any[];
  const messages: string[][] = [];
  for (const message of list) {
    if (message.role !== "user") continue;
    const blocks =
      typeof message.content === "string"
        ? [message.content]
        : (message.content as any[]).filter((part) => part.type === "text" || part.type === "input_text").map((part) => part.text as string);
    if (blocks.length > 0) messages.push(blocks);
  }
  return { messages };
}

for (const protocol of ["chat", "responses", "anthropic"] as const) {
  describe(`compaction keeps the thread over ${protocol}`, () => {
    test("a resumed historyPairs turn that compacts sends a summary of the pruned span, no unanswered old question, and the current request last", async () => {
      const { dirs, fake } = e2e;
      writeFileSync(join(dirs.cwd, "big.txt"), Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n"));
      e2e.writeConfig({ maxSteps: 100, historyPairs: 3, compaction: { threshold: 4_000 } });
      // The four old exchanges come from one REPL session (one launch, not four `-p … -c` runs).
      fake.script(...Array.from({ length: 4 }, (_, k) => ({ text: answer(k) })));
      await withPty({ cwd: dirs.cwd, home: dirs.home, env: fakeEnv(fake.baseURL, protocol) }, async (repl) => {
        let at = 0;
        for (let k = 0; k < 4; k++) {
          repl.type(`${question(k)}\r`);
          at = await repl.until(`old answer ${k}:`, at);
          at = await repl.until("in context", at);
        }
        repl.type("/exit\r");
        await repl.until("Good bye.", at);
        expect(await repl.exited).toBe(0);
      });
      expect(fake.requests.map((request) => userMessages(request).messages.flat().at(-1))).toEqual([0, 1, 2, 3].map(question));
      expect(fake.violations).toEqual([]);
      fake.reset();

      let step = 0;
      const summaryPrompts: string[] = [];
      fake.respond((request) => {
        if (isSummaryRequest(request)) {
          summaryPrompts.push(JSON.stringify(request.body));
          return { text: `## Goal\n- summary ${summaryPrompts.length}: modules explained, reading big.txt` };
        }
        step += 1;
        if (step > STEPS) return { text: "Read it many times." };
        return { text: `Step ${step}.`, toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: (step % 5) + 1 } }] };
      });
      const resumed = await e2e.shiro(["-p", CURRENT, "-c", "--json"], { protocol, timeoutMs: 120_000 });
      expect(resumed.code).toBe(0);
      const events = parseEventLines(resumed.stdout);
      expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed" });
      expect(fake.violations).toEqual([]);

      const loop = fake.requests.filter((request) => !isSummaryRequest(request));
      expect(loop).toHaveLength(STEPS + 1);
      // The first request is the three pairs historyPairs keeps, then the current request.
      expect(userMessages(loop[0]!).messages.flat()).toEqual([question(1), question(2), question(3), CURRENT]);

      // It compacted, and the span that left was summarised, from the old questions it took.
      const compacted = events.filter((event) => event.type === "compacted");
      expect(compacted.length).toBeGreaterThan(0);
      expect(compacted.every((event) => typeof event.summary === "string")).toBe(true);
      expect(summaryPrompts.length).toBeGreaterThan(0);
      expect(summaryPrompts[0]).toContain("old question 1");
      expect(summaryPrompts[0]).toContain("old answer 1");

      let summarised = 0;
      for (const request of loop) {
        const body = JSON.stringify(request.body);
        const { messages } = userMessages(request);
        // No old question without its answer.
        for (let k = 1; k < 4; k++)
          if (body.includes(`old question ${k}:`)) expect({ k, answered: body.includes(`old answer ${k}:`) }).toEqual({ k, answered: true });
        // No span is off the wire without its summary.
        expect(body).not.toContain("were removed from the context");
        // The current request is the last user text, a block of its own.
        expect(messages.at(-1)!.at(-1)).toBe(CURRENT);
        if (!body.includes("[Summary of messages")) continue;
        summarised += 1;
        expect(body).toContain("modules explained, reading big.txt");
        const blocks = messages.flat();
        const summaryAt = blocks.findIndex((text) => text.startsWith("[Summary of messages"));
        expect(summaryAt).toBeLessThan(blocks.length - 1);
        expect(blocks.at(-1)).toBe(CURRENT);
        // Anthropic merges neighbouring user messages: the summary and the request stay separate blocks of one.
        if (protocol === "anthropic") expect(messages.at(-1)!.length).toBeGreaterThan(1);
      }
      expect(summarised).toBeGreaterThan(0);
    }, 180_000);
  });
}
