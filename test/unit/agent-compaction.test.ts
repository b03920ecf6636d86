/**
 * Compaction in-process, over every wire protocol: `createAgent` against the fake provider with a
 * 9k-token window, no compiled binary. A 150-step turn of a session continued from an earlier one
 * overflows the threshold several times and still ends because the script ends; every request
 * keeps the earlier exchange whole (or its summary) and ends with the current request; the fake
 * accepts every request; `recall_discarded` brings back a marker only a pruned tool result held;
 * the session and the run's event log on disk record the compactions.
 * test/e2e/compaction.test.ts runs the same through the binary over one protocol.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentFlags } from "../../lib/config/flags.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { paths } from "../../lib/platform/paths.ts";
import type { RecordedRequest } from "../fakes/provider.ts";
import { toolResultsOf, userTextsOf } from "../fakes/wire-readers.ts";
import { runTurn, useFakeProvider, type Protocol } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-compaction-");

const STEPS = 150;
const MARKER = "MARKER-7731-only-in-a-pruned-result";
const fake = useFakeProvider({ contextWindow: 9_000 });

const isSummaryRequest = (request: RecordedRequest) => !request.body.tools || request.body.tools.length === 0;
const turn = async (cwd: string, protocol: Protocol, prompt: string, flags: Partial<AgentFlags> = {}): Promise<AgentEvent[]> =>
  (await runTurn(fake(), { cwd, protocol, prompt, flags })).events;

for (const protocol of ["chat", "responses", "anthropic"] as const) {
  describe(`compaction over ${protocol}`, () => {
    test(`a ${STEPS}-step turn that overflows the window completes because the script ends`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), "shiro-compaction-cwd-"));
      fake().reset();
      try {
        mkdirSync(dirname(paths.config()), { recursive: true });
        writeFileSync(paths.config(), JSON.stringify({ maxSteps: 200, compaction: { threshold: 4_000 } }));
        writeFileSync(join(cwd, "marker.txt"), `${MARKER}\n`);
        writeFileSync(join(cwd, "big.txt"), Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n"));

        fake().script({ text: "First answer: the project is small." });
        expect((await turn(cwd, protocol, "first task: look around")).at(-1)).toMatchObject({ type: "done", stop: "completed" });

        let step = 0;
        let summaries = 0;
        fake().respond((request) => {
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
        const events = await turn(cwd, protocol, "second task: read big.txt many times", { continue: true });
        fake().respond(() => ({ error: { status: 500, message: "unexpected request" } }));
        expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed", steps: STEPS });
        expect(fake().violations).toEqual([]);

        const loop = fake()
          .requests.slice(1)
          .filter((request) => !isSummaryRequest(request));
        expect(loop).toHaveLength(STEPS);
        for (const request of loop) {
          const users = userTextsOf(request);
          // The current request is the last user text, after any summary.
          expect(users.at(-1)).toBe("second task: read big.txt many times");
          const body = JSON.stringify(request.body);
          // The first exchange is on the wire whole, or it left with the first span and its summary stands for it.
          if (users.includes("first task: look around")) expect(body).toContain("First answer: the project is small.");
          else expect(body).toContain("[Summary of messages 1–");
          expect(body).not.toContain("were removed from the context");
        }
        const compacted = events.filter((event): event is Extract<AgentEvent, { type: "compacted" }> => event.type === "compacted");
        expect(compacted.length).toBeGreaterThan(1);
        expect(compacted.some((event) => typeof event.summary === "string")).toBe(true);
        expect(summaries).toBeGreaterThan(1);
        expect(loop.some((request) => JSON.stringify(request.body).includes("summary 1: reading big.txt"))).toBe(true);

        expect(toolResultsOf(loop[STEPS - 1]!).at(-1)!.output).toContain(MARKER);
        expect(JSON.stringify(loop[STEPS - 2]!.body)).not.toContain(MARKER);

        const run = events[0] as Extract<AgentEvent, { type: "run-start" }>;
        const saved = JSON.parse(readFileSync(paths.session(run.sessionId), "utf8"));
        expect(saved.compaction.spans.length).toBe(compacted.filter((event) => event.span).length);
        expect(JSON.stringify(saved.messages)).toContain(MARKER);
        expect(readFileSync(paths.events(run.runId), "utf8")).toContain('"type":"compacted"');
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    }, 150_000);
  });
}
