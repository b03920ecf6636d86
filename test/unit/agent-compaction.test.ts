/**
 * Compaction in-process, over every wire protocol: `createAgent` against the fake provider with a
 * 9k-token window, no compiled binary. A 150-step turn of a session continued from an earlier one
 * overflows the threshold several times and still ends because the script ends; every request
 * keeps the earlier exchange whole (or its summary) and ends with the current request; the fake
 * accepts every request; `recall_discarded` brings back a marker only a pruned tool result held;
 * the session and the run's event log on disk record the compactions.
 * test/e2e/compaction.test.ts runs the same through the binary over one protocol; the turn and
 * its expects are test/compaction-case.ts's.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentFlags } from "../../lib/config/flags.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { paths } from "../../lib/platform/paths.ts";
import { CONFIG, expectLongTurn, FIRST_ANSWER, FIRST_PROMPT, MARKER, respondLongTurn, SECOND_PROMPT, STEPS, writeLongTurnFiles } from "../compaction-case.ts";
import { runTurn, useFakeProvider, writeConfig, type Protocol } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-compaction-");

const fake = useFakeProvider({ contextWindow: 9_000 });

const turn = async (cwd: string, protocol: Protocol, prompt: string, flags: Partial<AgentFlags> = {}): Promise<AgentEvent[]> =>
  (await runTurn(fake(), { cwd, protocol, prompt, flags })).events;

for (const protocol of ["chat", "responses", "anthropic"] as const) {
  describe(`compaction over ${protocol}`, () => {
    test(`a ${STEPS}-step turn that overflows the window completes because the script ends`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), "shiro-compaction-cwd-"));
      fake().reset();
      try {
        writeConfig(CONFIG);
        writeLongTurnFiles(cwd);

        fake().script({ text: FIRST_ANSWER });
        expect((await turn(cwd, protocol, FIRST_PROMPT)).at(-1)).toMatchObject({ type: "done", stop: "completed" });

        const summaries = respondLongTurn(fake());
        const events = await turn(cwd, protocol, SECOND_PROMPT, { continue: true });
        fake().respond(() => ({ error: { status: 500, message: "unexpected request" } }));
        expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed", steps: STEPS });
        expect(fake().violations).toEqual([]);

        const compacted = events.filter((event): event is Extract<AgentEvent, { type: "compacted" }> => event.type === "compacted");
        expectLongTurn(fake().requests, compacted, summaries());

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
