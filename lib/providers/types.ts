/**
 * The adapter contract. One adapter per wire protocol; each is an async generator that never
 * throws once called: it yields deltas as they stream, and ends with exactly one terminal event
 * (`finish`, `error` or `aborted`).
 */
import type { AssistantMessage, Message, Protocol, StopReason, Usage } from "../messages.ts";
import type { CompatFlags } from "./presets.ts";
import type { ThinkingLevel } from "../vocabulary.ts";

/** A tool as the model sees it: the JSON Schema is derived from the tool's valibot schema. */
export interface ToolSpec {
  name: string;
  description: string;
  /** A JSON Schema object (`{type: "object", properties, required, …}`). */
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  model: string;
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  thinking: ThinkingLevel;
  /** Output token limit; adapters pick a sensible default per protocol when absent. */
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

/** Where and how to reach a model. Built from the resolved config and the preset. */
export interface ProviderConnection {
  protocol: Protocol;
  /** API root without trailing slash, e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  apiKey?: string;
  compat: CompatFlags;
  /** Retries of transient failures per request (429, 5xx, dropped connections). Default 3. */
  maxRetries: number;
  /** Deadline for one whole request attempt, in ms; expiring is an error, never retried. */
  timeoutMs: number;
  /** Variable the user should set when the key is rejected, for the error text. */
  keyEnv?: string;
  /** Send the key as `Authorization: Bearer` on every protocol (a gateway token, ANTHROPIC_AUTH_TOKEN). */
  bearerKey?: boolean;
  /** Sent with every request (config `headers`, for header-routed gateways); they win over the adapter's own. */
  headers?: Record<string, string>;
  /** Base delay for retry backoff in ms (tests set it low). Default 500. */
  retryBaseMs?: number;
}

export type ProviderErrorKind = "auth" | "not-found" | "bad-request" | "context-overflow" | "rate-limit" | "server" | "network" | "timeout" | "other";

export interface ProviderError {
  kind: ProviderErrorKind;
  /** One line that says what happened and what to do, e.g.
   * `401 from api.openai.com: the API key was rejected — set OPENAI_API_KEY or run /provider`. */
  message: string;
  status?: number;
  /** The endpoint refused the request shape (400/404/405/415/422/501): the Responses→chat fallback trigger. */
  shapeRejected?: boolean;
  /** True when no output had been delivered before the failure. */
  beforeOutput?: boolean;
}

export type ModelEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  /** A tool call began streaming; its arguments follow. */
  | { type: "tool-call-start"; id: string; name: string }
  | { type: "tool-call-delta"; id: string; argsDelta: string }
  /** A transient failure is being retried after `delayMs`. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /** Something the user should know (endpoint fallback). */
  | { type: "notice"; text: string }
  | { type: "finish"; message: AssistantMessage; usage: Usage; stop: StopReason }
  | { type: "error"; error: ProviderError; partial?: AssistantMessage; usage?: Usage }
  | { type: "aborted"; partial?: AssistantMessage; usage?: Usage };

export type Adapter = (connection: ProviderConnection, request: ModelRequest) => AsyncGenerator<ModelEvent, void, undefined>;
