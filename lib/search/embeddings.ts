/**
 * A client for an OpenAI-compatible embeddings endpoint (`POST <baseURL>/embeddings` with
 * `{model, input: string[]}`, answered with `{data: [{index, embedding}]}`), used only when the
 * user configured one: everything else searches offline.
 *
 * Contract: `embed` returns one vector per text, in order, asking in batches of 64 texts of at
 * most 4,000 characters each (longer ones are cut). It throws one line naming the endpoint and
 * what went wrong (status and the server's message, an unreadable answer, a timeout of 30 s per
 * request); callers fall back to words-only ranking.
 */
import { sealedEnv } from "../secrets/key-vault.ts";

export interface EmbeddingClientOptions {
  baseURL: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}

export interface EmbeddingClient {
  readonly model: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}

const _BATCH = 64;
const _TEXT_CAP = 4_000;

export function createEmbeddingClient(options: EmbeddingClientOptions): EmbeddingClient {
  const url = `${options.baseURL.replace(/\/+$/, "")}/embeddings`;
  const embedBatch = async (texts: string[], signal?: AbortSignal): Promise<number[][]> => {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify({ model: options.model, input: texts }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new Error(`embeddings endpoint ${url} did not answer (${(error as Error).message})`);
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`embeddings endpoint ${url} answered ${response.status}: ${_serverMessage(text)}`);
    const vectors = _parseVectors(text, texts.length);
    if (!vectors) throw new Error(`embeddings endpoint ${url} sent an answer without ${texts.length} vectors`);
    return vectors;
  };
  return {
    model: options.model,
    async embed(texts, signal) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += _BATCH) {
        out.push(
          ...(await embedBatch(
            texts.slice(i, i + _BATCH).map((text) => text.slice(0, _TEXT_CAP) || " "),
            signal,
          )),
        );
      }
      return out;
    },
  };
}

function _parseVectors(text: string, count: number): number[][] | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== count) return undefined;
  const vectors: number[][] = new Array(count);
  for (const [position, item] of data.entries()) {
    const index = typeof item?.index === "number" ? item.index : position;
    const embedding = item?.embedding;
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((value: unknown) => typeof value === "number")) return undefined;
    vectors[index] = embedding;
  }
  return vectors.every(Boolean) ? vectors : undefined;
}

function _serverMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string") return message.replace(/\s+/g, " ").slice(0, 200);
  } catch {
    // not JSON: show the start of the text
  }
  return text.replace(/\s+/g, " ").slice(0, 200) || "(empty body)";
}

/** Config `memory.embeddings` as a client (none when unset); the key comes from the environment variable it names. */
export function embeddingClientFromConfig(
  settings: { baseURL: string; model: string; apiKeyEnv?: string } | undefined,
  onNotice: (text: string) => void,
): EmbeddingClient | undefined {
  if (!settings) return undefined;
  const apiKey = settings.apiKeyEnv ? sealedEnv()[settings.apiKeyEnv] : undefined;
  if (settings.apiKeyEnv && !apiKey) onNotice(`memory.embeddings: ${settings.apiKeyEnv} is not set; asking ${settings.baseURL} without a key`);
  return createEmbeddingClient({ baseURL: settings.baseURL, model: settings.model, ...(apiKey ? { apiKey } : {}) });
}
