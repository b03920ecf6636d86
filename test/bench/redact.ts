/**
 * Benchmark: what the redactor adds to a session save. A 1,000-step session whose tool results
 * are slices of this repository's own sources is redacted (`redactValue`) and compared with
 * serialising it once (`JSON.stringify`, which every save pays anyway). Cold: every string is new
 * (the first save after loading); warm: the same strings again (every later save, served by the
 * redactor's cache). Prints medians and ratios.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../../lib/messages.ts";
import { redactValue } from "../../lib/secrets/redact.ts";

const RUNS = 11;
const STEPS = 1_000;
const OUTPUT_CHARS = 2_000;

function _sources(): string {
  const root = join(import.meta.dir, "..", "..", "lib");
  const files = readdirSync(root, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".ts"));
  return files.map((name) => readFileSync(join(root, name), "utf8")).join("\n");
}

function _session(text: string, salt: string): Message[] {
  const messages: Message[] = [{ role: "user", content: "Fix the failing tests." }];
  for (let step = 0; step < STEPS; step++) {
    const start = (step * 7_919) % Math.max(1, text.length - OUTPUT_CHARS);
    messages.push({
      role: "assistant",
      parts: [
        { type: "text", text: `Reading part ${step}.` },
        { type: "tool-call", id: `c${step}`, name: "read_file", input: { path: `f${step}.ts` } },
      ],
    });
    messages.push({
      role: "tool",
      results: [{ type: "tool-result", callId: `c${step}`, name: "read_file", output: `${salt}${text.slice(start, start + OUTPUT_CHARS)}` }],
    });
  }
  return messages;
}

export async function benchRedact(): Promise<void> {
  const text = _sources();
  let run = 0;
  const serialise = _median(
    () => _session(text, "s"),
    (messages) => JSON.stringify(messages).length,
  );
  const cold = _median(
    () => _session(text, `${++run} `),
    (messages) => (redactValue(messages) as Message[]).length,
  );
  const warmSession = _session(text, "warm ");
  redactValue(warmSession);
  const warm = _median(
    () => warmSession,
    (messages) => (redactValue(messages) as Message[]).length,
  );
  const mb = (JSON.stringify(warmSession).length / 1e6).toFixed(1);
  console.log(`redact: ${STEPS * 2 + 1} messages (${mb} MB of JSON), median of ${RUNS} runs`);
  console.log(`  JSON.stringify          ${serialise.toFixed(2)} ms  (1.00x)`);
  console.log(`  redactValue, new text   ${cold.toFixed(2)} ms  (${(cold / serialise).toFixed(2)}x)`);
  console.log(`  redactValue, same text  ${warm.toFixed(2)} ms  (${(warm / serialise).toFixed(2)}x, cached)`);
}

function _median(prepare: () => Message[], measure: (messages: Message[]) => number): number {
  const times: number[] = [];
  let sink = 0;
  for (let index = 0; index < RUNS; index++) {
    const messages = prepare();
    const start = performance.now();
    sink += measure(messages);
    times.push(performance.now() - start);
  }
  if (sink < 0) console.log(sink);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

if (import.meta.main) await benchRedact();
