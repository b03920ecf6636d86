/** Windows per model family, the limit each vendor's context-length error states, the threshold that follows the window, and overflow recovery. */
import { describe, expect, test } from "bun:test";
import { describePromptTooLarge, recoverFromOverflow } from "../../lib/agent/context/overflow.ts";
import { createContextWindow } from "../../lib/agent/context/window.ts";
import { OLLAMA_DEFAULT_CONTEXT, queryModelWindow } from "../../lib/providers/window-query.ts";
import { lookupModelWindow, readWindowFromError, UNKNOWN_MODEL_WINDOW } from "../../lib/providers/windows.ts";

describe("readWindowFromError", () => {
  const cases: [string, number | undefined][] = [
    ["This model's maximum context length is 16385 tokens. However, your messages resulted in 20000 tokens.", 16_385],
    ["This model's maximum context length is 8,192 tokens. However, you requested 8500 tokens (7500 in the messages, 1000 in the completion).", 8_192],
    ["prompt is too long: 212345 tokens > 200000 maximum", 200_000],
    ["The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1_048_576],
    ["the request exceeds the available context size, try increasing the context size (n_ctx: 4096)", 4_096],
    ["input length exceeds the context length of 8192", 8_192],
    ["This model's maximum prompt length is 131072 but the request contains 140000 tokens.", 131_072],
    ["Your input exceeds the context window of this model. Please adjust your input and try again.", undefined],
    ["context window exceeded", undefined],
  ];
  for (const [message, expected] of cases) {
    test(message.slice(0, 60), () => expect(readWindowFromError(message)).toBe(expected));
  }
});

describe("the window and its threshold", () => {
  test("families by prefix, vendor paths dropped; unknown models start from the conservative default", () => {
    expect(lookupModelWindow("gpt-5-mini")?.window).toBe(400_000);
    expect(lookupModelWindow("anthropic/claude-sonnet-4.5")?.window).toBe(200_000);
    expect(lookupModelWindow("my-local-thing")).toBeUndefined();
    expect(createContextWindow({ model: () => "my-local-thing" }).current()).toEqual({ window: UNKNOWN_MODEL_WINDOW.window, source: "default" });
  });

  test("threshold = (window - reserve) * 0.8; config threshold replaces it until a window is learned, then caps it", () => {
    expect(createContextWindow({ model: () => "claude-sonnet-4-5" }).threshold()).toBe(120_000);
    expect(createContextWindow({ model: () => "x", configured: 16_000 }).threshold()).toBe(Math.floor((16_000 - 4_000) * 0.8));
    const configured = createContextWindow({ model: () => "gpt-5", threshold: 50_000 });
    expect(configured.threshold()).toBe(50_000);
    expect(configured.learn("maximum context length is 20000 tokens", 30_000)).toBe(20_000);
    expect(configured.current()).toEqual({ window: 20_000, source: "learned" });
    expect(configured.threshold()).toBe(12_000);
  });

  test("without a stated limit the window shrinks below the request; a larger stated limit does not grow it", () => {
    const window = createContextWindow({ model: () => "x", configured: 16_000 });
    expect(window.learn("Your input exceeds the context window of this model.", 12_000)).toBe(9_000);
    expect(window.learn("maximum context length is 64000 tokens", 8_000)).toBe(6_000);
  });
});

describe("overflow recovery", () => {
  test("retries twice, each time on a smaller window, then fails with the numbers", () => {
    const window = createContextWindow({ model: () => "m", configured: 16_000 });
    const first = recoverFromOverflow({
      window,
      model: "m",
      message: "400 from h: prompt is too long: 20000 tokens > 12000 maximum — the conversation is too long for m; run /compact or start a new session",
      attempt: 1,
      estimate: 14_000,
      auto: true,
    });
    expect(first).toEqual({
      retry: true,
      notice: "context window exceeded (m, about 14000 tokens sent): assuming a window of 12000 tokens, compacting to 7200 and retrying (1/2)",
    });
    expect(recoverFromOverflow({ window, model: "m", message: "x context window", attempt: 2, estimate: 8_000, auto: true }).retry).toBe(true);
    const last = recoverFromOverflow({
      window,
      model: "m",
      message: "400 from h: x — the conversation is too long for m; run /compact or start a new session",
      attempt: 3,
      estimate: 5_000,
      auto: true,
    });
    expect(last).toEqual({
      retry: false,
      error:
        "400 from h: x — still over m's context window after compacting 2 times: the request is about 5000 tokens (system prompt and tool schemas included) against a window of 6000 (learned); set contextWindow in config.json if that is wrong, or start a new session",
    });
  });

  test("with compaction off the first overflow fails and says why", () => {
    const result = recoverFromOverflow({
      window: createContextWindow({ model: () => "m" }),
      model: "m",
      message: "x",
      attempt: 1,
      estimate: 40_000,
      auto: false,
    });
    expect(result.retry).toBe(false);
    expect(!result.retry && result.error).toContain("compaction is off (compaction.auto: false)");
  });

  test("a prompt larger than the window is described with its size and the window, never /compact", () => {
    expect(describePromptTooLarge("x".repeat(40_000), 16_000, "m")).toBeUndefined();
    const refusal = describePromptTooLarge("x".repeat(80_000), 16_000, "m")!;
    expect(refusal).toBe(
      "the prompt is about 20000 tokens (80000 characters), more than m's context window of 16000 tokens; shorten it or send the material in parts",
    );
    expect(refusal).not.toContain("/compact");
  });
});

describe("the window the provider reports", () => {
  const serve = async (handler: (path: string, body: string) => unknown): Promise<{ url: string; close: () => Promise<void> }> => {
    const { createServer } = await import("node:http");
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const answer = handler(req.url ?? "", body);
        res.writeHead(answer === undefined ? 404 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer ?? { error: "no" }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  };

  test("each server's field on /models, Ollama's num_ctx or its default; nothing usable is undefined", async () => {
    const server = await serve((path, body) => {
      if (path === "/v1/models")
        return {
          data: [
            { id: "vllm-model", max_model_len: 32_768 },
            { id: "router/model", context_length: 65_536 },
            { id: "lms-model", max_context_length: 131_072, loaded_context_length: 8_192 },
            { id: "bare" },
          ],
        };
      if (path === "/api/show") return JSON.parse(body).model === "tuned" ? { parameters: "stop <eos>\nnum_ctx 16384" } : { parameters: "stop <eos>" };
      return undefined;
    });
    try {
      const connection = { baseURL: `${server.url}/v1`, protocol: "openai-chat" as const };
      expect(await queryModelWindow(connection, "vllm-model")).toBe(32_768);
      expect(await queryModelWindow(connection, "router/model")).toBe(65_536);
      expect(await queryModelWindow(connection, "lms-model")).toBe(8_192);
      expect(await queryModelWindow(connection, "bare")).toBeUndefined();
      expect(await queryModelWindow(connection, "absent")).toBeUndefined();
      expect(await queryModelWindow(connection, "tuned", { ollama: true })).toBe(16_384);
      expect(await queryModelWindow(connection, "plain", { ollama: true })).toBe(OLLAMA_DEFAULT_CONTEXT);
      expect(await queryModelWindow({ ...connection, baseURL: "http://127.0.0.1:9/v1" }, "x", { timeoutMs: 500 })).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  test("a reported window beats the table's default and yields to config and lessons", () => {
    const window = createContextWindow({ model: () => "local-thing" });
    expect(window.unknown()).toBe(true);
    window.report("local-thing", 8_192);
    expect([window.unknown(), window.current()]).toEqual([false, { window: 8_192, source: "provider" }]);
    window.learn("maximum context length is 4096 tokens", 5_000);
    expect(window.current()).toEqual({ window: 4_096, source: "learned" });
    const configured = createContextWindow({ model: () => "local-thing", configured: 12_000 });
    configured.report("local-thing", 8_192);
    expect(configured.current().source).toBe("config");
  });
});
