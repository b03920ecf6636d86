/**
 * `POST /v1/chat/completions` as the fake speaks it: OpenAI's tool-message pairing rules, the
 * whole `chat.completion` object, or `chat.completion.chunk` data lines ending in `[DONE]`
 * (tool calls streamed by `index`, reasoning as `reasoning_content` deltas, a usage chunk with
 * empty `choices` when `stream_options.include_usage` is set).
 */
import { authorizeOpenAI, defaultOpenAIError, toOpenAIErrorBody } from "./provider-openai-errors.ts";
import { splitArgs, sseFrame, type IdSource, type Refusal, type ResponsePlan, type WireProtocol } from "./provider-wire.ts";

export const chatProtocol: WireProtocol = {
  name: "openai-chat",
  path: "/chat/completions",
  authorize: authorizeOpenAI,
  check: checkChatBody,
  overflow: (tokens, window) => ({
    status: 400,
    code: "context_length_exceeded",
    param: "messages",
    message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
  }),
  errorBody: toOpenAIErrorBody,
  defaultError: defaultOpenAIError,
  renderJson: renderChatCompletion,
  renderStream: renderChatChunks,
};

/** Every `tool` message answers a call of the assistant message before its run of tool messages, and every call is answered. */
export function checkChatBody(body: any): Refusal | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  for (const [index, message] of messages.entries()) {
    if (message?.role === "tool") {
      let owner = index - 1;
      while (owner >= 0 && messages[owner]?.role === "tool") owner--;
      if (!_callIds(messages[owner]).includes(message.tool_call_id)) {
        return {
          status: 400,
          param: `messages.[${index}].role`,
          message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        };
      }
    }
    const calls = _callIds(message);
    if (calls.length === 0) continue;
    const answered = new Set<unknown>();
    for (let next = index + 1; messages[next]?.role === "tool"; next++) answered.add(messages[next].tool_call_id);
    const missing = calls.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return {
        status: 400,
        param: `messages.[${index}].role`,
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(", ")}`,
      };
    }
  }
  return undefined;
}

function renderChatCompletion(plan: ResponsePlan, _body: any, ids: IdSource): unknown {
  const id = ids.next("chatcmpl-");
  const calls = _assignIds(plan, ids);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: plan.text.length > 0 || calls.length === 0 ? plan.text.join("") : null,
    refusal: null,
    annotations: [],
  };
  if (plan.reasoning.length > 0) message.reasoning_content = plan.reasoning.join("");
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.args } }));
  }
  return {
    id,
    object: "chat.completion",
    created: _now(),
    model: plan.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: _finishReason(plan) }],
    usage: _usage(plan),
    system_fingerprint: "fp_fake",
  };
}

function renderChatChunks(plan: ResponsePlan, body: any, ids: IdSource): string[] {
  const head = { id: ids.next("chatcmpl-"), object: "chat.completion.chunk", created: _now(), model: plan.model, system_fingerprint: "fp_fake" };
  const calls = _assignIds(plan, ids);
  const withUsage = body?.stream_options?.include_usage === true;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) =>
    sseFrame({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...(withUsage ? { usage: null } : {}) });
  const frames = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of plan.reasoning) frames.push(chunk({ reasoning_content: piece }));
  for (const piece of plan.text) frames.push(chunk({ content: piece }));
  for (const [index, call] of calls.entries()) {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitArgs(call.args)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  frames.push(chunk({}, _finishReason(plan)));
  if (withUsage) frames.push(sseFrame({ ...head, choices: [], usage: _usage(plan) }));
  frames.push(sseFrame("[DONE]"));
  return frames;
}

function _callIds(message: any): unknown[] {
  if (message?.role !== "assistant" || !Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.map((call: any) => call?.id);
}

function _assignIds(plan: ResponsePlan, ids: IdSource): { id: string; name: string; args: string }[] {
  return plan.toolCalls.map((call) => ({ ...call, id: call.id ?? ids.next("call_") }));
}

function _finishReason(plan: ResponsePlan): string {
  return plan.toolCalls.length > 0 ? "tool_calls" : plan.stop;
}

function _usage(plan: ResponsePlan): unknown {
  return {
    prompt_tokens: plan.usage.input,
    completion_tokens: plan.usage.output,
    total_tokens: plan.usage.input + plan.usage.output,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: plan.usage.reasoning },
  };
}

function _now(): number {
  return Math.floor(Date.now() / 1000);
}
