/**
 * Windows and overflow in-process, over every wire protocol: `createAgent` against the fake
 * provider with a 16k-token window, no compiled binary. With `contextWindow` set and no threshold
 * a 60-step turn compacts ahead of the window and the fake refuses nothing, and so does the next
 * turn of a new agent that continues the session with `historyPairs: 2`; a context-length error
 * in each vendor's wording compacts and retries the step; an overflow compacting cannot shrink
 * ends the turn with the numbers, never resending a body. test/e2e/overflow.test.ts keeps one
 * protocol of each through the binary (what it prints, its exit code, `-c` in a new process).
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentFlags } from "../../lib/config/flags.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { paths } from "../../lib/platform/paths.ts";
import type { FakeStep, RecordedRequest } from "../fakes/provider.ts";
import { isSummaryRequest } from "../fakes/wire-readers.ts";
import { runTurn, useFakeProvider, writeConfig, type Protocol } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-overflow-");

const STEPS = 60;
const fake = useFakeProvider({ contextWindow: 16_000 });
let cwd: string;

const bytesOf = (request: RecordedRequest) => JSON.stringify(request.body).length;
const done = (events: readonly AgentEvent[]) => events.find((event) => event.type === "done") as Extract<AgentEvent, { type: "done" }>;
const notices = (events: readonly AgentEvent[]) => events.flatMap((event) => (event.type === "notice" ? [event.text] : []));
const errors = (events: readonly AgentEvent[]) => events.flatMap((event) => (event.type === "error" ? [event.error] : []));
const answer = (events: readonly AgentEvent[]) => events.flatMap((event) => (event.type === "text" ? [event.text] : [])).join("");

function writeBigFile(): void {
  writeFileSync(join(cwd, "big.txt"), Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n"));
}

/** One turn of a fresh agent (closed after it), with its events. */
const turn = (protocol: Protocol, prompt: string, flags: Partial<AgentFlags> = {}) => runTurn(fake(), { cwd, protocol, prompt, flags });

/** A responder for a turn of `steps` read_file (or grep) steps then an answer; summaries answered apart. */
function respondWithSteps(steps: number, text: string, tool: "read_file" | "grep" = "read_file"): { tools: () => number } {
  let step = 0;
  fake().respond((request) => {
    if (isSummaryRequest(request)) return { text: "## Goal\n- read big.txt again and again" };
    step += 1;
    if (step > steps) return { text };
    const input = tool === "read_file" ? { path: "big.txt", offset: (step % 7) + 1 } : { pattern: `line|x{${(step % 7) + 1}}` };
    return { text: `Step ${step}.`, toolCalls: [{ name: tool, input }] };
  });
  return { tools: () => Math.min(step, steps) };
}

function inFreshFolder(run: () => Promise<void>): () => Promise<void> {
  return async () => {
    cwd = mkdtempSync(join(tmpdir(), "shiro-overflow-cwd-"));
    fake().reset();
    try {
      await run();
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  };
}

const WORDING: Record<Protocol, FakeStep["error"]> = {
  chat: {
    status: 400,
    code: "context_length_exceeded",
    message: "This model's maximum context length is 6000 tokens. However, your messages resulted in 9000 tokens.",
  },
  responses: {
    status: 400,
    code: "context_length_exceeded",
    message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
  },
  anthropic: { status: 400, type: "invalid_request_error", message: "prompt is too long: 9000 tokens > 6000 maximum" },
};

for (const protocol of ["chat", "responses", "anthropic"] as const) {
  describe(`windows over ${protocol}`, () => {
    test(
      `a ${STEPS}-step turn with contextWindow 16000 and no threshold never overflows; so does the next, continued with historyPairs 2`,
      inFreshFolder(async () => {
        writeBigFile();
        writeConfig({ contextWindow: 16_000, maxSteps: 100, historyPairs: 2 });
        const first = respondWithSteps(STEPS, "Read it 60 times.");
        const one = await turn(protocol, "read big.txt many times");
        expect([first.tools(), done(one.events).stop, done(one.events).steps]).toEqual([STEPS, "completed", STEPS + 1]);
        expect(one.events.some((event) => event.type === "compacted")).toBe(true);
        expect(fake().violations).toEqual([]);

        const second = respondWithSteps(STEPS, "Searched it 60 times.", "grep");
        const two = await turn(protocol, "again, please", { continue: true });
        expect([second.tools(), done(two.events).stop, done(two.events).sessionId]).toEqual([STEPS, "completed", one.agent.session.id]);
        expect(two.events.some((event) => event.type === "compacted")).toBe(true);
        expect(fake().violations).toEqual([]);
        // The session on disk, as the next process reads it: each exchange records its own tools.
        const saved = JSON.parse(readFileSync(paths.session(one.agent.session.id), "utf8")) as { exchanges: { query: string; toolsSummary?: string }[] };
        expect(saved.exchanges.map((exchange) => [exchange.query, exchange.toolsSummary])).toEqual([
          ["read big.txt many times", `read_file×${STEPS}`],
          ["again, please", `grep×${STEPS}`],
        ]);
      }),
      120_000,
    );

    test(
      "a context-length error in the vendor's wording compacts and retries the step",
      inFreshFolder(async () => {
        writeBigFile();
        writeConfig({ maxSteps: 100 });
        let step = 0;
        let overflowed = -1;
        fake().respond((request, index) => {
          if (isSummaryRequest(request)) return { text: "## Goal\n- read big.txt" };
          step += 1;
          if (step <= 8) return { toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: step } }] };
          if (overflowed < 0) {
            overflowed = index;
            return { error: WORDING[protocol] };
          }
          return { text: "Recovered." };
        });
        const { events } = await turn(protocol, "read big.txt");
        expect([done(events).stop, answer(events)]).toEqual(["completed", "Recovered."]);
        const told = notices(events).filter((text) => text.startsWith("context window exceeded"));
        expect([told.length, told[0]?.endsWith("retrying (1/2)")]).toEqual([1, true]);
        expect(events.some((event) => event.type === "compacted")).toBe(true);
        const retried = fake()
          .requests.slice(overflowed + 1)
          .find((request) => !isSummaryRequest(request))!;
        expect(bytesOf(retried)).toBeLessThan(bytesOf(fake().requests[overflowed]!));
        expect(fake().violations).toEqual([]);
      }),
      60_000,
    );

    // Anthropic's adapter words the same refusal; the retry logic is the protocol-free loop's.
    if (protocol !== "anthropic")
      test(
        "an overflow that compacting cannot shrink stops with the numbers, never resending the same body",
        inFreshFolder(async () => {
          writeConfig({});
          fake().respond((request) =>
            isSummaryRequest(request)
              ? { text: "## Goal\n- x" }
              : { error: { status: 400, code: "context_length_exceeded", message: "maximum context length is 5000 tokens" } },
          );
          const { events } = await turn(protocol, "hi");
          expect(done(events).stop).toBe("error");
          expect(notices(events).some((text) => text.endsWith("retrying (1/2)"))).toBe(true);
          expect(errors(events).join("\n")).toMatch(
            /the request is still about \d+ tokens \(\d+ characters\) after compacting, not smaller than the \d+ characters the provider refused as too long; not sending it again/,
          );
          const bodies = fake()
            .requests.filter((request) => !isSummaryRequest(request))
            .map((request) => JSON.stringify(request.body));
          expect(new Set(bodies).size).toBe(bodies.length);
        }),
        60_000,
      );
  });
}
