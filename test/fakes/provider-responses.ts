/**
 * `POST /v1/responses` as the fake speaks it. Nothing is ever persisted, so the checks are those
 * of a stateless caller: every `function_call` has its output and every output its call, a
 * `reasoning` item is followed by the item it produced and carries the `encrypted_content` the
 * fake issued, and `item_reference` / `previous_response_id` are refused. Output order is
 * reasoning, message, function calls; a stream is `event:`/`data:` pairs with `sequence_number`.
 */
import { authorizeOpenAI, defaultOpenAIError, toOpenAIErrorBody } from "./provider-openai-errors.ts";
import { signOpaque, splitArgs, sseFrame, verifyOpaque, type IdSource, type Refusal, type ResponsePlan, type WireProtocol } from "./provider-wire.ts";

export const responsesProtocol: WireProtocol = {
  name: "openai-responses",
  path: "/responses",
  authorize: authorizeOpenAI,
  check: checkResponsesBody,
  overflow: () => ({
    status: 400,
    code: "context_length_exceeded",
    param: "input",
    message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
  }),
  errorBody: toOpenAIErrorBody,
  defaultError: defaultOpenAIError,
  renderJson: (plan, body, ids) => _responseObject(body, plan, ids.next("resp_"), _buildOutput(plan, ids), true),
  renderStream: renderResponseEvents,
};

export function checkResponsesBody(body: any): Refusal | undefined {
  const stored = body?.store !== false;
  if (typeof body?.previous_response_id === "string") {
    return {
      status: 400,
      param: "previous_response_id",
      code: "previous_response_not_found",
      message: `Previous response with id '${body.previous_response_id}' not found.`,
    };
  }
  const input: any[] = Array.isArray(body?.input) ? body.input : [];
  const calls = new Set<unknown>();
  const outputs = new Set<unknown>();
  for (const [index, item] of input.entries()) {
    const type = _itemType(item);
    if (type === "item_reference") {
      const hint = stored
        ? ""
        : " Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.";
      return { status: 404, param: "input", message: `Item with id '${item.id}' not found.${hint}` };
    }
    if (type === "reasoning") {
      const refusal = _checkReasoning(item, input[index + 1], stored);
      if (refusal) return refusal;
    }
    if (type === "function_call") calls.add(item.call_id);
    if (type === "function_call_output") {
      if (!calls.has(item.call_id)) {
        return { status: 400, param: "input", message: `No tool call found for function call output with call_id ${item.call_id}.` };
      }
      outputs.add(item.call_id);
    }
  }
  const unanswered = [...calls].find((callId) => !outputs.has(callId));
  if (unanswered !== undefined) return { status: 400, param: "input", message: `No tool output found for function call ${unanswered}.` };
  return undefined;
}

function _checkReasoning(item: any, following: any, stored: boolean): Refusal | undefined {
  const nextType = _itemType(following);
  if (nextType !== "function_call" && !(nextType === "message" && following.role === "assistant")) {
    return { status: 400, param: "input", message: `Item '${item.id}' of type 'reasoning' was provided without its required following item.` };
  }
  if (item.encrypted_content === undefined || item.encrypted_content === null) {
    if (stored) return undefined;
    return {
      status: 400,
      param: "input",
      message: `Reasoning item '${item.id}' has no encrypted_content. Items are not persisted when \`store\` is set to false, so replay reasoning items with the encrypted_content they were returned with.`,
    };
  }
  if (!verifyOpaque("reasoning", String(item.id), item.encrypted_content)) {
    return { status: 400, param: "input", message: `The encrypted content for item ${item.id} could not be verified.` };
  }
  return undefined;
}

function _itemType(item: any): string | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  if (typeof item.type === "string") return item.type;
  return typeof item.role === "string" ? "message" : undefined;
}

interface _OutputItem {
  done: Record<string, any>;
  /** The item as `response.output_item.added` shows it, before any delta. */
  added: Record<string, any>;
  /** The chunks that fill it in. */
  chunks: string[];
}

