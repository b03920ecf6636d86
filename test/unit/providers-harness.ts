/**
 * What the provider tests share: a connection to the fake provider per protocol, a tool list, a
 * collector that drains an adapter's stream into an array of events, and the two-reads tool loop.
 */
import { ADAPTERS } from "../../lib/providers/client.ts";
import type { AssistantMessage, Message, Protocol } from "../../lib/messages.ts";
import { findPreset } from "../../lib/providers/presets.ts";
import type { ModelEvent, ModelRequest, ProviderConnection, ToolSpec } from "../../lib/providers/types.ts";
import type { ThinkingLevel } from "../../lib/vocabulary.ts";
import type { FakeProvider } from "../fakes/provider.ts";

export const API_KEY = "sk-test-key-0123456789";

export { ADAPTERS };

export const PROTOCOLS = Object.keys(ADAPTERS) as Protocol[];

/** How each protocol's providers begin a tool-call id (`call_…`, `toolu_…`), for scripted calls. */
export const CALL_PREFIX: Record<Protocol, string> = { "openai-chat": "call_", "openai-responses": "call_", anthropic: "toolu_" };

/** A connection to `fake` with the compat flags of the preset that speaks `protocol` natively. */
export function connectTo(fake: FakeProvider, protocol: Protocol, overrides: Partial<ProviderConnection> = {}): ProviderConnection {
  const preset = findPreset(protocol === "anthropic" ? "anthropic" : protocol === "openai-responses" ? "openai" : "deepseek")!;
  return {
    protocol,
    baseURL: fake.baseURL,
    apiKey: API_KEY,
    compat: preset.compat,
    maxRetries: 3,
    timeoutMs: 10_000,
    retryBaseMs: 5,
    keyEnv: preset.keyEnv,
    ...overrides,
  };
}

export const TOOLS: ToolSpec[] = [
  {
    name: "read_file",
    description: "Read a file.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  },
  {
    name: "glob",
    description: "Find files.",
    inputSchema: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"], additionalProperties: false },
  },
];

export function requestOf(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "fake-model", system: "You are a test.", messages: [{ role: "user", content: "hi" }], tools: TOOLS, thinking: "off", ...overrides };
}

/** Runs one stream to its end (bounded by the connection's own deadline). */
export async function collect(stream: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

export function terminalOf(events: ModelEvent[]): ModelEvent {
  const last = events[events.length - 1];
  if (!last) throw new Error("the stream yielded no events");
  return last;
}

/** The stream's finish event; anything else at the end fails the test. */
export function finishOf(events: ModelEvent[]): Extract<ModelEvent, { type: "finish" }> {
  const last = terminalOf(events);
  if (last.type !== "finish") throw new Error(`expected finish, got ${JSON.stringify(last)}`);
  return last;
}

/** The history after `assistant` read a.ts (call `a`) and b.ts (call `b`): a's text, and b's failure. */
export function twoReadsHistory(assistant: AssistantMessage, a: string, b: string): Message[] {
  return [
    { role: "user", content: "hi" },
    assistant,
    {
      role: "tool",
      results: [
        { type: "tool-result", callId: a, name: "read_file", output: "export const a = 1;" },
        { type: "tool-result", callId: b, name: "read_file", output: "no such file: b.ts", isError: true },
      ],
    },
  ];
}

/**
 * The tool loop the wire-format tests replay on `protocol`: the fake answers with reasoning
 * `Need both files.`, text `Checking.` and read_file calls on a.ts and b.ts (ids `<prefix>a`,
 * `<prefix>b`), then with `Done.`; the second request carries twoReadsHistory. Returns the first
 * answer's message; the requests are on `fake.requests`.
 */
export async function runTwoReadsLoop(
  fake: FakeProvider,
  protocol: Protocol,
  thinking: ThinkingLevel = "off",
  secondThinking = thinking,
): Promise<AssistantMessage> {
  const [a, b] = [`${CALL_PREFIX[protocol]}a`, `${CALL_PREFIX[protocol]}b`];
  fake.script(
    {
      reasoning: "Need both files.",
      text: "Checking.",
      toolCalls: [
        { id: a, name: "read_file", input: { path: "a.ts" } },
        { id: b, name: "read_file", input: { path: "b.ts" } },
      ],
    },
    { text: "Done." },
  );
  const adapter = ADAPTERS[protocol];
  const connection = connectTo(fake, protocol);
  const first = finishOf(await collect(adapter(connection, requestOf({ thinking }))));
  await collect(adapter(connection, requestOf({ messages: twoReadsHistory(first.message, a, b), thinking: secondThinking })));
  return first.message;
}

/** The events that are not deltas, for comparing the shape of a run. */
export function withoutDeltas(events: ModelEvent[]): ModelEvent[] {
  return events.filter((event) => !["text-delta", "reasoning-delta", "tool-call-start", "tool-call-delta"].includes(event.type));
}

export function hostOfFake(fake: FakeProvider): string {
  return new URL(fake.url).host;
}
