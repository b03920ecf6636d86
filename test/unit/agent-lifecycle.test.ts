/**
 * The run lifecycle in-process: `createAgent` and its run driver, against the fake provider on
 * 127.0.0.1, with no compiled binary. Suspension on an approval and its resume, an abort in the
 * middle of a tool, and parallel calls that really overlap (a context overflow that compacts and
 * retries the step is test/unit/agent-overflow.test.ts's, over every protocol). What is asserted
 * crossed a boundary: the events the front ends read, the request bodies the fake received, the
 * run snapshot and approvals on disk.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgent, type Agent } from "../../lib/agent/agent.ts";
import type { AgentFlags } from "../../lib/config/flags.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { decide, forRun } from "../../lib/store/approvals.ts";
import { effectiveStatus, loadRun } from "../../lib/store/runs.ts";
import type { RecordedRequest } from "../fakes/provider.ts";
import { agentEnv, agentFlags, useFakeProvider } from "./in-process-agent.ts";
import { useTempHome } from "./temp-home.ts";

useTempHome("shiro-lifecycle-");

const fake = useFakeProvider();
let cwd: string;

async function open(
  flags: Partial<AgentFlags> = {},
  more: { sessionId?: string; afterFirstRequest?: (sessionId: string) => void } = {},
): Promise<{ agent: Agent; stderr: string[] }> {
  const stderr: string[] = [];
  const agent = await createAgent({
    cwd,
    flags: agentFlags(flags),
    mode: "headless",
    env: agentEnv(fake()),
    writeStderr: (text) => stderr.push(text),
    ...more,
  });
  return { agent, stderr };
}

async function collect(events: AsyncGenerator<AgentEvent, void, undefined>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

const types = (events: readonly AgentEvent[]) =>
  events.map((event) => event.type).filter((type) => !["text", "reasoning", "tool-output", "state"].includes(type));
const done = (events: readonly AgentEvent[]) => events.find((event) => event.type === "done") as Extract<AgentEvent, { type: "done" }>;
const toolResults = (request: RecordedRequest) =>
  (request.body.messages as { role: string; content: string }[]).filter((m) => m.role === "tool").map((m) => m.content);

function freshFolder(): void {
  cwd = mkdtempSync(join(tmpdir(), "shiro-lifecycle-cwd-"));
  fake().reset();
}

describe("suspend and resume", () => {
  test("a call that asks suspends the run with a pending approval; approved, the same run resumes and finishes", async () => {
    freshFolder();
    try {
      fake().script({ toolCalls: [{ id: "call_w", name: "write_file", input: { path: "out.txt", content: "hello\n" } }] }, { text: "Wrote it." });
      const first = await open({ approvals: "block" });
      const blocked = await collect(first.agent.turn("write out.txt", new AbortController().signal));
      first.agent.close();
      await first.agent.closed;
      const stop = done(blocked);
      expect([stop.stop, types(blocked).includes("tool-call")]).toEqual(["blocked", true]);
      const snapshot = loadRun(stop.runId)!;
      const [pending] = forRun(stop.runId);
      expect([effectiveStatus(snapshot), pending?.status, pending?.tool]).toEqual(["blocked", "pending", "write_file"]);
      expect(fake().requests.length).toBe(1);

      decide(pending!.id, "approved", "cli");
      const second = await open({ approvals: "block" }, { sessionId: snapshot.sessionId });
      const resumed = await collect(second.agent.resumeRun(loadRun(stop.runId)!, "approved", new AbortController().signal));
      second.agent.close();
      await second.agent.closed;
      expect([done(resumed).stop, done(resumed).runId]).toEqual(["completed", stop.runId]);
      // The approved call ran once, and its result reached the model in the resumed run's request.
      expect(toolResults(fake().requests[1]!)).toEqual(["Wrote 6 chars to out.txt"]);
      expect([effectiveStatus(loadRun(stop.runId)!), fake().violations]).toEqual(["completed", []]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("abort", () => {
  test("an abort during a tool ends the run aborted, and no further request is made", async () => {
    freshFolder();
    try {
      fake().script({ toolCalls: [{ name: "bash", input: { command: "sleep 20" } }] });
      const { agent } = await open({ yolo: true });
      const controller = new AbortController();
      const seen: AgentEvent[] = [];
      for await (const event of agent.turn("wait a while", controller.signal)) {
        seen.push(event);
        if (event.type === "tool-start") controller.abort();
      }
      agent.close();
      await agent.closed;
      expect([done(seen).stop, fake().requests.length]).toEqual(["aborted", 1]);
      expect(effectiveStatus(loadRun(done(seen).runId)!)).toBe("aborted");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("parallel calls", () => {
  test("two task calls in one step run at once: neither subagent's request is answered until both have arrived", async () => {
    freshFolder();
    try {
      let arrived = 0;
      let bothHere!: () => void;
      const together = new Promise<void>((resolve) => (bothHere = resolve));
      fake().respond(async (request, index) => {
        if (index === 0)
          return {
            toolCalls: [
              { id: "t1", name: "task", input: { description: "look at a", kind: "explore", prompt: "look at a" } },
              { id: "t2", name: "task", input: { description: "look at b", kind: "explore", prompt: "look at b" } },
            ],
          };
        const isParent = (request.body.messages as { role: string }[]).some((message) => message.role === "tool");
        if (isParent) return { text: "Both looked." };
        // A subagent: held until the other one has asked too (sequential calls would never get here twice).
        arrived += 1;
        if (arrived === 2) bothHere();
        await Promise.race([together, new Promise((_, reject) => setTimeout(() => reject(new Error("the second subagent never came")), 10_000))]);
        return { text: `seen ${arrived}` };
      });
      const { agent } = await open({ yolo: true });
      const events = await collect(agent.turn("look at a and b", new AbortController().signal));
      agent.close();
      await agent.closed;
      expect([done(events).stop, arrived]).toEqual(["completed", 2]);
      const results = events.filter((event) => event.type === "tool-result").map((event) => (event as { id: string }).id);
      expect(results).toEqual(["t1", "t2"]);
      // Each subagent's answer came back (one held until the other arrived): run one after the
      // other, the first would have waited in vain and failed.
      const last = fake().requests.at(-1)!;
      expect(toolResults(last).map((content) => content.includes("seen 2"))).toEqual([true, true]);
      expect(fake().violations).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 30_000);
});

describe("after the first request", () => {
  test("afterFirstRequest runs once, with the session's id, when the first request has reached the provider, not before it is sent", async () => {
    freshFolder();
    try {
      fake().script({ toolCalls: [{ id: "call_r", name: "read_file", input: { path: "a.txt" } }] }, { text: "Read it." });
      writeFileSync(join(cwd, "a.txt"), "a\n");
      // What the fake had received each time the callback ran, and the id it was given.
      const seen: [number, string][] = [];
      const { agent } = await open({ yolo: true }, { afterFirstRequest: (sessionId) => seen.push([fake().requests.length, sessionId]) });
      const events = await collect(agent.turn("read a.txt", new AbortController().signal));
      agent.close();
      await agent.closed;
      expect([done(events).stop, fake().requests.length, seen]).toEqual(["completed", 2, [[1, agent.session.id]]]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 30_000);
});
