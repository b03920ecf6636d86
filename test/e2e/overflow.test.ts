/**
 * Windows and overflow through the binary, against a fake provider with a 16k-token window:
 * with `contextWindow` set and no threshold, a 60-step turn compacts ahead of the window and the
 * fake refuses nothing, and so does the next turn after `-c` with `historyPairs: 2` in a new
 * process (whose exchange records its own tools); a context-length error compacts and retries the
 * step, told on stderr; one compacting cannot shrink exits non-zero with the numbers; a prompt
 * larger than the window is refused before anything is sent. Over one protocol here: the same
 * lifecycle over every protocol and each vendor's wording is test/unit/agent-overflow.test.ts's,
 * in-process.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeStep, RecordedRequest } from "../fakes/provider.ts";
import { parseEventLines, useE2E } from "./_harness.ts";

const STEPS = 60;
const e2e = useE2E({ contextWindow: 16_000 });
const isSummaryRequest = (request: RecordedRequest) => !request.body.tools || request.body.tools.length === 0;
const bytesOf = (request: RecordedRequest) => JSON.stringify(request.body).length;

function writeBigFile(): void {
  writeFileSync(join(e2e.dirs.cwd, "big.txt"), Array.from({ length: 60 }, (_, i) => `line ${i} ${"x".repeat(50)}`).join("\n"));
}

/** A responder for a turn of `steps` read_file steps then an answer; summaries answered apart. */
function respondWithSteps(steps: number, answer: string, tool: "read_file" | "grep" = "read_file"): { tools: () => number } {
  let step = 0;
  e2e.fake.respond((request) => {
    if (isSummaryRequest(request)) return { text: "## Goal\n- read big.txt again and again" };
    step += 1;
    if (step > steps) return { text: answer };
    const input = tool === "read_file" ? { path: "big.txt", offset: (step % 7) + 1 } : { pattern: `line|x{${(step % 7) + 1}}` };
    return { text: `Step ${step}.`, toolCalls: [{ name: tool, input }] };
  });
  return { tools: () => Math.min(step, steps) };
}

const sessionFile = (): any => {
  const dir = join(e2e.dirs.home, ".shiro-neko", "sessions");
  return JSON.parse(readFileSync(join(dir, readdirSync(dir).find((name) => name.endsWith(".json"))!), "utf8"));
};

/** The one protocol these run over in a process of their own. */
const protocol = "chat";

