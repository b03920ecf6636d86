/**
 * Vendors as data. A preset names the wire protocol, the API root, the variable that holds the
 * key, and the compat flags the adapters read — never `if (model.includes(…))` branches.
 */

import type { Protocol } from "../messages.ts";
import type { ProtocolFlag } from "../vocabulary.ts";

/** `--protocol` / `SHIRO_PROTOCOL` / config `protocol` spell the protocols short (lib/vocabulary.ts lists them). */
export const PROTOCOL_FLAG_VALUES = { chat: "openai-chat", responses: "openai-responses", anthropic: "anthropic" } as const satisfies Record<
  ProtocolFlag,
  Protocol
>;

export interface CompatFlags {
  /** Role used for the system prompt on chat/responses: OpenAI's own models take `developer`. */
  systemRole: "system" | "developer";
  /** Name of the output-token limit field on chat completions. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** Send `stream_options: {include_usage: true}` to get usage in the stream. */
  usageInStream: boolean;
  /** Delta field that carries reasoning text on chat completions, where the vendor sends one. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Send `reasoning_effort` for thinking levels other than off. */
  reasoningEffort: boolean;
  /**
   * Anthropic: mark the tool list and the newest message block with `cache_control` so each step
   * reads the unchanged prefix from the provider's prompt cache. Only for endpoints known to take it.
   */
  promptCache?: boolean;
}

export interface Preset {
  id: string;
  label: string;
  protocol: Protocol;
  /** Empty for custom presets: the user supplies it. */
  baseURL: string;
  /** Environment variable holding the key; undefined for keyless local servers. */
  keyEnv?: string;
  /** Environment variable naming the base URL, under config `baseURL` (OPENAI_BASE_URL, ANTHROPIC_BASE_URL). */
  baseURLEnv?: string;
  /** Environment variable holding a bearer token sent as `Authorization: Bearer` (Claude Code's ANTHROPIC_AUTH_TOKEN), after keyEnv. */
  tokenEnv?: string;
  keyless?: boolean;
  /**
   * The shape of this vendor's keys (a regex source, matched whole between non-key characters) and
   * the kind name the redactor puts in its placeholder; undefined when the keys have no telltale shape.
   */
  keyShape?: { kind: string; pattern: string };
  defaultModel: string;
  /** Offered when `GET /models` fails. */
  fallbackModels: string[];
  /** Try `openai-responses` first and fall back to `openai-chat` when the endpoint rejects it. */
  responsesFallback?: boolean;
  compat: CompatFlags;
}

const _chat: CompatFlags = { systemRole: "system", maxTokensField: "max_tokens", usageInStream: true, reasoningEffort: false };

