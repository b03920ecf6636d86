/**
 * Asks the provider for a model's context window, for models the family table does not know.
 * Never throws; undefined when nothing usable came back within the timeout.
 *
 * - `GET {base}/models`: the model's entry, where servers put the window in it: `context_length`
 *   (OpenRouter, Together, Fireworks), `max_model_len` (vLLM), `max_context_length` /
 *   `loaded_context_length` (LM Studio), `context_window` (Groq).
 * - Ollama (`ollama: true`): `POST {root}/api/show {model}`; the window it runs with is the
 *   model's `num_ctx` parameter when set, else OLLAMA_DEFAULT_CONTEXT (Ollama cuts a longer
 *   prompt silently instead of refusing it, so its declared maximum would overstate the window).
 */
import { ofetch } from "ofetch";
import type { ProviderConnection } from "./types.ts";

export const WINDOW_QUERY_TIMEOUT_MS = 1_500;
/** Ollama's context length when neither the model nor OLLAMA_CONTEXT_LENGTH sets one. */
export const OLLAMA_DEFAULT_CONTEXT = 4_096;

const _FIELDS = ["loaded_context_length", "max_model_len", "context_length", "max_context_length", "context_window"] as const;

export async function queryModelWindow(
  connection: Pick<ProviderConnection, "baseURL" | "apiKey" | "protocol">,
  model: string,
  options: { ollama?: boolean; timeoutMs?: number } = {},
): Promise<number | undefined> {
  const timeout = options.timeoutMs ?? WINDOW_QUERY_TIMEOUT_MS;
  const headers: Record<string, string> = connection.apiKey && connection.protocol !== "anthropic" ? { authorization: `Bearer ${connection.apiKey}` } : {};
  try {
    if (options.ollama) {
      const root = connection.baseURL.replace(/\/v1$/, "");
      const shown = await ofetch<{ parameters?: string }>(`${root}/api/show`, { method: "POST", body: { model }, retry: 0, timeout });
      const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(shown.parameters ?? "")?.[1];
      return numCtx ? Number(numCtx) : OLLAMA_DEFAULT_CONTEXT;
    }
    const listed = await ofetch<{ data?: unknown }>(`${connection.baseURL}/models`, { headers, retry: 0, timeout });
    const entries = Array.isArray(listed.data) ? (listed.data as Record<string, unknown>[]) : [];
    const entry = entries.find((candidate) => candidate && typeof candidate === "object" && candidate.id === model);
    for (const field of _FIELDS) {
      const value = entry?.[field];
      if (typeof value === "number" && Number.isInteger(value) && value >= 256) return value;
    }
    return undefined;
  } catch {
    return undefined;
  }
}
