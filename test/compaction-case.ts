/**
 * The long compacting turn shared by test/e2e/compaction.test.ts (through the binary, over one
 * protocol) and test/unit/agent-compaction.test.ts (in-process, over every protocol): the files and
 * config of its folder, the script of its 150 steps, and what its requests and compacted events
 * must show. The first turn answers `FIRST_ANSWER` to `FIRST_PROMPT`; the second, `SECOND_PROMPT`
 * continuing the session, reads the marker, then big.txt until the step before last recalls it.
 */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeProvider, RecordedRequest } from "./fakes/provider.ts";
import { isSummaryRequest, toolResultsOf, userTextsOf } from "./fakes/wire-readers.ts";

export const STEPS = 150;
export const MARKER = "MARKER-7731-only-in-a-pruned-result";
export const CONFIG = { maxSteps: 200, compaction: { threshold: 4_000 } };
export const FIRST_PROMPT = "first task: look around";
export const FIRST_ANSWER = "First answer: the project is small.";
export const SECOND_PROMPT = "second task: read big.txt many times";

/** marker.txt and big.txt in `cwd`. */
export function writeLongTurnFiles(cwd: string): void {
  writeFileSync(join(cwd, "marker.txt"), `${MARKER}\n`);
  writeFileSync(join(cwd, "big.txt"), Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n"));
}

/** Scripts the second turn on `fake`; the getter counts the summaries asked for so far. */
export function respondLongTurn(fake: FakeProvider): () => number {
  let step = 0;
  let summaries = 0;
  fake.respond((request) => {
    if (isSummaryRequest(request)) {
      summaries += 1;
      return { text: `## Goal\n- summary ${summaries}: reading big.txt repeatedly` };
    }
    step += 1;
    if (step === 1) return { reasoning: "start with the marker", toolCalls: [{ name: "read_file", input: { path: "marker.txt" } }] };
    if (step === STEPS - 1) return { toolCalls: [{ name: "recall_discarded", input: { query: "MARKER-7731" } }] };
    if (step === STEPS) return { text: `Finished after ${STEPS} steps.` };
    return { reasoning: `step ${step}`, text: `Step ${step}.`, toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: (step % 5) + 1 } }] };
  });
  return () => summaries;
}

/**
 * The second turn's requests (all after the first turn's one) and its compacted events: every loop
 * request keeps the first exchange whole or its summary and ends with the current request, the turn
 * compacted more than once, and recall_discarded brought back the marker a pruned result held.
 */
export function expectLongTurn(requests: readonly RecordedRequest[], compacted: readonly { summary?: unknown }[], summaries: number): void {
  const loop = requests.slice(1).filter((request) => !isSummaryRequest(request));
  expect(loop).toHaveLength(STEPS);
  for (const request of loop) {
    const users = userTextsOf(request);
    // The current request is the last user text, after any summary.
    expect(users.at(-1)).toBe(SECOND_PROMPT);
    const body = JSON.stringify(request.body);
    // The first exchange is on the wire whole, or it left with the first span and its summary stands for it.
    if (users.includes(FIRST_PROMPT)) expect(body).toContain(FIRST_ANSWER);
    else expect(body).toContain("[Summary of messages 1–");
    expect(body).not.toContain("were removed from the context");
  }
  expect(compacted.length).toBeGreaterThan(1);
  expect(compacted.some((event) => typeof event.summary === "string")).toBe(true);
  expect(summaries).toBeGreaterThan(1);
  expect(loop.some((request) => JSON.stringify(request.body).includes("summary 1: reading big.txt"))).toBe(true);

  expect(toolResultsOf(loop[STEPS - 1]!).at(-1)!.output).toContain(MARKER);
  expect(JSON.stringify(loop[STEPS - 2]!.body)).not.toContain(MARKER);
}