/** Reasoning items always carry `encrypted_content`, as the current API populates it by default. */
function _buildOutput(plan: ResponsePlan, ids: IdSource): _OutputItem[] {
  const items: _OutputItem[] = [];
  if (plan.reasoning.length > 0) {
    const id = ids.next("rs_");
    const summary = plan.reasoning.join("");
    items.push({
      added: { id, type: "reasoning", summary: [] },
      done: { id, type: "reasoning", summary: [{ type: "summary_text", text: summary }], encrypted_content: signOpaque("reasoning", id) },
      chunks: plan.reasoning,
    });
  }
  if (plan.text.length > 0) {
    const id = ids.next("msg_");
    items.push({
      added: { id, type: "message", status: "in_progress", role: "assistant", content: [] },
      done: { id, type: "message", status: "completed", role: "assistant", content: [_textPart(plan.text.join(""))] },
      chunks: plan.text,
    });
  }
  for (const call of plan.toolCalls) {
    const fields = { id: ids.next("fc_"), type: "function_call", call_id: call.id ?? ids.next("call_"), name: call.name };
    items.push({
      added: { ...fields, status: "in_progress", arguments: "" },
      done: { ...fields, status: "completed", arguments: call.args },
      chunks: splitArgs(call.args),
    });
  }
  return items;
}

function renderResponseEvents(plan: ResponsePlan, body: any, ids: IdSource): string[] {
  const responseId = ids.next("resp_");
  const items = _buildOutput(plan, ids);
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) => frames.push(sseFrame({ type, sequence_number: frames.length, ...fields }, type));
  const pending = _responseObject(body, plan, responseId, [], false);
  emit("response.created", { response: pending });
  emit("response.in_progress", { response: pending });
  for (const [outputIndex, item] of items.entries()) {
    const at = { item_id: item.done.id, output_index: outputIndex };
    emit("response.output_item.added", { output_index: outputIndex, item: item.added });
    if (item.done.type === "reasoning") {
      const text = item.done.summary[0].text;
      emit("response.reasoning_summary_part.added", { ...at, summary_index: 0, part: { type: "summary_text", text: "" } });
      for (const delta of item.chunks) emit("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta });
      emit("response.reasoning_summary_text.done", { ...at, summary_index: 0, text });
      emit("response.reasoning_summary_part.done", { ...at, summary_index: 0, part: { type: "summary_text", text } });
    } else if (item.done.type === "message") {
      const text = item.done.content[0].text;
      emit("response.content_part.added", { ...at, content_index: 0, part: _textPart("") });
      for (const delta of item.chunks) emit("response.output_text.delta", { ...at, content_index: 0, delta, logprobs: [] });
      emit("response.output_text.done", { ...at, content_index: 0, text, logprobs: [] });
      emit("response.content_part.done", { ...at, content_index: 0, part: _textPart(text) });
    } else {
      for (const delta of item.chunks) emit("response.function_call_arguments.delta", { ...at, delta });
      emit("response.function_call_arguments.done", { ...at, name: item.done.name, arguments: item.done.arguments });
    }
    emit("response.output_item.done", { output_index: outputIndex, item: item.done });
  }
  const final = _responseObject(body, plan, responseId, items, true);
  emit(final.status === "completed" ? "response.completed" : "response.incomplete", { response: final });
  return frames;
}

function _textPart(text: string): Record<string, unknown> {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

function _responseObject(body: any, plan: ResponsePlan, id: string, items: _OutputItem[], finished: boolean): Record<string, any> {
  const truncated = finished && plan.stop === "length" && plan.toolCalls.length === 0;
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: !finished ? "in_progress" : truncated ? "incomplete" : "completed",
    background: false,
    error: null,
    incomplete_details: truncated ? { reason: "max_output_tokens" } : null,
    instructions: body?.instructions ?? null,
    max_output_tokens: body?.max_output_tokens ?? null,
    model: plan.model,
    output: items.map((item) => item.done),
    parallel_tool_calls: body?.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: body?.reasoning?.effort ?? null, summary: body?.reasoning?.summary ?? null },
    store: body?.store ?? true,
    temperature: body?.temperature ?? 1,
    text: body?.text ?? { format: { type: "text" } },
    tool_choice: body?.tool_choice ?? "auto",
    tools: body?.tools ?? [],
    top_p: body?.top_p ?? 1,
    truncation: "disabled",
    usage: finished
      ? {
          input_tokens: plan.usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: plan.usage.output,
          output_tokens_details: { reasoning_tokens: plan.usage.reasoning },
          total_tokens: plan.usage.input + plan.usage.output,
        }
      : null,
    user: null,
    metadata: body?.metadata ?? {},
  };
}
