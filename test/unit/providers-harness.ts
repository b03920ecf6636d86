/**
 * What the provider tests share: a connection to the fake provider per protocol, a tool list, and
 * a collector that drains an adapter's stream into an array of events.
 */
import { streamAnthropic } from "../../lib/providers/anthropic.ts";
import type { Protocol } from "../../lib/providers/messages.ts";
import { streamOpenAIChat } from "../../lib/providers/openai-chat.ts";
import { streamOpenAIResponses } from "../../lib/providers/openai-responses.ts";
import { findPreset } from "../../lib/providers/presets.ts";
import type { Adapter, ModelEvent, ModelRequest, ProviderConnection, ToolSpec } from "../../lib/providers/types.ts";
import type { FakeProvider } from "../fakes/provider.ts";

export const API_KEY = "sk-test-key-0123456789";

export const ADAPTERS: Record<Protocol, Adapter> = {
  "openai-chat": streamOpenAIChat,
  "openai-responses": streamOpenAIResponses,
  anthropic: streamAnthropic,
};

export const PROTOCOLS = Object.keys(ADAPTERS) as Protocol[];

/** A connection to `fake` with the compat flags of the preset that speaks `protocol` natively. */
export function connectTo(fake: FakeProvider, protocol: Protocol, overrides: Partial<ProviderConnection> = {}): ProviderConnection {
  const preset = findPreset(protocol === "anthropic" ? "anthropic" : protocol === "openai-responses" ? "openai" : "deepseek")!;
  return {
    protocol, baseURL: fake.baseURL, apiKey: API_KEY, compat: preset.compat,
    maxRetries: 3, timeoutMs: 10_000, retryBaseMs: 5, keyEnv: preset.keyEnv, ...overrides,
  };
}

export const TOOLS: ToolSpec[] = [
  {
    name: "read_file", description: "Read a file.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  },
  {
    name: "glob", description: "Find files.",
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

/** The events that are not deltas, for comparing the shape of a run. */
export function withoutDeltas(events: ModelEvent[]): ModelEvent[] {
  return events.filter((event) => !["text-delta", "reasoning-delta", "tool-call-start", "tool-call-delta"].includes(event.type));
}

export function hostOfFake(fake: FakeProvider): string {
  return new URL(fake.url).host;
}
