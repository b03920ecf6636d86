import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { estimateTokens, startFakeProvider, type FakeProvider, type FakeStep } from "../fakes/provider.ts";

const TOOL_STEP: FakeStep = {
  reasoning: ["Look at ", "both files."],
  text: ["Reading ", "two files."],
  toolCalls: [
    { name: "read_file", input: { path: "a.txt" } },
    { name: "read_file", input: { path: "b.txt", limit: 20 } },
  ],
};
// The fake's estimate for TOOL_STEP: 5 reasoning tokens (19 chars) + 20 for 79 chars of text, tool names and arguments.
const TOOL_STEP_OUTPUT_TOKENS = 25;
const ANTHROPIC_HEADERS = { "x-api-key": "sk-ant", "anthropic-version": "2023-06-01" };
const READ_FILE_SCHEMA = { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"] };

let fake: FakeProvider;
beforeEach(async () => {
  fake = await startFakeProvider();
});
afterEach(async () => {
  await fake.stop();
});

function openaiClient(provider = fake, options: { apiKey?: string; maxRetries?: number; timeout?: number } = {}): OpenAI {
  return new OpenAI({ baseURL: provider.baseURL, apiKey: options.apiKey ?? "sk-test", maxRetries: options.maxRetries ?? 0, timeout: options.timeout ?? 5000 });
}

function anthropicClient(provider = fake): Anthropic {
  return new Anthropic({ baseURL: provider.url, apiKey: "sk-ant", maxRetries: 0, timeout: 5000 });
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}, provider = fake): Promise<{ status: number; body: any }> {
  const response = await fetch(`${provider.baseURL}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, body: await response.json() };
}

function openaiError(message: string, param: string | null, code: string | null = null) {
  return { error: { message, type: "invalid_request_error", param, code } };
}

function anthropicError(message: string, type = "invalid_request_error") {
  return { type: "error", error: { type, message } };
}

describe("official openai client, chat completions", () => {
  test("a stream carries reasoning_content, text, two parallel tool calls by index, then a usage chunk", async () => {
    fake.script(TOOL_STEP);
    const body = {
      model: "gpt-5",
      messages: [
        { role: "developer" as const, content: "be brief" },
        { role: "user" as const, content: "read a and b" },
      ],
      tools: [{ type: "function" as const, function: { name: "read_file", description: "Read a file.", parameters: READ_FILE_SCHEMA } }],
      max_completion_tokens: 1000,
      reasoning_effort: "low" as const,
      stream: true as const,
      stream_options: { include_usage: true },
    };
    const stream = await openaiClient().chat.completions.create(body);
    let text = "";
    let reasoning = "";
    const calls: { id?: string; name?: string; args: string }[] = [];
    const finishReasons: unknown[] = [];
    let usage: unknown;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        const delta = choice.delta as typeof choice.delta & { reasoning_content?: string };
        text += delta.content ?? "";
        reasoning += delta.reasoning_content ?? "";
        for (const call of delta.tool_calls ?? []) {
          const slot = (calls[call.index] ??= { args: "" });
          slot.id ??= call.id;
          slot.name ??= call.function?.name;
          slot.args += call.function?.arguments ?? "";
        }
        if (choice.finish_reason) finishReasons.push(choice.finish_reason);
      }
    }
    expect({ text, reasoning, finishReasons }).toEqual({ text: "Reading two files.", reasoning: "Look at both files.", finishReasons: ["tool_calls"] });
    expect(calls).toEqual([
      { id: "call_fake000002", name: "read_file", args: '{"path":"a.txt"}' },
      { id: "call_fake000003", name: "read_file", args: '{"path":"b.txt","limit":20}' },
    ]);
    expect(usage).toEqual({
      prompt_tokens: estimateTokens(body),
      completion_tokens: TOOL_STEP_OUTPUT_TOKENS,
      total_tokens: estimateTokens(body) + TOOL_STEP_OUTPUT_TOKENS,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).toEqual(body);
    expect(fake.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(fake.violations).toEqual([]);
  });

  test("the client's own stream helper accumulates the same message", async () => {
    fake.script(TOOL_STEP);
    const stream = openaiClient().chat.completions.stream({ model: "gpt-5", messages: [{ role: "user", content: "go" }] });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe("Reading two files.");
    expect(completion.choices[0]!.message.tool_calls?.map((call) => call.type === "function" && [call.id, call.function.arguments])).toEqual([
      ["call_fake000002", '{"path":"a.txt"}'],
      ["call_fake000003", '{"path":"b.txt","limit":20}'],
    ]);
    expect(fake.violations).toEqual([]);
  });

  test("a non-streaming request gets the whole chat.completion", async () => {
    fake.script({ text: "done", reasoning: "short", toolCalls: [{ id: "call_mine", name: "ls", input: {} }], usage: { input: 7, output: 3 } });
    const completion = await openaiClient().chat.completions.create({ model: "gpt-5", messages: [{ role: "user", content: "list" }] });
    expect(completion.choices).toEqual([
      {
        index: 0,
        finish_reason: "tool_calls",
        logprobs: null,
        message: {
          role: "assistant",
          content: "done",
          refusal: null,
          annotations: [],
          reasoning_content: "short",
          tool_calls: [{ id: "call_mine", type: "function", function: { name: "ls", arguments: "{}" } }],
        } as any,
      },
    ]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  test("stop: length and rawArgs go out as scripted", async () => {
    fake.script({ text: "trunc", stop: "length" }, { toolCalls: [{ name: "edit", rawArgs: '{"path": "a' }] });
    const first = await openaiClient().chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] });
    const second = await openaiClient().chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] });
    expect(first.choices[0]!.finish_reason).toBe("length");
    expect(second.choices[0]!.message.tool_calls).toEqual([{ id: "call_fake000003", type: "function", function: { name: "edit", arguments: '{"path": "a' } }]);
  });
});

describe("official openai client, responses", () => {
  const request = {
    model: "gpt-5",
    instructions: "be brief",
    input: "read a and b",
    tools: [{ type: "function" as const, name: "read_file", description: "Read a file.", parameters: READ_FILE_SCHEMA, strict: false }],
    reasoning: { effort: "low" as const, summary: "auto" as const },
    store: false,
    include: ["reasoning.encrypted_content" as const],
  };

  test("a raw stream is numbered events: reasoning item, message, function calls, response.completed with usage", async () => {
    fake.script(TOOL_STEP);
    const events: any[] = [];
    for await (const event of await openaiClient().responses.create({ ...request, stream: true })) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map((event) => event.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const text = events
      .filter((event) => event.type === "response.output_text.delta")
      .map((event) => event.delta)
      .join("");
    const summary = events
      .filter((event) => event.type === "response.reasoning_summary_text.delta")
      .map((event) => event.delta)
      .join("");
    const completed = events.at(-1).response;
    expect({ text, summary }).toEqual({ text: "Reading two files.", summary: "Look at both files." });
    expect(completed.output.map((item: any) => [item.type, item.id, item.call_id])).toEqual([
      ["reasoning", "rs_fake000002", undefined],
      ["message", "msg_fake000003", undefined],
      ["function_call", "fc_fake000004", "call_fake000005"],
      ["function_call", "fc_fake000006", "call_fake000007"],
    ]);
    expect(completed.output[0]).toEqual({
      id: "rs_fake000002",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Look at both files." }],
      encrypted_content: expect.any(String),
    });
    expect(completed.output[3].arguments).toBe('{"path":"b.txt","limit":20}');
    expect(completed.usage).toEqual({
      input_tokens: estimateTokens(fake.requests[0]!.body),
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: TOOL_STEP_OUTPUT_TOKENS,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: estimateTokens(fake.requests[0]!.body) + TOOL_STEP_OUTPUT_TOKENS,
    });
    expect(fake.violations).toEqual([]);
  });

  test("the client's stream helper and a non-streaming call agree; replaying the output passes every check", async () => {
    fake.script(TOOL_STEP, TOOL_STEP, { text: "both read" });
    const streamed = await openaiClient().responses.stream(request).finalResponse();
    const whole = await openaiClient().responses.create(request);
    expect(streamed.output_text).toBe("Reading two files.");
    expect(whole.output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call", "function_call"]);
    const calls = whole.output.filter((item) => item.type === "function_call");
    const replay = await openaiClient().responses.create({
      ...request,
      input: [
        { role: "user", content: "read a and b" },
        ...(whole.output as OpenAI.Responses.ResponseInputItem[]),
        ...calls.map((call) => ({ type: "function_call_output" as const, call_id: call.call_id, output: "contents" })),
      ],
    });
    expect(replay.output_text).toBe("both read");
    expect(fake.violations).toEqual([]);
  });

  test("stop: length ends the stream with response.incomplete", async () => {
    fake.script({ text: "cut", stop: "length" });
    const events: any[] = [];
    for await (const event of await openaiClient().responses.create({ ...request, stream: true })) events.push(event);
    expect(events.at(-1)).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
    });
  });
});

describe("official anthropic client", () => {
  const request = {
    model: "claude-fake",
    max_tokens: 4096,
    system: [{ type: "text" as const, text: "be brief" }],
    tools: [{ name: "read_file", description: "Read a file.", input_schema: READ_FILE_SCHEMA as any }],
    thinking: { type: "enabled" as const, budget_tokens: 2048 },
    messages: [{ role: "user" as const, content: "read a and b" }],
  };

  test("messages.stream gets a signed thinking block, text and tool_use input; finalMessage matches", async () => {
    fake.script(TOOL_STEP);
    const stream = anthropicClient().messages.stream(request);
    const types: string[] = [];
    stream.on("streamEvent", (event) => types.push(event.type === "content_block_delta" ? event.delta.type : event.type));
    const message = await stream.finalMessage();
    expect(types).toEqual([
      "message_start",
      "content_block_start",
      "thinking_delta",
      "thinking_delta",
      "signature_delta",
      "content_block_stop",
      "content_block_start",
      "text_delta",
      "text_delta",
      "content_block_stop",
      "content_block_start",
      "input_json_delta",
      "input_json_delta",
      "input_json_delta",
      "content_block_stop",
      "content_block_start",
      "input_json_delta",
      "input_json_delta",
      "input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Look at both files.", signature: expect.any(String) },
      { type: "text", text: "Reading two files." },
      { type: "tool_use", id: "toolu_fake000002", name: "read_file", input: { path: "a.txt" } },
      { type: "tool_use", id: "toolu_fake000003", name: "read_file", input: { path: "b.txt", limit: 20 } },
    ] as any);
    expect({ stop: message.stop_reason, usage: message.usage }).toMatchObject({
      stop: "tool_use",
      usage: { input_tokens: estimateTokens(fake.requests[0]!.body), output_tokens: TOOL_STEP_OUTPUT_TOKENS },
    });
    expect(fake.violations).toEqual([]);
  });

  test("create returns the whole message, and replaying it with tool results passes the thinking checks", async () => {
    fake.script(TOOL_STEP, { text: "both read" });
    const message = await anthropicClient().messages.create(request);
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use", "tool_use"]);
    const results = message.content.flatMap((block) =>
      block.type === "tool_use" ? [{ type: "tool_result" as const, tool_use_id: block.id, content: "contents" }] : [],
    );
    const next = await anthropicClient().messages.create({
      ...request,
      messages: [...request.messages, { role: "assistant", content: message.content as any }, { role: "user", content: results }],
    });
    expect(next.content).toEqual([{ type: "text", text: "both read" }] as any);
    expect(next.stop_reason).toBe("end_turn");
    expect(fake.violations).toEqual([]);
  });
});

describe("invariants refused with the provider's status and error body", () => {
  const user = { role: "user", content: "go" };
  const assistantCalls = (...ids: string[]) => ({
    role: "assistant",
    content: null,
    tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "ls", arguments: "{}" } })),
  });
  const toolMessage = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });
  const call = (callId: string) => ({ type: "function_call", call_id: callId, name: "ls", arguments: "{}" });
  const output = (callId: string) => ({ type: "function_call_output", call_id: callId, output: "ok" });
  const assistantText = { role: "assistant", content: "hi" };
  const toolUse = { type: "tool_use", id: "toolu_a", name: "ls", input: {} };
  const toolResult = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });

  async function issuedReasoning(): Promise<any> {
    fake.script({ reasoning: "why", text: "hi" });
    const response = await post("/responses", { model: "m", input: "x", store: false });
    return response.body.output[0];
  }

  async function issuedThinking(): Promise<any> {
    fake.script({ reasoning: "why", toolCalls: [{ id: "toolu_a", name: "ls" }] });
    const response = await post("/messages", { model: "m", max_tokens: 100, messages: [user] }, ANTHROPIC_HEADERS);
    return response.body.content[0];
  }

  async function expectRefusedThenFixed(path: string, bad: unknown, fixed: unknown, status: number, error: unknown, headers: Record<string, string> = {}) {
    const refused = await post(path, bad, headers);
    expect(refused).toEqual({ status, body: error });
    const index = fake.requests.length - 1;
    expect(fake.violations.at(-1)).toEqual({ index, status, message: (error as any).error.message });
    fake.script({ text: "fine" });
    const accepted = await post(path, fixed, headers);
    expect(accepted.status).toBe(200);
    expect(fake.violations.at(-1)!.index).toBe(index);
  }

  test("chat: a tool message must answer a call of the assistant message before it", async () => {
    await expectRefusedThenFixed(
      "/chat/completions",
      { model: "m", messages: [user, toolMessage("call_x")] },
      { model: "m", messages: [user, assistantCalls("call_x"), toolMessage("call_x")] },
      400,
      openaiError("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", "messages.[1].role"),
    );
  });

  test("chat: every tool call needs a tool message", async () => {
    await expectRefusedThenFixed(
      "/chat/completions",
      { model: "m", messages: [user, assistantCalls("call_a", "call_b"), toolMessage("call_a")] },
      { model: "m", messages: [user, assistantCalls("call_a", "call_b"), toolMessage("call_a"), toolMessage("call_b")] },
      400,
      openaiError(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_b",
        "messages.[1].role",
      ),
    );
  });

  test("responses: outputs need their call, calls need their output", async () => {
    await expectRefusedThenFixed(
      "/responses",
      { model: "m", input: [user, output("call_x")] },
      { model: "m", input: [user, call("call_x"), output("call_x")] },
      400,
      openaiError("No tool call found for function call output with call_id call_x.", "input"),
    );
    await expectRefusedThenFixed(
      "/responses",
      { model: "m", input: [user, call("call_y")] },
      { model: "m", input: [user, call("call_y"), output("call_y")] },
      400,
      openaiError("No tool output found for function call call_y.", "input"),
    );
  });

  test("responses: reasoning needs its following item and, unstored, its verified encrypted_content", async () => {
    const reasoning = await issuedReasoning();
    const body = (...input: unknown[]) => ({ model: "m", store: false, input: [user, ...input] });
    await expectRefusedThenFixed(
      "/responses",
      body(reasoning, user),
      body(reasoning, assistantText, user),
      400,
      openaiError(`Item '${reasoning.id}' of type 'reasoning' was provided without its required following item.`, "input"),
    );
    const { encrypted_content: _, ...bare } = reasoning;
    await expectRefusedThenFixed(
      "/responses",
      body(bare, assistantText),
      body(reasoning, assistantText),
      400,
      openaiError(
        `Reasoning item '${reasoning.id}' has no encrypted_content. Items are not persisted when \`store\` is set to false, so replay reasoning items with the encrypted_content they were returned with.`,
        "input",
      ),
    );
    await expectRefusedThenFixed(
      "/responses",
      body({ ...reasoning, encrypted_content: "gAAAAforged" }, assistantText),
      body(reasoning, assistantText),
      400,
      openaiError(`The encrypted content for item ${reasoning.id} could not be verified.`, "input"),
    );
  });

  test("responses: nothing is persisted, so item_reference and previous_response_id are refused", async () => {
    await expectRefusedThenFixed(
      "/responses",
      { model: "m", store: false, input: [user, { type: "item_reference", id: "msg_old" }] },
      { model: "m", store: false, input: [user] },
      404,
      openaiError(
        "Item with id 'msg_old' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        "input",
      ),
    );
    await expectRefusedThenFixed(
      "/responses",
      { model: "m", store: false, previous_response_id: "resp_old", input: [user] },
      { model: "m", store: false, input: [user] },
      400,
      openaiError("Previous response with id 'resp_old' not found.", "previous_response_id", "previous_response_not_found"),
    );
  });

  test("anthropic: tool_use must be answered in the very next message, and only there", async () => {
    const assistant = { role: "assistant", content: [toolUse] };
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 10, messages: [user, assistant, user] },
      { model: "m", max_tokens: 10, messages: [user, assistant, { role: "user", content: [toolResult("toolu_a")] }] },
      400,
      anthropicError(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
      ),
      ANTHROPIC_HEADERS,
    );
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 10, messages: [user, { role: "assistant", content: "hi" }, { role: "user", content: [toolResult("toolu_z")] }] },
      { model: "m", max_tokens: 10, messages: [user, { role: "assistant", content: "hi" }, user] },
      400,
      anthropicError(
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_z. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
      ),
      ANTHROPIC_HEADERS,
    );
  });

  test("anthropic: with thinking on, the assistant turn of a tool loop starts with a thinking block the fake signed", async () => {
    const thinking = await issuedThinking();
    const body = (...assistantBlocks: unknown[]) => ({
      model: "m",
      max_tokens: 2048,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [user, { role: "assistant", content: assistantBlocks }, { role: "user", content: [toolResult("toolu_a")] }],
    });
    await expectRefusedThenFixed(
      "/messages",
      body(toolUse),
      body(thinking, toolUse),
      400,
      anthropicError(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
      ),
      ANTHROPIC_HEADERS,
    );
    await expectRefusedThenFixed(
      "/messages",
      body({ ...thinking, signature: "Zm9yZ2Vk" }, toolUse),
      body(thinking, toolUse),
      400,
      anthropicError("messages.1.content.0: Invalid `signature` in `thinking` block"),
      ANTHROPIC_HEADERS,
    );
    await expectRefusedThenFixed(
      "/messages",
      body({ ...thinking, thinking: "edited" }, toolUse),
      body(thinking, toolUse),
      400,
      anthropicError("messages.1.content.0: Invalid `signature` in `thinking` block"),
      ANTHROPIC_HEADERS,
    );
  });

  test("anthropic: the first message is the user's and text blocks are non-empty", async () => {
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 10, messages: [{ role: "assistant", content: "hi" }, user] },
      { model: "m", max_tokens: 10, messages: [user] },
      400,
      anthropicError('messages: first message must use the "user" role'),
      ANTHROPIC_HEADERS,
    );
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] },
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] },
      400,
      anthropicError("messages: text content blocks must be non-empty"),
      ANTHROPIC_HEADERS,
    );
  });

  test("anthropic: an image block needs a base64 source of one of the four image types", async () => {
    const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
    const withImage = (source: unknown) => ({
      model: "m",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source },
            { type: "text", text: "x" },
          ],
        },
      ],
    });
    const good = { type: "base64", media_type: "image/png", data: PNG };
    const bad: [unknown, string][] = [
      [{ ...good, type: "bytes" }, "messages.0.content.0.image.source: Input tag 'bytes' found using 'type' does not match any of the expected tags"],
      [
        { ...good, media_type: "image/tiff" },
        "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
      ],
      [{ ...good, data: `data:image/png;base64,${PNG}` }, "messages.0.content.0.image.source.base64.data: invalid base64 data"],
    ];
    for (const [source, message] of bad) {
      await expectRefusedThenFixed("/messages", withImage(source), withImage(good), 400, anthropicError(message), ANTHROPIC_HEADERS);
    }
  });

  test("anthropic: only a final assistant message may be empty; the thinking budget is within limits", async () => {
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 10, messages: [user, { role: "assistant", content: [] }, user] },
      { model: "m", max_tokens: 10, messages: [user, { role: "assistant", content: [] }] },
      400,
      anthropicError("messages.1: all messages must have non-empty content except for the optional final assistant message"),
      ANTHROPIC_HEADERS,
    );
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 512 }, messages: [user] },
      { model: "m", max_tokens: 4000, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [user] },
      400,
      anthropicError("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
      ANTHROPIC_HEADERS,
    );
    await expectRefusedThenFixed(
      "/messages",
      { model: "m", max_tokens: 1024, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [user] },
      { model: "m", max_tokens: 1025, thinking: { type: "enabled", budget_tokens: 1024 }, messages: [user] },
      400,
      anthropicError(
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
      ),
      ANTHROPIC_HEADERS,
    );
  });

  test("anthropic: a key and anthropic-version are required", async () => {
    const body = { model: "m", max_tokens: 10, messages: [user] };
    expect(await post("/messages", body, { "anthropic-version": "2023-06-01" })).toEqual({
      status: 401,
      body: anthropicError("x-api-key header is required", "authentication_error"),
    });
    expect(await post("/messages", body, { "x-api-key": "k" })).toEqual({ status: 400, body: anthropicError("anthropic-version: header is required") });
    expect(fake.violations.map((violation) => violation.status)).toEqual([401, 400]);
  });

  test("a body over the context window is refused in each protocol's words", async () => {
    const small = await startFakeProvider({ contextWindow: 30 });
    try {
      const long = "x".repeat(200);
      const chat = { model: "m", messages: [{ role: "user", content: long }] };
      const responses = { model: "m", input: long };
      const messages = { model: "m", max_tokens: 10, messages: [{ role: "user", content: long }] };
      expect(await post("/chat/completions", chat, {}, small)).toEqual({
        status: 400,
        body: openaiError(
          `This model's maximum context length is 30 tokens. However, your messages resulted in ${estimateTokens(chat)} tokens. Please reduce the length of the messages.`,
          "messages",
          "context_length_exceeded",
        ),
      });
      expect(await post("/responses", responses, {}, small)).toEqual({
        status: 400,
        body: openaiError("Your input exceeds the context window of this model. Please adjust your input and try again.", "input", "context_length_exceeded"),
      });
      expect(await post("/messages", messages, ANTHROPIC_HEADERS, small)).toEqual({
        status: 400,
        body: anthropicError(`prompt is too long: ${estimateTokens(messages)} tokens > 30 maximum`),
      });
      expect(small.violations.map((violation) => violation.index)).toEqual([0, 1, 2]);
    } finally {
      await small.stop();
    }
  });

  test("with apiKey set, a wrong key gets the real 401 bodies", async () => {
    const keyed = await startFakeProvider({ apiKey: "sk-right" });
    try {
      const chat = { model: "m", messages: [user] };
      expect(await post("/chat/completions", chat, { authorization: "Bearer sk-wrong-key-123" }, keyed)).toEqual({
        status: 401,
        body: openaiError(
          "Incorrect API key provided: sk-*********-123. You can find your API key at https://platform.openai.com/account/api-keys.",
          null,
          "invalid_api_key",
        ),
      });
      expect(await post("/messages", { model: "m", max_tokens: 10, messages: [user] }, ANTHROPIC_HEADERS, keyed)).toEqual({
        status: 401,
        body: anthropicError("invalid x-api-key", "authentication_error"),
      });
      const error = await openaiClient(keyed, { apiKey: "sk-nope" })
        .chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] })
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      keyed.script({ text: "welcome" });
      const accepted = await openaiClient(keyed, { apiKey: "sk-right" }).chat.completions.create({ model: "m", messages: [{ role: "user", content: "x" }] });
      expect(accepted.choices[0]!.message.content).toBe("welcome");
    } finally {
      await keyed.stop();
    }
  });

  test("bodies are validated against the OpenAPI spec unless schemaCheck is off", async () => {
    const bad = { model: "m", messages: [{ role: "robot", content: "x" }] };
    expect(await post("/chat/completions", bad)).toEqual({
      status: 400,
      body: openaiError(
        'Invalid request body: messages[0].role must be one of "developer", "system", "user", "assistant", "tool", "function".',
        "messages[0].role",
        "invalid_value",
      ),
    });
    expect(await post("/responses", { model: "m", input: "x", temperature: "hot" })).toEqual({
      status: 400,
      body: openaiError("Invalid request body: temperature must be number.", "temperature", "invalid_value"),
    });
    const lax = await startFakeProvider({ schemaCheck: false });
    try {
      lax.script({ text: "ok" });
      expect((await post("/chat/completions", bad, {}, lax)).status).toBe(200);
      expect(lax.violations).toEqual([]);
    } finally {
      await lax.stop();
    }
  });
});

