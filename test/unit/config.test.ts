import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfigFile, resolveConfig, writeConfigPatch, type ConfigFile } from "../../lib/config/config.ts";
import { UserError } from "../../lib/platform/errors.ts";

let dir: string;
let configPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-config-"));
  configPath = join(dir, "config.json");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The fields precedence decides, picked from a resolved config. */
function pickWire(options: Parameters<typeof resolveConfig>[0]) {
  const resolved = resolveConfig({ configPath, ...options });
  return { provider: resolved.preset.id, protocol: resolved.protocol, model: resolved.model, baseURL: resolved.baseURL };
}

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("precedence: file < env < flags", () => {
  const file: ConfigFile = { provider: "openai", protocol: "chat", model: "file-model", baseURL: "http://file.test/v1" };
  const env = { SHIRO_PROVIDER: "groq", SHIRO_PROTOCOL: "responses", SHIRO_MODEL: "env-model", SHIRO_BASE_URL: "http://env.test/v1" };
  const flags = { provider: "deepseek", protocol: "anthropic", model: "flag-model", baseURL: "http://flag.test/v1/" };

  test("nothing configured: the anthropic preset's defaults", () => {
    expect(pickWire({ env: {}, file: {} })).toEqual({
      provider: "anthropic",
      protocol: "anthropic",
      model: "claude-sonnet-4-5",
      baseURL: "https://api.anthropic.com/v1",
    });
  });

  test("the file alone", () => {
    expect(pickWire({ env: {}, file })).toEqual({ provider: "openai", protocol: "openai-chat", model: "file-model", baseURL: "http://file.test/v1" });
  });

  test("env beats the file", () => {
    expect(pickWire({ env, file })).toEqual({ provider: "groq", protocol: "openai-responses", model: "env-model", baseURL: "http://env.test/v1" });
  });

  test("flags beat env and the file (trailing slash trimmed)", () => {
    expect(pickWire({ env, file, flags })).toEqual({ provider: "deepseek", protocol: "anthropic", model: "flag-model", baseURL: "http://flag.test/v1" });
  });

  test("each layer overrides field by field", () => {
    expect(pickWire({ env: { SHIRO_MODEL: "env-model" }, file, flags: { baseURL: "http://flag.test/v1" } })).toEqual({
      provider: "openai",
      protocol: "openai-chat",
      model: "env-model",
      baseURL: "http://flag.test/v1",
    });
  });

  test("without a forced protocol the preset's own wire is used", () => {
    const resolved = resolveConfig({ configPath, env: { SHIRO_PROVIDER: "openai" }, file: {} });
    expect([resolved.protocol, resolved.protocolForced]).toEqual(["openai-responses", false]);
    expect(resolveConfig({ configPath, env: {}, file: { protocol: "chat" } }).protocolForced).toBe(true);
  });

  test("bad values name their origin", () => {
    const unknown = thrownBy(() => resolveConfig({ configPath, env: { SHIRO_PROVIDER: "nope" }, file: {} }));
    expect(unknown).toBeInstanceOf(UserError);
    expect((unknown as Error).message).toStartWith('SHIRO_PROVIDER: unknown provider "nope". Available: anthropic, openai, openrouter, ');
    expect((thrownBy(() => resolveConfig({ configPath, env: {}, file: {}, flags: { baseURL: "ftp://x" } })) as Error).message).toBe(
      '--base-url: "ftp://x" is not an http(s) URL',
    );
    expect((thrownBy(() => resolveConfig({ configPath, env: {}, file: { provider: "custom-openai" } })) as Error).message).toBe(
      `provider "custom-openai" needs a base URL: pass --base-url, set SHIRO_BASE_URL or OPENAI_BASE_URL, or add "baseURL" to ${configPath}`,
    );
  });
});

describe("API key order: SHIRO_API_KEY > preset variable > config apiKey > keyless", () => {
  const pickKey = (env: Record<string, string>, file: ConfigFile) => {
    const resolved = resolveConfig({ configPath, env, file });
    return { apiKey: resolved.apiKey, source: resolved.apiKeySource };
  };
  const file: ConfigFile = { provider: "openai", apiKey: "from-file" };

  test("each source wins over the ones after it", () => {
    expect(pickKey({ SHIRO_API_KEY: "shiro", OPENAI_API_KEY: "preset" }, file)).toEqual({ apiKey: "shiro", source: "SHIRO_API_KEY" });
    expect(pickKey({ OPENAI_API_KEY: "preset" }, file)).toEqual({ apiKey: "preset", source: "OPENAI_API_KEY" });
    expect(pickKey({}, file)).toEqual({ apiKey: "from-file", source: "config.json" });
    expect(pickKey({}, { provider: "openai" })).toEqual({ apiKey: undefined, source: undefined });
  });

  test("another preset's variable is not read", () => {
    expect(pickKey({ ANTHROPIC_API_KEY: "wrong-vendor" }, { provider: "openai" })).toEqual({ apiKey: undefined, source: undefined });
  });

  test("a keyless local preset needs no key, but takes one when given", () => {
    expect(pickKey({}, { provider: "ollama" })).toEqual({ apiKey: "local", source: "keyless preset" });
    expect(pickKey({}, { provider: "ollama", apiKey: "k" })).toEqual({ apiKey: "k", source: "config.json" });
  });
});

