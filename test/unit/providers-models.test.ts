/**
 * Model listing against the fake provider's `GET /v1/models` (OpenAI and Anthropic shapes), the
 * fallback list with its warning, and the local-server probe.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { detectLocalServer, listModels } from "../../lib/providers/models.ts";
import { findPreset } from "../../lib/providers/presets.ts";
import { startFakeProvider, type FakeProvider } from "../fakes/provider.ts";
import { API_KEY, connectTo } from "./providers-harness.ts";

const _started: FakeProvider[] = [];

async function _fake(options: Parameters<typeof startFakeProvider>[0] = {}): Promise<FakeProvider> {
  const fake = await startFakeProvider(options);
  _started.push(fake);
  return fake;
}

/** A port nothing listens on: one a fake held and gave back. */
async function _closedPort(): Promise<number> {
  const fake = await startFakeProvider();
  await fake.stop();
  return Number(new URL(fake.url).port);
}

afterEach(async () => {
  await Promise.all(_started.splice(0).map((fake) => fake.stop()));
});

describe("listModels", () => {
  test("lists an OpenAI-shaped endpoint's ids, sorted and without duplicates", async () => {
    const fake = await _fake({ apiKey: API_KEY, models: ["gpt-5-mini", "gpt-5", "o4-mini", "gpt-5"] });
    expect(await listModels(connectTo(fake, "openai-chat"), { fallback: ["unused"] })).toEqual({
      models: ["gpt-5", "gpt-5-mini", "o4-mini"],
      source: "server",
    });
  });

  test("lists an Anthropic endpoint with its key and version headers", async () => {
    const fake = await _fake({ apiKey: API_KEY, models: ["claude-sonnet-4-5", "claude-haiku-4-5"] });
    expect(await listModels(connectTo(fake, "anthropic"))).toEqual({ models: ["claude-haiku-4-5", "claude-sonnet-4-5"], source: "server" });
  });

  test("a refused request falls back to the preset list with the status and body", async () => {
    const fake = await _fake({ apiKey: API_KEY });
    const result = await listModels(connectTo(fake, "openai-chat", { apiKey: "sk-wrong-000000000" }), { fallback: findPreset("openai")!.fallbackModels });
    expect(result.models).toEqual(["gpt-5", "gpt-5-mini", "o4-mini"]);
    expect(result.source).toBe("fallback");
    expect(result.warning).toStartWith(`${fake.baseURL}/models returned 401. {"error":{"message":"Incorrect API key provided`);
    expect(result.warning!.length).toBeLessThanOrEqual(`${fake.baseURL}/models returned 401. `.length + 200);
  });

  test("an empty list says so", async () => {
    const fake = await _fake({ models: [] });
    expect(await listModels(connectTo(fake, "openai-chat"))).toEqual({ models: [], source: "fallback", warning: `${fake.baseURL}/models listed no models.` });
  });

  test("an unreachable endpoint gives the reason", async () => {
    const port = await _closedPort();
    const connection = { ...connectTo(await _fake(), "openai-chat"), baseURL: `http://127.0.0.1:${port}/v1` };
    expect(await listModels(connection, { fallback: ["b", "a"] })).toEqual({
      models: ["a", "b"],
      source: "fallback",
      warning: `http://127.0.0.1:${port}/v1/models: connection refused`,
    });
  });
});

describe("detectLocalServer", () => {
  test("finds the server that answers, with the URL that answered", async () => {
    const lmstudio = await _fake();
    const port = Number(new URL(lmstudio.url).port);
    const found = await detectLocalServer({ ports: { ollama: await _closedPort(), lmstudio: port } });
    expect(found).toEqual({ preset: findPreset("lmstudio")!, baseURL: `http://127.0.0.1:${port}/v1`, models: ["fake-model"] });
  });

  test("prefers Ollama when both answer", async () => {
    const [ollama, lmstudio] = [await _fake(), await _fake()];
    const found = await detectLocalServer({ ports: { ollama: Number(new URL(ollama.url).port), lmstudio: Number(new URL(lmstudio.url).port) } });
    expect(found?.preset.id).toBe("ollama");
  });

  test("returns undefined when nothing answers", async () => {
    expect(await detectLocalServer({ ports: { ollama: await _closedPort(), lmstudio: await _closedPort() } })).toBeUndefined();
  });
});
