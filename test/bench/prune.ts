/**
 * Benchmark: planning the wire for a 10,000-message history, against serialising that history
 * once with JSON.stringify (the floor: any estimate has to look at every byte). Prints medians
 * and their ratio; the target is under 2 serialisations.
 *
 * planWire caches each message's size by object, so a step only measures what is new. The cold
 * rows time a fresh copy of the history each run (nothing cached: the cost of the first plan);
 * the warm row times the same history again (the cost of every later step).
 */
import { DEFAULT_COMPACTION_THRESHOLD, planWire } from "../../lib/agent/context/planner.ts";
import { createCompactionState, recordSpan } from "../../lib/context-state/state.ts";
import { buildToolLoop } from "../unit/context-transcripts.ts";

const RUNS = 15;

let messages: ReturnType<typeof buildToolLoop> = [];

export async function benchPrune(): Promise<void> {
  messages = buildToolLoop({ steps: 5_000, outputChars: 2_000, reasoning: "anthropic" });
  const base = { threshold: DEFAULT_COMPACTION_THRESHOLD, protocol: "anthropic" as const, thinking: true, system: "s".repeat(4_000), auto: true };
  const first = planWire(messages, { ...base, state: createCompactionState() });
  const compacted = recordSpan(createCompactionState(), first.newSpan!, { summary: "summary ".repeat(200) });

  const serialise = _median(() => JSON.stringify(messages).length);
  const fresh = _median(
    () => planWire(messages, { ...base, state: createCompactionState() }).after,
    () => messages.map((message) => ({ ...message })),
  );
  const recorded = _median(
    () => planWire(messages, { ...base, state: compacted }).after,
    () => messages.map((message) => ({ ...message })),
  );
  const warm = _median(() => planWire(messages, { ...base, state: compacted }).after);

  const mb = (JSON.stringify(messages).length / 1e6).toFixed(1);
  console.log(`prune: ${messages.length} messages (${mb} MB of JSON), median of ${RUNS} runs`);
  console.log(`  JSON.stringify            ${serialise.toFixed(2)} ms  (1.00x)`);
  console.log(`  planWire, first overflow  ${fresh.toFixed(2)} ms  (${(fresh / serialise).toFixed(2)}x, cold, target < 2x)`);
  console.log(`  planWire, span recorded   ${recorded.toFixed(2)} ms  (${(recorded / serialise).toFixed(2)}x, cold, target < 2x)`);
  console.log(`  planWire, next step       ${warm.toFixed(2)} ms  (${(warm / serialise).toFixed(2)}x, sizes cached)`);
}

/** `fresh` replaces the history with new objects before each timed run (untimed), emptying the size cache. */
function _median(run: () => number, fresh?: () => unknown[]): number {
  run();
  const times: number[] = [];
  let sink = 0;
  for (let index = 0; index < RUNS; index++) {
    if (fresh) messages.splice(0, messages.length, ...(fresh() as typeof messages));
    const start = performance.now();
    sink += run();
    times.push(performance.now() - start);
  }
  if (sink < 0) console.log(sink);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

if (import.meta.main) await benchPrune();