export const PRESETS: readonly Preset[] = [
  {
    id: "anthropic",
    label: "Anthropic",
    protocol: "anthropic",
    baseURL: "https://api.anthropic.com/v1",
    keyEnv: "ANTHROPIC_API_KEY",
    baseURLEnv: "ANTHROPIC_BASE_URL",
    tokenEnv: "ANTHROPIC_AUTH_TOKEN",
    keyShape: { kind: "anthropic-key", pattern: "sk-ant-[a-z]+\\d{2}-[A-Za-z0-9_-]{32,}" },
    defaultModel: "claude-sonnet-4-5",
    fallbackModels: ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"],
    compat: { ..._chat, promptCache: true },
  },
  {
    id: "openai",
    label: "OpenAI",
    protocol: "openai-responses",
    baseURL: "https://api.openai.com/v1",
    keyEnv: "OPENAI_API_KEY",
    baseURLEnv: "OPENAI_BASE_URL",
    keyShape: { kind: "openai-key", pattern: "sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{32,}|[A-Za-z0-9]{48})" },
    defaultModel: "gpt-5",
    fallbackModels: ["gpt-5", "gpt-5-mini", "o4-mini"],
    responsesFallback: true,
    compat: { systemRole: "developer", maxTokensField: "max_completion_tokens", usageInStream: true, reasoningEffort: true },
  },
  {
    id: "openrouter",
    label: "OpenRouter",
    protocol: "openai-chat",
    baseURL: "https://openrouter.ai/api/v1",
    keyEnv: "OPENROUTER_API_KEY",
    keyShape: { kind: "openrouter-key", pattern: "sk-or-v1-[0-9a-f]{64}" },
    defaultModel: "anthropic/claude-sonnet-4.5",
    fallbackModels: [],
    compat: { ..._chat, reasoningField: "reasoning", reasoningEffort: true },
  },
  {
    id: "groq",
    label: "Groq",
    protocol: "openai-chat",
    baseURL: "https://api.groq.com/openai/v1",
    keyEnv: "GROQ_API_KEY",
    keyShape: { kind: "groq-key", pattern: "gsk_[A-Za-z0-9]{48,}" },
    defaultModel: "openai/gpt-oss-120b",
    fallbackModels: [],
    compat: { ..._chat, reasoningField: "reasoning" },
  },
  {
    id: "deepseek",
    label: "DeepSeek",
    protocol: "openai-chat",
    baseURL: "https://api.deepseek.com/v1",
    keyEnv: "DEEPSEEK_API_KEY",
    keyShape: { kind: "deepseek-key", pattern: "sk-[0-9a-f]{32}" },
    defaultModel: "deepseek-chat",
    fallbackModels: ["deepseek-chat", "deepseek-reasoner"],
    compat: { ..._chat, reasoningField: "reasoning_content" },
  },
  {
    id: "xai",
    label: "xAI (Grok)",
    protocol: "openai-chat",
    baseURL: "https://api.x.ai/v1",
    keyEnv: "XAI_API_KEY",
    keyShape: { kind: "xai-key", pattern: "xai-[A-Za-z0-9]{70,}" },
    defaultModel: "grok-4",
    fallbackModels: ["grok-4"],
    compat: { ..._chat, reasoningField: "reasoning_content" },
  },
  {
    id: "mistral",
    label: "Mistral",
    protocol: "openai-chat",
    baseURL: "https://api.mistral.ai/v1",
    keyEnv: "MISTRAL_API_KEY",
    defaultModel: "mistral-large-latest",
    fallbackModels: [],
    compat: { ..._chat, usageInStream: false },
  },
  {
    id: "gemini",
    label: "Google Gemini (OpenAI-compatible)",
    protocol: "openai-chat",
    baseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyEnv: "GEMINI_API_KEY",
    keyShape: { kind: "google-api-key", pattern: "AIza[0-9A-Za-z_-]{35}" },
    defaultModel: "gemini-2.5-pro",
    fallbackModels: ["gemini-2.5-pro", "gemini-2.5-flash"],
    compat: { ..._chat, reasoningEffort: true },
  },
  {
    id: "together",
    label: "Together AI",
    protocol: "openai-chat",
    baseURL: "https://api.together.xyz/v1",
    keyEnv: "TOGETHER_API_KEY",
    keyShape: { kind: "together-key", pattern: "tgp_v1_[A-Za-z0-9_-]{40,}" },
    defaultModel: "moonshotai/Kimi-K2-Instruct",
    fallbackModels: [],
    compat: _chat,
  },
  {
    id: "fireworks",
    label: "Fireworks AI",
    protocol: "openai-chat",
    baseURL: "https://api.fireworks.ai/inference/v1",
    keyEnv: "FIREWORKS_API_KEY",
    keyShape: { kind: "fireworks-key", pattern: "fw_[A-Za-z0-9]{20,}" },
    defaultModel: "accounts/fireworks/models/kimi-k2-instruct",
    fallbackModels: [],
    compat: _chat,
  },
  {
    id: "cerebras",
    label: "Cerebras",
    protocol: "openai-chat",
    baseURL: "https://api.cerebras.ai/v1",
    keyEnv: "CEREBRAS_API_KEY",
    keyShape: { kind: "cerebras-key", pattern: "csk-[a-z0-9]{40,}" },
    defaultModel: "gpt-oss-120b",
    fallbackModels: [],
    compat: { ..._chat, maxTokensField: "max_completion_tokens", reasoningField: "reasoning" },
  },
  {
    id: "ollama",
    label: "Ollama (local)",
    protocol: "openai-chat",
    baseURL: "http://localhost:11434/v1",
    keyless: true,
    defaultModel: "llama3.1",
    fallbackModels: [],
    compat: { ..._chat, reasoningField: "reasoning" },
  },
  {
    id: "lmstudio",
    label: "LM Studio (local)",
    protocol: "openai-chat",
    baseURL: "http://localhost:1234/v1",
    keyless: true,
    defaultModel: "local-model",
    fallbackModels: [],
    compat: _chat,
  },
  {
    id: "custom-openai",
    label: "Custom OpenAI-compatible",
    protocol: "openai-chat",
    baseURL: "",
    keyEnv: "OPENAI_API_KEY",
    baseURLEnv: "OPENAI_BASE_URL",
    defaultModel: "",
    fallbackModels: [],
    compat: _chat,
  },
  {
    id: "custom-anthropic",
    label: "Custom Anthropic-compatible",
    protocol: "anthropic",
    baseURL: "",
    keyEnv: "ANTHROPIC_API_KEY",
    baseURLEnv: "ANTHROPIC_BASE_URL",
    tokenEnv: "ANTHROPIC_AUTH_TOKEN",
    defaultModel: "",
    fallbackModels: [],
    compat: _chat,
  },
];

export const PRESET_IDS = PRESETS.map((preset) => preset.id);

export function findPreset(id: string): Preset | undefined {
  return PRESETS.find((preset) => preset.id === id);
}

/** Every preset key and token variable (sealed at start, lib/secrets/key-vault.ts; withheld from children), for `--help` and docs. */
export function presetKeyVariables(): string[] {
  return [...new Set(PRESETS.flatMap((preset) => [preset.keyEnv, preset.tokenEnv].filter((name): name is string => name !== undefined)))];
}
