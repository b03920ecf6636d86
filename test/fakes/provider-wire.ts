/**
 * What the three protocol modules of the fake provider share: the contract each implements, the
 * normalised response plan built from a scripted step, id minting, SSE framing, and the MACs that
 * let the fake recognise opaque payloads it issued (Anthropic thinking signatures, Responses
 * encrypted reasoning).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { FakeStep, RecordedRequest } from "./provider.ts";

export type WireProtocolName = RecordedRequest["protocol"];

/** A request the real provider would refuse, answered in the protocol's error shape. */
export interface Refusal {
  status: number;
  message: string;
  type?: string;
  code?: string | null;
  param?: string | null;
}

export interface CheckContext {
  headers: Record<string, string>;
  apiKey?: string;
  contextWindow?: number;
}

/** Mints ids unique within one fake server, in request order (deterministic per server). */
export interface IdSource {
  next(prefix: string): string;
}

/** One scripted step, normalised: chunks to stream, argument text per call, token counts. */
export interface ResponsePlan {
  model: string;
  reasoning: string[];
  text: string[];
  toolCalls: { id?: string; name: string; args: string }[];
  usage: { input: number; output: number; reasoning: number };
  stop: "stop" | "length";
}

/** One protocol as the fake speaks it. `check` runs on every request, before any step is used. */
export interface WireProtocol {
  name: WireProtocolName;
  /** Route under `/v1`, e.g. `/chat/completions`. */
  path: string;
  /** Refuses a request lacking the credentials/headers the real API insists on. */
  authorize(context: CheckContext): Refusal | undefined;
  /** Refuses a body that breaks one of the provider's invariants (schema checks run separately). */
  check(body: any): Refusal | undefined;
  /** The refusal for a body estimated at `tokens` over a `window`-token context. */
  overflow(tokens: number, window: number): Refusal;
  /** The protocol's error JSON for a refusal or a scripted error. */
  errorBody(refusal: Refusal): unknown;
  /** The error a scripted `{status}` step means when it names no message or type. */
  defaultError(status: number): Refusal;
  renderJson(plan: ResponsePlan, body: any, ids: IdSource): unknown;
  renderStream(plan: ResponsePlan, body: any, ids: IdSource): string[];
}

/** ceil(JSON.stringify(body).length / 4): the fake's token estimate. */
export function estimateTokens(body: unknown): number {
  return Math.ceil((JSON.stringify(body) ?? "").length / 4);
}

export function createIdSource(): IdSource {
  let counter = 0;
  return { next: (prefix) => `${prefix}fake${String(++counter).padStart(6, "0")}` };
}

export function planStep(step: FakeStep, body: any): ResponsePlan {
  const reasoning = _chunks(step.reasoning);
  const text = _chunks(step.text);
  const toolCalls = (step.toolCalls ?? []).map((call) => ({
    id: call.id,
    name: call.name,
    args: call.rawArgs ?? JSON.stringify(call.input ?? {}),
  }));
  const reasoningTokens = Math.ceil(reasoning.join("").length / 4);
  const outputChars = text.join("").length + toolCalls.reduce((sum, call) => sum + call.name.length + call.args.length, 0);
  return {
    model: typeof body?.model === "string" ? body.model : "fake-model",
    reasoning,
    text,
    toolCalls,
    usage: {
      input: step.usage?.input ?? estimateTokens(body),
      output: step.usage?.output ?? Math.max(1, reasoningTokens + Math.ceil(outputChars / 4)),
      reasoning: reasoningTokens,
    },
    stop: step.stop ?? "stop",
  };
}

/** Argument text as a stream sends it: up to three pieces that concatenate to the whole. */
export function splitArgs(args: string): string[] {
  if (args.length < 3) return [args];
  const size = Math.ceil(args.length / 3);
  const pieces: string[] = [];
  for (let start = 0; start < args.length; start += size) pieces.push(args.slice(start, start + size));
  return pieces;
}

/** One SSE frame; `event` is omitted for protocols that send data lines only. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/** An opaque token the fake issues for `subject` (a thinking text, a reasoning item id). */
export function signOpaque(kind: string, subject: string): string {
  return createHmac("sha256", _SECRET).update(`${kind}\n${subject}`).digest("base64");
}

/** True when `token` is what `signOpaque(kind, subject)` issued. */
export function verifyOpaque(kind: string, subject: string, token: unknown): boolean {
  if (typeof token !== "string") return false;
  const expected = Buffer.from(signOpaque(kind, subject));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// A fixed key: tokens stay valid across fake servers and test processes, so a session recorded
// against one fake replays against another, while a forged or edited token still fails.
const _SECRET = "shiro fake provider: opaque tokens";

function _chunks(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((chunk) => chunk.length > 0);
}