describe("scripted behaviour", () => {
  const chat = { model: "m", messages: [{ role: "user" as const, content: "x" }] };

  test("a 429 carries its retry-after header; a client that retries gets the next step", async () => {
    fake.script({ error: { status: 429, headers: { "retry-after": "1" } } });
    const error = await openaiClient()
      .chat.completions.create(chat)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect([error.status, error.headers.get("retry-after"), error.error]).toEqual([
      429,
      "1",
      { message: "Rate limit reached for requests. Please try again in 1s.", type: "requests", param: null, code: "rate_limit_exceeded" },
    ]);
    fake.script({ error: { status: 429, headers: { "retry-after": "0" } } }, { text: "after retry" });
    const retried = await openaiClient(fake, { maxRetries: 1 }).chat.completions.create(chat);
    expect(retried.choices[0]!.message.content).toBe("after retry");
    expect(fake.requests).toHaveLength(3);
    expect(fake.violations).toEqual([]);
  });

  test("a 500 arrives in the protocol's shape, with a scripted message when given", async () => {
    fake.script({ error: { status: 500 } }, { error: { status: 529, message: "Overloaded", type: "overloaded_error" } });
    const error = await anthropicClient()
      .messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.error).toEqual(anthropicError("Internal server error", "api_error"));
    expect(await post("/messages", { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] }, ANTHROPIC_HEADERS)).toEqual({
      status: 529,
      body: anthropicError("Overloaded", "overloaded_error"),
    });
  });

  test("an empty script answers 500 'fake provider: script exhausted'; a responder fills in", async () => {
    expect(await post("/chat/completions", chat)).toEqual({
      status: 500,
      body: { error: { message: "fake provider: script exhausted", type: "server_error", param: null, code: null } },
    });
    fake.respond((request, index) => ({ text: `${request.protocol} #${index}` }));
    const completion = await openaiClient().chat.completions.create(chat);
    expect(completion.choices[0]!.message.content).toBe("openai-chat #1");
  });

  test("stallMs holds the headers past the client's deadline", async () => {
    fake.script({ text: "late", stallMs: 10_000 }, { text: "on time" });
    const error = await openaiClient(fake, { timeout: 200 })
      .chat.completions.create(chat)
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    expect((await openaiClient().chat.completions.create(chat)).choices[0]!.message.content).toBe("on time");
  });

  test("stallMidStreamMs sends the first chunk, then nothing until the stall ends", async () => {
    fake.script({ text: ["a", "b"], stallMidStreamMs: 10_000 }, { text: ["c", "d"], stallMidStreamMs: 20 });
    const controller = new AbortController();
    const response = await fetch(`${fake.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ ...chat, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toStartWith('data: {"id":"chatcmpl-fake000001"');
    const next = await Promise.race([reader.read().then(() => "more data"), new Promise((resolve) => setTimeout(() => resolve("still stalled"), 150))]);
    expect(next).toBe("still stalled");
    controller.abort();
    let text = "";
    for await (const chunk of await openaiClient().chat.completions.create({ ...chat, stream: true })) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("cd");
  });

  test("dropMidStream closes the connection after the first chunk, streamed or whole", async () => {
    fake.script({ text: ["a", "b"], dropMidStream: true }, { text: "whole", dropMidStream: true });
    const seen: unknown[] = [];
    const streamed = await (async () => {
      for await (const chunk of await openaiClient().chat.completions.create({ ...chat, stream: true })) seen.push(chunk.choices[0]?.delta);
    })().catch((caught) => caught);
    expect(streamed).toBeInstanceOf(Error);
    expect(seen).toEqual([{ role: "assistant", content: "", refusal: null }]);
    const whole = await openaiClient()
      .chat.completions.create(chat)
      .catch((caught) => caught);
    expect(whole).toBeInstanceOf(Error);
  });

  test("stop() ends a stalled request", async () => {
    const stalled = await startFakeProvider();
    stalled.script({ text: "never", stallMs: 60_000 });
    const pending = fetch(`${stalled.baseURL}/chat/completions`, { method: "POST", body: JSON.stringify(chat) }).then(
      (response) => response.status,
      (error: Error) => error.name,
    );
    while (stalled.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await stalled.stop();
    expect(await pending).not.toBe(200);
  });
});

describe("routes", () => {
  test("GET /v1/models answers in the shape the caller's protocol expects", async () => {
    const listed = await startFakeProvider({ models: ["m-1", "m-2"] });
    try {
      const openaiModels = await openaiClient(listed).models.list();
      expect(openaiModels.data).toEqual([
        { id: "m-1", object: "model", created: 1_700_000_000, owned_by: "fake-provider" },
        { id: "m-2", object: "model", created: 1_700_000_000, owned_by: "fake-provider" },
      ]);
      const anthropicModels = await anthropicClient(listed).models.list();
      expect(anthropicModels.data.map((model) => [model.type, model.id, model.display_name])).toEqual([
        ["model", "m-1", "m-1"],
        ["model", "m-2", "m-2"],
      ]);
      expect(listed.requests).toEqual([]);
    } finally {
      await listed.stop();
    }
  });

  test("a body that is not a JSON object is recorded raw and refused", async () => {
    const response = await fetch(`${fake.baseURL}/chat/completions`, { method: "POST", body: "{oops", signal: AbortSignal.timeout(5000) });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: openaiError('We could not parse the JSON body of your request: expected a JSON object, got "{oops"', null),
    });
    expect(fake.requests.map((request) => [request.protocol, request.method, request.path, request.body])).toEqual([
      ["openai-chat", "POST", "/v1/chat/completions", "{oops"],
    ]);
    expect(fake.violations).toEqual([
      { index: 0, status: 400, message: 'We could not parse the JSON body of your request: expected a JSON object, got "{oops"' },
    ]);
  });

  test("POST /v1/embeddings: the official client parses the answer; a body off the schema is refused and listed", async () => {
    const answer = await openaiClient().embeddings.create({
      model: "fake-embed",
      input: ["login redirect", "login redirect loops", "database"],
      encoding_format: "float",
    });
    expect([answer.object, answer.model, answer.data.map((item) => [item.object, item.index, item.embedding.length])]).toEqual([
      "list",
      "fake-embed",
      [
        ["embedding", 0, 64],
        ["embedding", 1, 64],
        ["embedding", 2, 64],
      ],
    ]);
    const [a, b, c] = answer.data.map((item) => item.embedding);
    const dot = (x: number[], y: number[]) => x.reduce((sum, value, i) => sum + value * y[i]!, 0);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
    fake.embedWith((text) => [text.length, 1]);
    expect((await post("/embeddings", { model: "m", input: "four" })).body.data).toEqual([{ object: "embedding", index: 0, embedding: [4, 1] }]);
    expect(await post("/embeddings", { model: "m", input: "x", dimensions: "many" })).toEqual({
      status: 400,
      body: openaiError("Invalid request body: dimensions must be integer.", "dimensions", "invalid_value"),
    });
    expect(fake.embeddingRequests.map((request) => request.body.model)).toEqual(["fake-embed", "m", "m"]);
    expect(fake.requests).toEqual([]);
    expect(fake.violations).toEqual([{ index: -1, status: 400, message: "Invalid request body: dimensions must be integer." }]);
    fake.violations.length = 0;
  });

  test("an unknown route is a 404 naming it", async () => {
    expect(await post("/completions", {})).toEqual({ status: 404, body: openaiError("Invalid URL (POST /v1/completions)", null) });
  });

  test("onArrival hears each request before its body is read or checked, a refused one too", async () => {
    const heard: string[] = [];
    const noted = await startFakeProvider({ onArrival: (method, path) => heard.push(`${method} ${path} after ${noted.requests.length} recorded`) });
    try {
      noted.respond(() => {
        heard.push("responder");
        return { text: "hi" };
      });
      await post("/chat/completions", { model: "m", messages: [{ role: "user", content: "hi" }] }, {}, noted);
      await post("/chat/completions", { model: "m" }, {}, noted);
      await openaiClient(noted).models.list();
      expect(heard).toEqual([
        "POST /v1/chat/completions after 0 recorded",
        "responder",
        "POST /v1/chat/completions after 1 recorded",
        "GET /v1/models after 2 recorded",
      ]);
      expect(noted.violations.map((violation) => violation.index)).toEqual([1]);
    } finally {
      await noted.stop();
    }
  });
});
