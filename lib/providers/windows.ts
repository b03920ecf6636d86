/**
 * Context windows and output limits per model family, as data (keyed by model-id prefix, see
 * _model-prefix.ts), and the limit a provider's context-length error states. An unknown model
 * starts from UNKNOWN_MODEL_WINDOW, small enough for most local servers, and learns the real
 * window from its first context-length error (lib/agent/context/window.ts). `vision` marks the
 * families that take images in a user message (`@pic.png`); a model no key covers is assumed not to.
 */
import { lookupByModelPrefix } from "./_model-prefix.ts";

export interface ModelWindow {
  /** Tokens of input plus output the model accepts. */
  window: number;
  /** Most tokens it writes in one response. */
  output: number;
  /** Takes images as input. */
  vision?: boolean;
}

/** Conservative: a local model behind Ollama or LM Studio often runs with 8k-32k. */
export const UNKNOWN_MODEL_WINDOW: ModelWindow = { window: 32_768, output: 4_096 };

export const MODEL_WINDOWS: Readonly<Record<string, ModelWindow>> = {
  "gpt-5": { window: 400_000, output: 128_000, vision: true },
  "gpt-4.1": { window: 1_047_576, output: 32_768, vision: true },
  "gpt-4o": { window: 128_000, output: 16_384, vision: true },
  "gpt-oss": { window: 131_072, output: 32_768 },
  o3: { window: 200_000, output: 100_000, vision: true },
  "o4-mini": { window: 200_000, output: 100_000, vision: true },
  "claude-sonnet-4": { window: 200_000, output: 64_000, vision: true },
  "claude-opus-4": { window: 200_000, output: 32_000, vision: true },
  "claude-haiku-4": { window: 200_000, output: 64_000, vision: true },
  "claude-3": { window: 200_000, output: 8_192, vision: true },
  "gemini-2.5": { window: 1_048_576, output: 65_536, vision: true },
  "gemini-2.0": { window: 1_048_576, output: 8_192, vision: true },
  "grok-4": { window: 256_000, output: 64_000, vision: true },
  "grok-3": { window: 131_072, output: 16_384 },
  "deepseek-chat": { window: 128_000, output: 8_192 },
  "deepseek-reasoner": { window: 128_000, output: 64_000 },
  "mistral-large": { window: 128_000, output: 16_384 },
  "kimi-k2": { window: 131_072, output: 16_384 },
  "llama3.1": { window: 131_072, output: 8_192 },
  "llama3.2": { window: 131_072, output: 8_192 },
  llama3: { window: 8_192, output: 2_048 },
  "qwen2.5-coder": { window: 32_768, output: 8_192 },
  qwen3: { window: 40_960, output: 8_192 },
};

/** The family's window, or undefined for a model no key covers. */
export function lookupModelWindow(model: string): ModelWindow | undefined {
  return lookupByModelPrefix(MODEL_WINDOWS, model);
}

/** Whether the model takes images; false for a model no key covers (a local one, most often). */
export function acceptsImages(model: string): boolean {
  return lookupModelWindow(model)?.vision === true;
}

// Each vendor's wording, most specific first: the number that is the limit, not the request.
const _LIMIT_PATTERNS: readonly RegExp[] = [
  /maximum context length is ([\d,]+)/i, // OpenAI and compatible servers (vLLM, LM Studio)
  /tokens? > ([\d,]+) maximum/i, // Anthropic
  /context (?:window|length|size)(?: of| is|:)? (?:only )?([\d,]+)/i, // llama.cpp, Ollama, generic
  /n_ctx(?:_slot)?[:= ]+([\d,]+)/i, // llama.cpp
  /maximum (?:number of tokens|prompt length)[^\d]{0,40}?\(?([\d,]+)\)?/i, // Gemini, xAI
  /(?:limit|max(?:imum)?)(?: of| is|:)? ([\d,]+) tokens/i,
];

/** The window a context-length error states, when it states one (tokens; ignored below 256). */
export function readWindowFromError(message: string): number | undefined {
  for (const pattern of _LIMIT_PATTERNS) {
    const found = pattern.exec(message)?.[1];
    const value = found ? Number(found.replace(/,/g, "")) : NaN;
    if (Number.isFinite(value) && value >= 256) return value;
  }
  return undefined;
}
