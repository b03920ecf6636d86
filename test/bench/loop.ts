/**
 * Per-step overhead of the agent loop: everything but the model. A zero-latency in-process model
 * answers every step at once with one tool call (a cheap session tool), so what is timed is the
 * loop's own work per step: rebuilding the system prompt, preparing the wire (the compaction
 * planner), deriving tool specs, validating arguments, running the gate and the tool, and
 * appending to history. It is reported as a ratio to the time of serialising that step's request
 * body (JSON.stringify of model, system, messages and tools), the floor any request pays.
 */
import * as v from "valibot";
import { createContextManager } from "../../lib/agent/context/manager.ts";
import { runTurn, type LoopGate } from "../../lib/agent/loop.ts";
import type { ModelClient } from "../../lib/providers/client.ts";
import { buildSystemPrompt } from "../../lib/agent/prompt.ts";
import type { AssistantMessage, Message } from "../../lib/messages.ts";
import type { ModelEvent, ModelRequest } from "../../lib/providers/types.ts";
import type { ToolDefinition } from "../../lib/tools/types.ts";
import { median } from "./baseline.ts";

const STEPS = 300;

export async function benchLoop(): Promise<void> {
  const tools: ToolDefinition[] = [
    {
      name: "note",
      description: "records a note",
      effect: "read",
      schema: v.object({ text: v.string() }),
      execute: async ({ text }) => `noted ${text.length} chars`,
    },
  ];
  let call = 0;
  const serialiseTimes: number[] = [];
  const client: ModelClient & { protocol: "openai-chat" } = {
    protocol: "openai-chat",
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
      const t0 = performance.now();
      JSON.stringify({ model: request.model, system: request.system, messages: request.messages, tools: request.tools });
      serialiseTimes.push(performance.now() - t0);
      call += 1;
      const message: AssistantMessage =
        call >= STEPS
          ? { role: "assistant", parts: [{ type: "text", text: "done" }] }
          : {
              role: "assistant",
              parts: [
                { type: "text", text: `step ${call}` },
                { type: "tool-call", id: `c${call}`, name: "note", input: { text: "x".repeat(200) } },
              ],
            };
      yield { type: "finish", message, usage: { inputTokens: 10, outputTokens: 10 }, stop: call >= STEPS ? "stop" : "tool-calls" };
    },
  };
  const gate: LoopGate = { check: async () => ({ allowed: true }), newTurn: () => undefined };
  const messages: Message[] = [];
  const session = { messages, compaction: undefined } as unknown as Parameters<typeof createContextManager>[0]["session"];
  const context = createContextManager({ session, client, model: () => "m", thinking: () => "off", markChanged: () => undefined, auto: true });
  const stepTimes: number[] = [];
  let last = performance.now();
  const turn = runTurn(
    { prompt: "benchmark" },
    {
      client,
      model: "m",
      thinking: "off",
      messages,
      tools: () => tools,
      gate,
      root: process.cwd(),
      maxSteps: STEPS + 1,
      signal: new AbortController().signal,
      systemPrompt: (offered) => buildSystemPrompt({ root: process.cwd(), platform: "bench", tools: offered, approvalTools: [] }),
      prepareWire: (history, system, signal) => context.prepareWire(history, system, signal, "bench"),
    },
  );
  for await (const event of turn) {
    if (event.type === "tool-result") {
      const now = performance.now();
      stepTimes.push(now - last);
      last = now;
    }
  }
  const step = median(stepTimes);
  const serialise = median(serialiseTimes);
  const loopOnly = Math.max(0, step - serialise);
  console.log(`loop: ${STEPS} steps, median per step ${step.toFixed(3)} ms, of which serialising the request body ${serialise.toFixed(3)} ms`);
  console.log(`loop: per-step overhead (excluding serialisation) / serialisation = ${(loopOnly / serialise).toFixed(2)}x`);
}

if (import.meta.main) await benchLoop();
