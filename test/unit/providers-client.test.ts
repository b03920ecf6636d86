/**
 * The model client: adapter choice by protocol, the sticky Responses→chat fallback for OpenAI,
 * and the connection a resolved configuration yields.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { resolveConfig } from "../../lib/config/config.ts";
import { connectionFromConfig, createModelClient } from "../../lib/providers/client.ts";
import { findPreset } from "../../lib/providers/presets.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { API_KEY, collect, connectTo, hostOfFake, requestOf, terminalOf, withoutDeltas } from "./providers-harness.ts";

const _openai = findPreset("openai")!;

describe("createModelClient", () => {
  let fake: FakeProvider;
  beforeEach(async () => {
    fake = await startFakeProvider({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("OpenAI falls back from responses to chat when the endpoint rejects the request, and stays there", async () => {
    fake.script({ error: { status: 404, message: "Invalid URL (POST /v1/responses)" } }, { text: "via chat" }, { text: "still chat" });
    const client = createModelClient({ connection: connectTo(fake, "openai-responses", { compat: _openai.compat }), preset: _openai, protocolForced: false });
    expect(client.protocol).toBe("openai-responses");

    const first = await collect(client.stream(requestOf()));
    expect(withoutDeltas(first)).toEqual([
      {
        type: "notice",
        text: `endpoint fallback: responses rejected the request, retrying on chat completions\n  404 from ${hostOfFake(fake)}: Invalid URL (POST /v1/responses) — check the model id and base URL`,
      },
      { type: "finish", message: { role: "assistant", parts: [{ type: "text", text: "via chat" }] }, usage: expect.any(Object), stop: "stop" },
    ]);
    expect(client.protocol).toBe("openai-chat");

    const second = await collect(client.stream(requestOf()));
    expect(terminalOf(second)).toMatchObject({ type: "finish", message: { parts: [{ type: "text", text: "still chat" }] } });
    expect(second.some((event) => event.type === "notice")).toBe(false);
    expect(fake.requests.map((request) => request.protocol)).toEqual(["openai-responses", "openai-chat", "openai-chat"]);
    expect(fake.requests[1]!.body.messages[0]).toEqual({ role: "developer", content: "You are a test." });
    expect(fake.violations).toEqual([]);
  });

  test("a forced protocol never falls back", async () => {
    fake.script({ error: { status: 404 } });
    const client = createModelClient({ connection: connectTo(fake, "openai-responses", { compat: _openai.compat }), preset: _openai, protocolForced: true });
    const events = await collect(client.stream(requestOf()));
    expect(events.map((event) => event.type)).toEqual(["error"]);
    expect(client.protocol).toBe("openai-responses");
    expect(fake.requests).toHaveLength(1);
  });

  test("a rejected key is not a reason to switch", async () => {
    const client = createModelClient({
      connection: connectTo(fake, "openai-responses", { compat: _openai.compat, apiKey: "sk-wrong-000000000" }),
      preset: _openai,
      protocolForced: false,
    });
    const events = await collect(client.stream(requestOf()));
    expect(terminalOf(events)).toMatchObject({ type: "error", error: { kind: "auth", status: 401 } });
    expect(client.protocol).toBe("openai-responses");
    expect(fake.requests).toHaveLength(1);
  });

  test("presets without the fallback pass the error through", async () => {
    const preset = findPreset("custom-openai")!;
    fake.script({ error: { status: 400, message: "Unsupported endpoint" } });
    const client = createModelClient({ connection: connectTo(fake, "openai-responses"), preset, protocolForced: false });
    const events = await collect(client.stream(requestOf()));
    expect(terminalOf(events)).toMatchObject({ type: "error", error: { kind: "bad-request", shapeRejected: true } });
    expect(fake.requests).toHaveLength(1);
  });

  test("each protocol reaches its own endpoint", async () => {
    fake.script({ text: "a" }, { text: "b" });
    const anthropic = createModelClient({ connection: connectTo(fake, "anthropic"), preset: findPreset("anthropic")!, protocolForced: false });
    const chat = createModelClient({ connection: connectTo(fake, "openai-chat"), preset: findPreset("groq")!, protocolForced: false });
    await collect(anthropic.stream(requestOf()));
    await collect(chat.stream(requestOf()));
    expect(fake.requests.map((request) => request.path)).toEqual(["/v1/messages", "/v1/chat/completions"]);
  });
});

describe("connectionFromConfig", () => {
  test("takes protocol, base URL, key, compat, retries and the request deadline from the config", () => {
    const resolved = resolveConfig({
      flags: {},
      env: { OPENAI_API_KEY: "sk-openai" },
      configPath: "/nowhere/config.json",
      file: { provider: "openai", maxRetries: 5, requestTimeoutMs: 90_000 },
    });
    expect(connectionFromConfig(resolved)).toEqual({
      protocol: "openai-responses",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-openai",
      compat: _openai.compat,
      maxRetries: 5,
      timeoutMs: 90_000,
      keyEnv: "OPENAI_API_KEY",
    });
  });

  test("defaults to a 10 minute deadline and names SHIRO_API_KEY when that is where the key came from", () => {
    const resolved = resolveConfig({
      flags: { protocol: "chat" },
      env: { SHIRO_API_KEY: "sk-shiro" },
      configPath: "/nowhere/config.json",
      file: { provider: "openai" },
    });
    expect(connectionFromConfig(resolved)).toEqual({
      protocol: "openai-chat",
      baseURL: "https://api.openai.com/v1",
      apiKey: "sk-shiro",
      compat: _openai.compat,
      maxRetries: 3,
      timeoutMs: 600_000,
      keyEnv: "SHIRO_API_KEY",
    });
  });

  test("a keyless local preset gets no key variable", () => {
    const resolved = resolveConfig({ flags: { provider: "ollama" }, env: {}, configPath: "/nowhere/config.json", file: {} });
    const connection = connectionFromConfig(resolved);
    expect(connection.keyEnv).toBeUndefined();
    expect(connection.baseURL).toBe("http://localhost:11434/v1");
  });
});
