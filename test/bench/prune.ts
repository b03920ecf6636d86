/**
 * Benchmark: planning the wire for a 10,000-message history, against serialising that history
 * once with JSON.stringify (the floor: any estimate has to look at every byte). Prints medians
 * and their ratio; the target is under 2 serialisations.
 */
import { DEFAULT_COMPACTION_THRESHOLD, planWire } from "../../lib/agent/context.ts";
import { createCompactionState, recordSpan } from "../../lib/agent/context-state.ts";
import { buildToolLoop } from "../unit/context-transcripts.ts";

const RUNS = 15;

export async function benchPrune(): Promise<void> {
  const messages = buildToolLoop({ steps: 5_000, outputChars: 2_000, reasoning: "anthropic" });
  const base = { threshold: DEFAULT_COMPACTION_THRESHOLD, protocol: "anthropic" as const, thinking: true, system: "s".repeat(4_000), auto: true };
  const first = planWire(messages, { ...base, state: createCompactionState() });
  const compacted = recordSpan(createCompactionState(), first.newSpan!, { summary: "summary ".repeat(200) });

  const serialise = _median(() => JSON.stringify(messages).length);
  const fresh = _median(() => planWire(messages, { ...base, state: createCompactionState() }).after);
  const recorded = _median(() => planWire(messages, { ...base, state: compacted }).after);

  const mb = (JSON.stringify(messages).length / 1e6).toFixed(1);
  console.log(`prune: ${messages.length} messages (${mb} MB of JSON), median of ${RUNS} runs`);
  console.log(`  JSON.stringify            ${serialise.toFixed(2)} ms  (1.00x)`);
  console.log(`  planWire, first overflow  ${fresh.toFixed(2)} ms  (${(fresh / serialise).toFixed(2)}x, target < 2x)`);
  console.log(`  planWire, span recorded   ${recorded.toFixed(2)} ms  (${(recorded / serialise).toFixed(2)}x, target < 2x)`);
}

function _median(run: () => number): number {
  run();
  const times: number[] = [];
  let sink = 0;
  for (let index = 0; index < RUNS; index++) {
    const start = performance.now();
    sink += run();
    times.push(performance.now() - start);
  }
  if (sink < 0) console.log(sink);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

if (import.meta.main) await benchPrune();
