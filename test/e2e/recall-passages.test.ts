/**
 * Recall finds what was said, through the built binary, per wire protocol: a fact stated only in
 * the thirtieth paragraph of a long prompt in session 1 is the top recall result in a later
 * session for a paraphrased question (and sits in that session's injected memory when the
 * question is its request); a session's own recall call and result are bookkeeping, so a later
 * recall of the same words does not return them. Assertions are on what the fake provider
 * received.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { systemOf, toolResultsOf, useE2E, type WireProtocol } from "./_harness.ts";

const PROTOCOLS = ["chat", "responses", "anthropic"] as const;
const e2e = useE2E();

const FILLER = [
  "We went over the onboarding checklist again and agreed the wording needs another pass before launch.",
  "Somebody raised the coffee budget, which took ten minutes nobody will get back.",
  "The design review moved to Thursday because half the team was travelling.",
  "We compared three note-taking apps and did not pick one.",
  "The quarterly survey results were mostly about the office temperature.",
];
const FACT = "Priya mentioned that her brother Tomasz is moving to Wellington in February to start a job at the observatory.";
const QUESTION = "which city is Priya's brother relocating to for his new observatory position?";

function _longPrompt(): string {
  const paragraphs = Array.from({ length: 40 }, (_, i) => `${i + 1}. ${FILLER[i % FILLER.length]} ${FILLER[(i + 2) % FILLER.length]}`);
  paragraphs[29] = `30. ${FACT}`;
  return `Here are my notes from the offsite, keep them for later:\n\n${paragraphs.join("\n\n")}`;
}

const sessionIds = () =>
  readdirSync(join(e2e.dirs.home, ".shiro-neko", "sessions"))
    .filter((name) => name.endsWith(".json"))
    .map((name) => name.slice(0, -5))
    .sort();

async function _recall(prompt: string, query: string, protocol: WireProtocol): Promise<{ output: string }> {
  const before = e2e.fake.requests.length;
  e2e.fake.script({ toolCalls: [{ name: "recall", input: { query } }] }, { text: "Recalled." });
  const result = await e2e.shiro(["-p", prompt], { protocol });
  expect(result.code).toBe(0);
  const outputs = toolResultsOf(e2e.fake.requests[before + 1]!).map((entry) => entry.output);
  expect(outputs).toHaveLength(1);
  return { output: outputs[0]! };
}

for (const protocol of PROTOCOLS) {
  describe(`recall over passages, ${protocol}`, () => {
    test("a fact in paragraph 30 of session 1 is the top result for a paraphrase; an earlier recall is not a result", async () => {
      e2e.fake.script({ text: "Noted." });
      expect((await e2e.shiro(["-p", _longPrompt()], { protocol })).code).toBe(0);
      const [first] = sessionIds();

      const second = await _recall("what do you know about this?", QUESTION, protocol);
      const lines = second.output.split("\n");
      expect(lines[0]).toStartWith(`transcript session ${first!.slice(0, 8)}`);
      expect(lines[0]).toContain("Tomasz is moving to Wellington in February");

      // Session 2's recall call and its result (which quotes the fact) are bookkeeping: a later
      // recall of the same words finds session 1 and nothing of session 2.
      const third = await _recall("what do you know about this?", QUESTION, protocol);
      expect(third.output.split("\n")[0]).toBe(lines[0]!);
      expect(third.output).not.toContain("recall");
      expect(third.output.split("\n").filter((line) => line.includes("Wellington") || line.includes("relocating"))).toEqual([lines[0]!]);

      // The same ranking chooses the memory a request carries: asked as the request, the fact is in the prompt already.
      const before = e2e.fake.requests.length;
      e2e.fake.script({ text: "Wellington." });
      expect((await e2e.shiro(["-p", QUESTION], { protocol })).code).toBe(0);
      expect(systemOf(e2e.fake.requests[before]!)).toContain("Tomasz is moving to Wellington in February");
    }, 60_000);
  });
}
