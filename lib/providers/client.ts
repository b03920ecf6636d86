/**
 * The model client the agent loop holds: picks the adapter for the protocol and, for presets
 * that ask for it (OpenAI), falls back from the Responses endpoint to chat completions.
 *
 * Fallback contract: with `preset.responsesFallback`, no forced protocol and a connection on
 * `openai-responses`, a request that ends in an error with `shapeRejected` and `beforeOutput`
 * makes the client switch to `openai-chat` for the rest of its life, yield a `notice`, and run
 * that same request again on chat. Any other error is passed through unchanged.
 */
import type { ResolvedConfig } from "../config/config.ts";
import { streamAnthropic } from "./anthropic.ts";
import type { Protocol } from "../messages.ts";
import { streamOpenAIChat } from "./openai-chat.ts";
import { streamOpenAIResponses } from "./openai-responses.ts";
import type { Preset } from "./presets.ts";
import type { Adapter, ModelEvent, ModelRequest, ProviderConnection } from "./types.ts";

export { preconnectProvider } from "./_http.ts";

export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

export interface ModelClientOptions {
  connection: ProviderConnection;
  preset: Preset;
  /** True when the user chose the protocol (`--protocol`, `SHIRO_PROTOCOL`, config): no fallback then. */
  protocolForced: boolean;
}

export interface ModelClient {
  /** Streams one model response; the same contract as an adapter (never throws, one terminal event). */
  stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined>;
  /** The protocol the next request will use (changes once, on fallback). */
  readonly protocol: Protocol;
}

/** The adapter of each wire protocol. */
export const ADAPTERS: Readonly<Record<Protocol, Adapter>> = {
  "openai-chat": streamOpenAIChat,
  "openai-responses": streamOpenAIResponses,
  anthropic: streamAnthropic,
};

export function createModelClient(options: ModelClientOptions): ModelClient {
  let connection = options.connection;
  let fallbackArmed = Boolean(options.preset.responsesFallback) && !options.protocolForced && connection.protocol === "openai-responses";

  async function* stream(request: ModelRequest): AsyncGenerator<ModelEvent, void, undefined> {
    for await (const event of ADAPTERS[connection.protocol](connection, request)) {
      const rejected = event.type === "error" && event.error.shapeRejected === true && event.error.beforeOutput === true;
      if (!(rejected && fallbackArmed)) {
        yield event;
        continue;
      }
      fallbackArmed = false;
      connection = { ...connection, protocol: "openai-chat" };
      yield { type: "notice", text: `endpoint fallback: responses rejected the request, retrying on chat completions\n  ${event.error.message}` };
      yield* ADAPTERS[connection.protocol](connection, request);
      return;
    }
  }

  return {
    stream,
    get protocol() {
      return connection.protocol;
    },
  };
}

/** The connection a resolved configuration describes. */
export function connectionFromConfig(resolved: ResolvedConfig): ProviderConnection {
  const keyEnv =
    resolved.apiKeySource === "SHIRO_API_KEY" || resolved.apiKeySource === resolved.preset.tokenEnv ? resolved.apiKeySource : resolved.preset.keyEnv;
  return {
    protocol: resolved.protocol,
    baseURL: resolved.baseURL,
    ...(resolved.apiKey !== undefined ? { apiKey: resolved.apiKey } : {}),
    compat: resolved.preset.compat,
    maxRetries: resolved.maxRetries,
    timeoutMs: resolved.file.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(keyEnv ? { keyEnv } : {}),
    ...(resolved.bearerKey ? { bearerKey: true } : {}),
    ...(resolved.headers ? { headers: resolved.headers } : {}),
  };
}
