/**
 * `POST /v1/messages` as the fake speaks it: a key and `anthropic-version` required, the
 * body's shape and Anthropic's pairing rules checked (tool_use answered by tool_result in the very
 * next message, thinking first in the final assistant turn when thinking is on, thinking blocks
 * carrying a signature this fake issued), and the answer as a whole `message` or as named SSE
 * events (message_start, ping, content_block_*, message_delta, message_stop).
 */
import {
  signOpaque,
  splitArgs,
  sseFrame,
  verifyOpaque,
  type CheckContext,
  type IdSource,
  type Refusal,
  type ResponsePlan,
  type WireProtocol,
} from "./provider-wire.ts";

export const anthropicProtocol: WireProtocol = {
  name: "anthropic",
  path: "/messages",
  authorize: authorizeAnthropic,
  check: checkAnthropicBody,
  overflow: (tokens, window) => ({ status: 400, message: `prompt is too long: ${tokens} tokens > ${window} maximum` }),
  errorBody: (refusal) => ({ type: "error", error: { type: refusal.type ?? _ERROR_TYPES[refusal.status] ?? "api_error", message: refusal.message } }),
  defaultError: (status) => ({ status, message: _DEFAULT_MESSAGES[status] ?? (status >= 500 ? "Internal server error" : "Invalid request") }),
  renderJson: renderMessage,
  renderStream: renderMessageEvents,
};

/** The key travels in `x-api-key`, or (as current official SDKs send it) as a Bearer token. */
export function authorizeAnthropic(context: CheckContext): Refusal | undefined {
  const bearer = context.headers.authorization?.match(/^Bearer\s+(.+)$/)?.[1];
  const key = context.headers["x-api-key"] || bearer;
  if (!key) return { status: 401, message: "x-api-key header is required" };
  if (context.apiKey !== undefined && key !== context.apiKey) return { status: 401, message: "invalid x-api-key" };
  if (!context.headers["anthropic-version"]) return { status: 400, message: "anthropic-version: header is required" };
  return undefined;
}

export function checkAnthropicBody(body: any): Refusal | undefined {
  return _checkShape(body) ?? _checkThinkingConfig(body) ?? _checkMessages(body.messages, _thinkingOn(body));
}

const _ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};
const _DEFAULT_MESSAGES: Record<number, string> = {
  401: "invalid x-api-key",
  403: "Your API key does not have permission to use the specified resource.",
  404: "model: not found",
  413: "Request exceeds the maximum allowed number of bytes.",
  429: "Number of request tokens has exceeded your per-minute rate limit",
  529: "Overloaded",
};
const _BLOCK_TYPES = new Set(["text", "image", "document", "tool_use", "tool_result", "thinking", "redacted_thinking", "search_result"]);

function _bad(message: string): Refusal {
  return { status: 400, message };
}

function _checkShape(body: any): Refusal | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return _bad("Input should be a valid dictionary");
  if (typeof body.model !== "string") return _bad("model: Field required");
  if (!Number.isInteger(body.max_tokens)) return _bad("max_tokens: Field required");
  if (!Array.isArray(body.messages)) return _bad("messages: Field required");
  if (Array.isArray(body.system) && body.system.some((block: any) => block?.type === "text" && block.text === "")) {
    return _bad("system: text content blocks must be non-empty");
  }
  for (const [index, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    if (typeof tool?.name !== "string") return _bad(`tools.${index}.name: Field required`);
    if (tool.type === undefined && typeof tool.input_schema !== "object") return _bad(`tools.${index}.custom.input_schema: Field required`);
  }
  return undefined;
}

function _thinkingOn(body: any): boolean {
  return body.thinking?.type === "enabled" || body.thinking?.type === "adaptive";
}