describe("loadConfigFile", () => {
  test("a missing file is an empty config", () => {
    expect(loadConfigFile(configPath)).toEqual({});
  });

  test("a valid file is returned as written", () => {
    const file = { provider: "ollama", model: "qwen3", toolSets: ["git", "net"], permission: { bash: { "git *": "allow" }, edit_file: "ask" } };
    writeFileSync(configPath, JSON.stringify(file));
    expect(loadConfigFile(configPath)).toEqual(file as ConfigFile);
  });

  const failures: [string, string, string][] = [
    ["invalid JSON", '{"model": "m",', "is not valid JSON"],
    ["an invalid field", '{"toolSets": ["core", "gits"]}', '"toolSets[1]" must be one of core, edit-plus, git, net'],
    ["an unknown key", '{"model": "m", "foo": 1}', '"foo" is not a known setting'],
    ["a nested invalid field", '{"compaction": {"threshold": 10}}', '"compaction.threshold" must be at least 1000'],
  ];
  for (const [label, text, reason] of failures) {
    test(`${label}: one UserError naming the file and the field; the file is untouched`, () => {
      writeFileSync(configPath, text);
      const error = thrownBy(() => loadConfigFile(configPath));
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).message).toBe(`${configPath}: ${reason}`);
      expect(readFileSync(configPath, "utf8")).toBe(text);
      expect(readdirSync(dir)).toEqual(["config.json"]);
    });
  }

  test("resolveConfig reads the file at configPath and reports it the same way", () => {
    writeFileSync(configPath, '{"agent": "fast"}');
    expect((thrownBy(() => resolveConfig({ configPath, env: {} })) as Error).message).toBe(
      `${configPath}: "agent" must be one of default, quick, deep, plan, review`,
    );
  });
});

describe("writeConfigPatch", () => {
  test("creates the file, 0600, pretty-printed with a trailing newline", () => {
    writeConfigPatch({ provider: "openai", model: "gpt-5" }, configPath);
    expect(readFileSync(configPath, "utf8")).toBe('{\n  "provider": "openai",\n  "model": "gpt-5"\n}\n');
    expect(statSync(configPath).mode & 0o777).toBe(0o600);
  });

  test("merges into the existing file and keeps every other key; undefined removes a key", () => {
    writeFileSync(configPath, JSON.stringify({ $schema: "x", model: "m", toolSets: ["git"], mcpServers: { fs: { command: "mcp-fs" } } }));
    writeConfigPatch({ model: "m2", thinking: "high" }, configPath);
    writeConfigPatch({ toolSets: undefined }, configPath);
    expect(JSON.parse(readFileSync(configPath, "utf8"))).toEqual({ $schema: "x", model: "m2", mcpServers: { fs: { command: "mcp-fs" } }, thinking: "high" });
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });

  test("refuses to overwrite a file that does not parse; its bytes stay as they were", () => {
    const bytes = '{"model": "m", // a comment\n}';
    writeFileSync(configPath, bytes);
    const error = thrownBy(() => writeConfigPatch({ model: "m2" }, configPath));
    expect(error).toBeInstanceOf(UserError);
    expect((error as Error).message).toBe(`${configPath}: is not valid JSON; fix or remove it before changing settings`);
    expect(readFileSync(configPath, "utf8")).toBe(bytes);
    expect(readdirSync(dir)).toEqual(["config.json"]);
  });

  test("refuses a patch that would make the file invalid, leaving it unchanged", () => {
    const bytes = '{"model": "m"}\n';
    writeFileSync(configPath, bytes);
    const error = thrownBy(() => writeConfigPatch({ toolSets: ["core", "bogus"] } as unknown as Partial<ConfigFile>, configPath));
    expect((error as Error).message).toBe(`${configPath}: "toolSets[1]" must be one of core, edit-plus, git, net`);
    expect(readFileSync(configPath, "utf8")).toBe(bytes);
  });
});

describe("plugin names", () => {
  const VALID = "Valid plugins: guard, secrets, protect, time, bell, format";
  const table: [string[], string][] = [
    [["gaurd"], `"plugins" lists "gaurd", which is not a plugin (did you mean "guard"?). ${VALID}`],
    [["guard", "GUARD"], `"plugins" lists "GUARD", which is not a plugin (did you mean "guard"?). ${VALID}`],
    [["protct"], `"plugins" lists "protct", which is not a plugin (did you mean "protect"?). ${VALID}`],
    [["bells"], `"plugins" lists "bells", which is not a plugin (did you mean "bell"?). ${VALID}`],
    [["formatter"], `"plugins" lists "formatter", which is not a plugin. ${VALID}`],
  ];
  for (const [plugins, message] of table) {
    test(`${JSON.stringify(plugins)} is a usage error (exit 2) naming the valid ones`, () => {
      writeFileSync(configPath, JSON.stringify({ plugins }));
      const error = thrownBy(() => loadConfigFile(configPath));
      expect(error).toBeInstanceOf(UserError);
      expect({ message: (error as Error).message, exitCode: (error as UserError).exitCode }).toEqual({ message: `${configPath}: ${message}`, exitCode: 2 });
    });
  }

  test("every builtin name, and none, load", () => {
    for (const plugins of [[], ["guard", "secrets", "protect", "time", "bell", "format"]]) {
      writeFileSync(configPath, JSON.stringify({ plugins }));
      expect(loadConfigFile(configPath).plugins).toEqual(plugins);
    }
  });
});
