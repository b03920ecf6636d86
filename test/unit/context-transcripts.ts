/**
 * Synthetic transcripts for the context manager's tests and benchmark, and the wire invariant
 * checker (the rules the fake provider enforces, checked here without HTTP).
 */
import type { AssistantMessage, Message, Protocol, ReasoningPart } from "../../lib/messages.ts";

/** mulberry32: a small seeded PRNG, so every random transcript can be rebuilt from its seed. */
export function createRng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function reasoningPart(protocol: Protocol, text: string): ReasoningPart {
  if (protocol === "anthropic") return { type: "reasoning", text, protocol, signature: `sig-${text.length}` };
  if (protocol === "openai-responses") return { type: "reasoning", text, protocol, itemId: `rs_${text.length}`, encryptedContent: "enc".repeat(20) };
  return { type: "reasoning", text, protocol };
}

export interface ToolLoopOptions {
  prompt?: string;
  steps: number;
  /** Characters of each tool result. */
  outputChars: number;
  /** Give every assistant message two reasoning parts of this protocol. */
  reasoning?: Protocol;
  /** Prefix of the call ids, so several loops in one history stay unique. */
  idPrefix?: string;
  /** End with a final assistant answer (default true). */
  answer?: boolean;
}

/** One turn: the user prompt, `steps` × (assistant call + its result), then the answer. */
export function buildToolLoop(options: ToolLoopOptions): Message[] {
  const prefix = options.idPrefix ?? "call";
  const messages: Message[] = [{ role: "user", content: options.prompt ?? "Fix the failing tests in src/." }];
  for (let step = 0; step < options.steps; step++) {
    const id = `${prefix}_${step}`;
    const parts: AssistantMessage["parts"] = [];
    if (options.reasoning) parts.push(reasoningPart(options.reasoning, `thinking about step ${step}`), reasoningPart(options.reasoning, `more on ${step}`));
    parts.push({ type: "text", text: `Step ${step}: reading the next file.` });
    parts.push({ type: "tool-call", id, name: "read_file", input: { path: `src/file-${step}.ts` } });
    messages.push({ role: "assistant", parts });
    const output = `// src/file-${step}.ts\n${"x".repeat(Math.max(0, options.outputChars - 20))}`.slice(0, options.outputChars);
    messages.push({ role: "tool", results: [{ type: "tool-result", callId: id, name: "read_file", output }] });
  }
  if (options.answer ?? true) {
    const parts: AssistantMessage["parts"] = [];
    if (options.reasoning) parts.push(reasoningPart(options.reasoning, "wrapping up"));
    parts.push({ type: "text", text: "All tests pass now." });
    messages.push({ role: "assistant", parts });
  }
  return messages;
}

const _PROTOCOLS: Protocol[] = ["openai-chat", "openai-responses", "anthropic"];

/**
 * A random history of several turns, mostly well formed, with the anomalies real sessions can
 * hold: an unanswered call mid-history, a result without its call, a reasoning-only or blank
 * message, a suspended-approval tail.
 */
export function buildRandomTranscript(rng: () => number, steps: number): Message[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const messages: Message[] = [];
  let id = 0;
  let step = 0;
  while (step < steps) {
    messages.push({ role: "user", content: `request ${messages.length}: ${"r".repeat(Math.floor(rng() * 300))}` });
    const loop = 1 + Math.floor(rng() * 12);
    for (let inner = 0; inner < loop && step < steps; inner++, step++) {
      const parts: AssistantMessage["parts"] = [];
      if (rng() < 0.6) {
        const protocol = pick(_PROTOCOLS);
        const count = 1 + Math.floor(rng() * 3);
        for (let r = 0; r < count; r++) parts.push(reasoningPart(protocol, "t".repeat(Math.floor(rng() * 800))));
      }
      if (rng() < 0.7) parts.push({ type: "text", text: rng() < 0.03 ? "  " : `note ${"n".repeat(Math.floor(rng() * 200))}` });
      const calls = rng() < 0.85 ? 1 + Math.floor(rng() * 3) : 0;
      const ids: string[] = [];
      for (let c = 0; c < calls; c++) {
        const callId = `call_${id++}`;
        ids.push(callId);
        parts.push({ type: "tool-call", id: callId, name: pick(["bash", "read_file", "grep"]), input: { arg: "a".repeat(Math.floor(rng() * 100)) } });
      }
      messages.push({ role: "assistant", parts });
      if (ids.length === 0) break;
      const anomaly = rng();
      if (anomaly < 0.02) break;
      const answered = anomaly < 0.05 ? ids.slice(1) : ids;
      const results = answered.map((callId) => ({
        type: "tool-result" as const,
        callId,
        name: "bash",
        output: "o".repeat(Math.floor(rng() * 1500)),
        ...(rng() < 0.1 ? { isError: true } : {}),
      }));
      if (anomaly > 0.97) results.push({ type: "tool-result", callId: `call_orphan_${id++}`, name: "bash", output: "orphan" });
      if (results.length > 0) messages.push({ role: "tool", results });
    }
  }
  if (rng() < 0.2) {
    messages.push({ role: "assistant", parts: [{ type: "tool-call", id: `call_${id++}`, name: "bash", input: { command: "rm -rf build" } }] });
  }
  return messages;
}

/** Every way `wire` would be rejected by one of the three protocols; empty when it is valid. */
export function findWireViolations(wire: Message[]): string[] {
  const violations: string[] = [];
  let trailing = -1;
  for (let index = wire.length - 1; index >= 0; index--) {
    if (wire[index]!.role === "assistant") {
      trailing = index;
      break;
    }
    if (wire[index]!.role !== "tool") break;
  }
  wire.forEach((message, index) => {
    if (message.role === "user") {
      if (!message.content.trim()) violations.push(`message ${index}: empty user message`);
      return;
    }
    if (message.role === "tool") {
      const previous = wire[index - 1];
      const calls = previous?.role === "assistant" ? previous.parts.flatMap((part) => (part.type === "tool-call" ? [part.id] : [])) : [];
      if (message.results.length === 0) violations.push(`message ${index}: tool message without results`);
      const seen = new Set<string>();
      for (const result of message.results) {
        if (!calls.includes(result.callId)) violations.push(`message ${index}: result ${result.callId} without its call`);
        if (seen.has(result.callId)) violations.push(`message ${index}: result ${result.callId} twice`);
        seen.add(result.callId);
      }
      return;
    }
    if (!message.parts.some((part) => (part.type === "text" && part.text.trim()) || part.type === "tool-call")) {
      violations.push(`message ${index}: assistant message without text or tool call`);
    }
    if (message.parts.some((part) => part.type === "text" && !part.text.trim())) violations.push(`message ${index}: blank text part`);
    const next = wire[index + 1];
    const answered = new Set(next?.role === "tool" ? next.results.map((result) => result.callId) : []);
    for (const part of message.parts) {
      if (part.type === "tool-call" && !answered.has(part.id) && index !== trailing) violations.push(`message ${index}: call ${part.id} without its result`);
    }
  });
  return violations;
}