function _checkThinkingConfig(body: any): Refusal | undefined {
  if (body.thinking?.type !== "enabled") return undefined;
  const budget = body.thinking.budget_tokens;
  if (!Number.isInteger(budget)) return _bad("thinking.enabled.budget_tokens: Field required");
  if (budget < 1024) return _bad("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
  if (body.max_tokens <= budget) {
    return _bad(
      "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
    );
  }
  return undefined;
}

function _checkMessages(messages: any[], thinkingOn: boolean): Refusal | undefined {
  if (messages.length > 0 && messages[0]?.role !== "user") return _bad('messages: first message must use the "user" role');
  for (const [index, message] of messages.entries()) {
    if (message?.role !== "user" && message?.role !== "assistant") return _bad(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    const isFinalAssistant = index === messages.length - 1 && message.role === "assistant";
    const blocks = _blocks(message);
    if (blocks.length === 0 && !isFinalAssistant) {
      return _bad(`messages.${index}: all messages must have non-empty content except for the optional final assistant message`);
    }
    for (const [position, block] of blocks.entries()) {
      if (!_BLOCK_TYPES.has(block?.type))
        return _bad(`messages.${index}.content.${position}.type: Input tag '${block?.type}' found using 'type' does not match any of the expected tags`);
      if (block.type === "text" && block.text === "") return _bad("messages: text content blocks must be non-empty");
      if (block.type === "image") {
        const refusal = _checkImage(block, `messages.${index}.content.${position}.image`);
        if (refusal) return refusal;
      }
      if (block.type === "thinking" && message.role === "assistant") {
        if (typeof block.signature !== "string") return _bad(`messages.${index}.content.${position}.thinking.signature: Field required`);
        if (!verifyOpaque("thinking", String(block.thinking), block.signature))
          return _bad(`messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`);
      }
    }
    const refusal = _checkToolPairing(messages, index);
    if (refusal) return refusal;
  }
  return thinkingOn ? _checkThinkingFirst(messages) : undefined;
}

/** An image block as the API checks it: a base64 source with one of the four image types. */
function _checkImage(block: any, at: string): Refusal | undefined {
  const source = block.source;
  if (source?.type !== "base64") return _bad(`${at}.source: Input tag '${source?.type}' found using 'type' does not match any of the expected tags`);
  if (!["image/png", "image/jpeg", "image/gif", "image/webp"].includes(source.media_type)) {
    return _bad(`${at}.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
  }
  if (typeof source.data !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data)) return _bad(`${at}.source.base64.data: invalid base64 data`);
  return undefined;
}

function _checkToolPairing(messages: any[], index: number): Refusal | undefined {
  const blocks = _blocks(messages[index]);
  if (messages[index].role === "user") {
    const previous = messages[index - 1];
    const uses = previous?.role === "assistant" ? _toolUseIds(previous) : [];
    for (const [position, block] of blocks.entries()) {
      if (block.type === "tool_result" && !uses.includes(block.tool_use_id)) {
        return _bad(
          `messages.${index}.content.${position}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
    return undefined;
  }
  const next = messages[index + 1];
  const answered = new Set(
    next?.role === "user"
      ? _blocks(next)
          .filter((block) => block?.type === "tool_result")
          .map((block) => block.tool_use_id)
      : [],
  );
  const missing = _toolUseIds(messages[index]).filter((id) => !answered.has(id));
  if (missing.length === 0) return undefined;
  return _bad(
    `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
}

/** In a tool-use loop (the last message carries tool results) the assistant turn it answers must open with thinking. */
function _checkThinkingFirst(messages: any[]): Refusal | undefined {
  const last = messages.at(-1);
  if (last?.role !== "user" || !_blocks(last).some((block) => block?.type === "tool_result")) return undefined;
  const index = messages.length - 2;
  const first = _blocks(messages[index])[0]?.type;
  if (first === "thinking" || first === "redacted_thinking") return undefined;
  return _bad(
    `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}

function _blocks(message: any): any[] {
  if (typeof message?.content === "string") return message.content === "" ? [] : [{ type: "text", text: message.content }];
  return Array.isArray(message?.content) ? message.content : [];
}

function _toolUseIds(message: any): unknown[] {
  return _blocks(message)
    .filter((block) => block?.type === "tool_use")
    .map((block) => block.id);
}

function _contentBlocks(plan: ResponsePlan, ids: IdSource): Record<string, any>[] {
  const blocks: Record<string, any>[] = [];
  if (plan.reasoning.length > 0) {
    const thinking = plan.reasoning.join("");
    blocks.push({ type: "thinking", thinking, signature: signOpaque("thinking", thinking) });
  }
  if (plan.text.length > 0) blocks.push({ type: "text", text: plan.text.join("") });
  for (const call of plan.toolCalls) blocks.push({ type: "tool_use", id: call.id ?? ids.next("toolu_"), name: call.name, input: _parseInput(call.args) });
  return blocks;
}

function _stopReason(plan: ResponsePlan): string {
  if (plan.toolCalls.length > 0) return "tool_use";
  return plan.stop === "length" ? "max_tokens" : "end_turn";
}

function _usage(input: number, output: number): Record<string, number> {
  return { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output };
}

function renderMessage(plan: ResponsePlan, _body: any, ids: IdSource): unknown {
  return {
    id: ids.next("msg_"),
    type: "message",
    role: "assistant",
    model: plan.model,
    content: _contentBlocks(plan, ids),
    stop_reason: _stopReason(plan),
    stop_sequence: null,
    usage: _usage(plan.usage.input, plan.usage.output),
  };
}

function renderMessageEvents(plan: ResponsePlan, _body: any, ids: IdSource): string[] {
  const id = ids.next("msg_");
  const blocks = _contentBlocks(plan, ids);
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}) => frames.push(sseFrame({ type, ...fields }, type));
  emit("message_start", {
    message: {
      id,
      type: "message",
      role: "assistant",
      model: plan.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: _usage(plan.usage.input, 1),
    },
  });
  emit("ping");
  for (const [index, block] of blocks.entries()) {
    if (block.type === "thinking") {
      emit("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const thinking of plan.reasoning) emit("content_block_delta", { index, delta: { type: "thinking_delta", thinking } });
      emit("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
    } else if (block.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of plan.text) emit("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else {
      const args = plan.toolCalls[index - blocks.findIndex((candidate) => candidate.type === "tool_use")]!.args;
      emit("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      for (const partial_json of splitArgs(args)) emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    emit("content_block_stop", { index });
  }
  emit("message_delta", { delta: { stop_reason: _stopReason(plan), stop_sequence: null }, usage: _usage(plan.usage.input, plan.usage.output) });
  emit("message_stop");
  return frames;
}

/** A whole message can only carry an object input; unparsable scripted arguments become `{}`. */
function _parseInput(args: string): unknown {
  try {
    const value = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
