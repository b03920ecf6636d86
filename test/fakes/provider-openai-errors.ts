/**
 * OpenAI's error envelope and key check, shared by the chat-completions and Responses routes of
 * the fake: `{"error":{"message","type","param","code"}}`, a Bearer key in `Authorization`.
 */
import type { CheckContext, Refusal } from "./provider-wire.ts";

export function toOpenAIErrorBody(refusal: Refusal): unknown {
  return {
    error: {
      message: refusal.message,
      type: refusal.type ?? "invalid_request_error",
      param: refusal.param ?? null,
      code: refusal.code ?? null,
    },
  };
}

/** Only enforced when the fake was given a key: keyless local servers accept anything. */
export function authorizeOpenAI(context: CheckContext): Refusal | undefined {
  if (context.apiKey === undefined) return undefined;
  const header = context.headers.authorization ?? "";
  const key = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
  if (!key) {
    return {
      status: 401,
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
    };
  }
  if (key === context.apiKey) return undefined;
  return {
    status: 401,
    code: "invalid_api_key",
    message: `Incorrect API key provided: ${_maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  };
}

export function defaultOpenAIError(status: number): Refusal {
  if (status === 401)
    return {
      status,
      code: "invalid_api_key",
      message: "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    };
  if (status === 403) return { status, message: "You are not allowed to sample from this model" };
  if (status === 404) return { status, code: "model_not_found", message: "The model does not exist or you do not have access to it." };
  if (status === 429) return { status, type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests. Please try again in 1s." };
  if (status >= 500) return { status, type: "server_error", message: "The server had an error while processing your request. Sorry about that!" };
  return { status, message: "Invalid request." };
}

function _maskKey(key: string): string {
  if (key.length <= 8) return "*".repeat(key.length);
  return `${key.slice(0, 3)}${"*".repeat(key.length - 7)}${key.slice(-4)}`;
}
