/**
 * Model discovery: `GET {base}/models` for the model picker, and a probe for local servers
 * (Ollama, LM Studio) for first-run setup.
 */
import { ofetch } from "ofetch";
import { describeFetchError } from "./_failures.ts";
import { ANTHROPIC_VERSION } from "./anthropic.ts";
import { findPreset, type Preset } from "./presets.ts";
import type { ProviderConnection } from "./types.ts";

export const LIST_MODELS_TIMEOUT_MS = 15_000;
export const LOCAL_PROBE_TIMEOUT_MS = 300;

export interface ModelList {
  /** Sorted, without duplicates. */
  models: string[];
  /** `server` when the endpoint listed them, `fallback` when they are the preset's built-in list. */
  source: "server" | "fallback";
  /** Why the server list could not be used, for `could not list models: <warning>`. */
  warning?: string;
}

/**
 * Lists the models the endpoint offers (OpenAI `{data: [{id}]}` and Anthropic
 * `{data: [{id}], has_more}` shapes alike). Never throws: on failure it returns `fallback` with a
 * warning — `<url> returned <status>. <body≤200>`, `<url> listed no models.`, or the error text.
 */
export async function listModels(connection: ProviderConnection, options: { fallback?: readonly string[]; timeoutMs?: number } = {}): Promise<ModelList> {
  const url = `${connection.baseURL}/models${connection.protocol === "anthropic" ? "?limit=1000" : ""}`;
  const fallback = (warning: string): ModelList => ({ models: _sorted(options.fallback ?? []), source: "fallback", warning });
  try {
    const response = await ofetch.raw(url, {
      method: "GET",
      headers: _headers(connection),
      responseType: "text",
      retry: 0,
      ignoreResponseError: true,
      timeout: options.timeoutMs ?? LIST_MODELS_TIMEOUT_MS,
    });
    const text = String(response._data ?? "");
    if (!response.ok) return fallback(`${url} returned ${response.status}. ${text.replace(/\s+/g, " ").trim().slice(0, 200)}`.trim());
    const models = _sorted(_ids(text));
    return models.length > 0 ? { models, source: "server" } : fallback(`${url} listed no models.`);
  } catch (error) {
    const timeoutMs = options.timeoutMs ?? LIST_MODELS_TIMEOUT_MS;
    if (_isTimeout(error)) return fallback(`${url} did not answer within ${timeoutMs / 1000}s.`);
    return fallback(`${url}: ${describeFetchError(error)}`);
  }
}

function _isTimeout(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current.name === "TimeoutError") return true;
  }
  return false;
}

export interface LocalServer {
  preset: Preset;
  /** The API root that answered, e.g. `http://127.0.0.1:11434/v1`. */
  baseURL: string;
  /** The model ids it listed, sorted: pick one of these when the preset's default is not among them. */
  models: string[];
}

/**
 * Probes Ollama (port 11434) and LM Studio (port 1234) on 127.0.0.1 at the same time, each with
 * a short timeout, and returns the first one, in that order, that answers `GET /v1/models` with
 * 200. Undefined when neither does.
 */
export async function detectLocalServer(
  options: { ports?: { ollama?: number; lmstudio?: number }; timeoutMs?: number } = {},
): Promise<LocalServer | undefined> {
  const candidates = [
    { id: "ollama", port: options.ports?.ollama ?? 11434 },
    { id: "lmstudio", port: options.ports?.lmstudio ?? 1234 },
  ];
  const answers = await Promise.all(
    candidates.map(async ({ id, port }) => {
      const baseURL = `http://127.0.0.1:${port}/v1`;
      try {
        const response = await ofetch.raw(`${baseURL}/models`, {
          method: "GET",
          responseType: "text",
          retry: 0,
          ignoreResponseError: true,
          timeout: options.timeoutMs ?? LOCAL_PROBE_TIMEOUT_MS,
        });
        return response.status === 200 ? { preset: findPreset(id)!, baseURL, models: _sorted(_ids(String(response._data ?? ""))) } : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return answers.find((answer) => answer !== undefined);
}

function _headers(connection: ProviderConnection): Record<string, string> {
  const bearer: Record<string, string> = connection.apiKey ? { authorization: `Bearer ${connection.apiKey}` } : {};
  if (connection.protocol === "anthropic") {
    return {
      "anthropic-version": ANTHROPIC_VERSION,
      ...(connection.bearerKey ? bearer : connection.apiKey ? { "x-api-key": connection.apiKey } : {}),
      ...connection.headers,
    };
  }
  return { ...bearer, ...connection.headers };
}

function _ids(text: string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [];
  }
  const data = body && typeof body === "object" ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry) => {
    const id = entry && typeof entry === "object" ? (entry as { id?: unknown }).id : undefined;
    return typeof id === "string" && id.length > 0 ? [id] : [];
  });
}

function _sorted(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
}