describe(`windows over ${protocol}`, () => {
  test(`a ${STEPS}-step turn with contextWindow 16000 and no threshold never overflows; so does the next after -c with historyPairs 2`, async () => {
    writeBigFile();
    e2e.writeConfig({ contextWindow: 16_000, maxSteps: 100, historyPairs: 2 });
    const first = respondWithSteps(STEPS, "Read it 60 times.");
    const run = await e2e.shiro(["-p", "read big.txt many times", "--json"], { protocol, timeoutMs: 120_000 });
    expect(run.code).toBe(0);
    expect(first.tools()).toBe(STEPS);
    expect(parseEventLines(run.stdout).at(-1)).toMatchObject({ type: "done", stop: "completed", steps: STEPS + 1 });
    expect(parseEventLines(run.stdout).some((event) => event.type === "compacted")).toBe(true);
    expect(e2e.fake.violations).toEqual([]);

    const second = respondWithSteps(STEPS, "Searched it 60 times.", "grep");
    const resumed = await e2e.shiro(["-p", "again, please", "-c", "--json"], { protocol, timeoutMs: 120_000 });
    expect(resumed.code).toBe(0);
    expect(second.tools()).toBe(STEPS);
    const events = parseEventLines(resumed.stdout);
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "completed" });
    expect(events.some((event) => event.type === "compacted")).toBe(true);
    expect(e2e.fake.violations).toEqual([]);
    const exchanges = sessionFile().exchanges as { query: string; toolsSummary?: string }[];
    expect(exchanges.map((exchange) => exchange.query)).toEqual(["read big.txt many times", "again, please"]);
    expect([exchanges[0]!.toolsSummary, exchanges[1]!.toolsSummary]).toEqual([`read_file×${STEPS}`, `grep×${STEPS}`]);
  }, 240_000);

  test("a context-length error in the vendor's wording compacts and retries the step", async () => {
    writeBigFile();
    e2e.writeConfig({ maxSteps: 100 });
    const wording: FakeStep["error"] = {
      status: 400,
      code: "context_length_exceeded",
      message: "This model's maximum context length is 6000 tokens. However, your messages resulted in 9000 tokens.",
    };
    let step = 0;
    let overflowed = -1;
    e2e.fake.respond((request, index) => {
      if (isSummaryRequest(request)) return { text: "## Goal\n- read big.txt" };
      step += 1;
      if (step <= 8) return { toolCalls: [{ name: "read_file", input: { path: "big.txt", offset: step } }] };
      if (overflowed < 0) {
        overflowed = index;
        return { error: wording };
      }
      return { text: "Recovered." };
    });
    const run = await e2e.shiro(["-p", "read big.txt"], { protocol, timeoutMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Recovered.\n");
    expect(run.stderr).toContain("context window exceeded");
    expect(run.stderr).toContain("retrying (1/2)");
    const failed = e2e.fake.requests[overflowed]!;
    const retried = e2e.fake.requests.slice(overflowed + 1).find((request) => !isSummaryRequest(request))!;
    expect(bytesOf(retried)).toBeLessThan(bytesOf(failed));
  }, 90_000);

  test("an overflow that compacting cannot shrink stops with the numbers, never resending the same body", async () => {
    e2e.writeConfig({});
    e2e.fake.respond((request) =>
      isSummaryRequest(request)
        ? { text: "## Goal\n- x" }
        : { error: { status: 400, code: "context_length_exceeded", message: "maximum context length is 5000 tokens" } },
    );
    const run = await e2e.shiro(["-p", "hi"], { protocol });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("retrying (1/2)");
    expect(run.stderr).toMatch(
      /the request is still about \d+ tokens \(\d+ characters\) after compacting, not smaller than the \d+ characters the provider refused as too long; not sending it again/,
    );
    const bodies = e2e.fake.requests.filter((request) => !isSummaryRequest(request)).map((request) => JSON.stringify(request.body));
    expect(new Set(bodies).size).toBe(bodies.length);
  }, 60_000);
});

describe("a prompt larger than the window", () => {
  test("is refused before sending, with its size and the window, not advice to /compact", async () => {
    e2e.writeConfig({ contextWindow: 2_000 });
    const run = await e2e.shiro(["-p", "y".repeat(12_000)]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("the prompt is about 3000 tokens (12000 characters), more than gpt-5's context window of 2000 tokens");
    expect(run.stderr).not.toContain("/compact");
    expect(e2e.fake.requests).toEqual([]);
  });
});

describe("the step cap", () => {
  test("a text-mode run that hits it exits 4 with one line naming the cap and how to raise it", async () => {
    e2e.writeConfig({ maxSteps: 2 });
    e2e.fake.script({ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { toolCalls: [{ name: "glob", input: { pattern: "*.md" } }] });
    const run = await e2e.shiro(["-p", "look"]);
    expect(run.code).toBe(4);
    const lines = run.stderr.split("\n").filter((line) => line.startsWith("[stopped]"));
    expect(lines).toEqual([
      '[stopped] the step cap of 2 steps was reached (exit 4): raise it with --max-steps or "maxSteps" in config.json (shiro config set maxSteps 100), or continue with shiro -c',
    ]);
    e2e.fake.script({ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { toolCalls: [{ name: "glob", input: { pattern: "*.md" } }] });
    const json = await e2e.shiro(["-p", "look", "--json"]);
    expect(json.code).toBe(4);
    expect(json.stderr).not.toContain("[stopped]");
  });
});
