/**
 * Bad config files and the one line each is reported with, whole: the schemas are built on first
 * use and a file is read once while its stamp holds (lib/config/config.ts), and neither may change
 * what a user is told. Every row is a ConfigError (exit 2) naming the file, then the field.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfigFile } from "../../lib/config/config.ts";
import { ConfigError } from "../../lib/platform/errors.ts";

let dir: string;
let configPath: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-config-errors-"));
  configPath = join(dir, "config.json");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** [file text, the message after `<path>: `], as `shiro -p` prints them. */
const BAD_CONFIGS: [string, string][] = [
  ['{"model": "m",', "is not valid JSON"],
  ["", "is empty; write {} into it or remove it"],
  [" \n\t\n", "is empty; write {} into it or remove it"],
  ["[1, 2]", '"0" is not a known setting'],
  ['"just a string"', "is not a known setting"],
  ["null", "is not a known setting"],
  ['{"model": ""}', '"model" must not be empty'],
  ['{"model": 7}', '"model" Expected string but received 7'],
  [
    '{"provider": "nope"}',
    '"provider" must be one of anthropic, openai, openrouter, groq, deepseek, xai, mistral, gemini, together, fireworks, cerebras, ollama, lmstudio, custom-openai, custom-anthropic',
  ],
  ['{"protocol": "smoke"}', '"protocol" must be one of chat, responses, anthropic'],
  ['{"baseURL": "not a url"}', '"baseURL" must be a URL'],
  ['{"foo": 1}', '"foo" is not a known setting'],
  ['{"model": "m", "foo": 1, "bar": 2}', '"foo" is not a known setting'],
  ['{"maxRetries": 11}', '"maxRetries" must be at most 10'],
  ['{"maxRetries": 1.5}', '"maxRetries" must be a whole number'],
  ['{"maxRetries": -1}', '"maxRetries" must not be negative'],
  ['{"maxRetries": "3"}', '"maxRetries" must be a number'],
  ['{"maxSteps": 0}', '"maxSteps" must be at least 1'],
  ['{"requestTimeoutMs": 10}', '"requestTimeoutMs" must be at least 1000'],
  ['{"toolSets": ["core", "gits"]}', '"toolSets[1]" must be one of core, edit-plus, git, net'],
  ['{"toolSets": "core"}', '"toolSets" Expected Array but received "core"'],
  ['{"plugins": ["guard", 3]}', '"plugins[1]" must be a plugin name'],
  [
    '{"plugins": ["gaurd"]}',
    '"plugins" lists "gaurd", which is not a plugin (did you mean "guard"?). Valid plugins: guard, secrets, protect, time, bell, format',
  ],
  ['{"permission": {"bash": "sometimes"}}', '"permission.bash" must be one of allow, ask, deny, or an object mapping patterns to them'],
  ['{"permission": {"bash": {"git *": "maybe"}}}', '"permission.bash" must be one of allow, ask, deny, or an object mapping patterns to them'],
  ['{"permission": "allow"}', '"permission" Expected Object but received "allow"'],
  ['{"deferTools": "yes"}', '"deferTools" must be true or false'],
  ['{"headers": {"openai": {"x-a": 1}}}', '"headers.openai.x-a" must be a string'],
  [
    '{"hooks": {"Bogus": []}}',
    '"hooks.Bogus" is not a hook event (PreToolUse, PostToolUse, UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, PreCompact, Notification)',
  ],
  ['{"hooks": {"Stop": [{"hooks": [{"type": "shell", "command": "x"}]}]}}', '"hooks.Stop[0].hooks[0].type" must be "command"'],
  ['{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ""}]}]}}', '"hooks.Stop[0].hooks[0].command" must not be empty'],
  ['{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}', '"hooks.Stop[0].hooks[0].timeout" must be positive'],
  ['{"hooks": {"Stop": {"hooks": []}}}', '"hooks.Stop" must be a list of {matcher, hooks}'],
  ['{"mcpServers": {"a": {"command": ""}}}', '"mcpServers.a.command" must not be empty'],
  [
    '{"mcpServers": {"a": {"url": "http://x", "extra": 1}}}',
    '"mcpServers.a" must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}',
  ],
  ['{"mcpServers": {"a": {}}}', '"mcpServers.a" must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}'],
  ['{"mcpServers": {"a": {"command": "x", "startupTimeoutMs": 10}}}', '"mcpServers.a.startupTimeoutMs" must be at least 1000'],
  ['{"webFetch": {"allowHosts": "a"}}', '"webFetch.allowHosts" Expected Array but received "a"'],
  ['{"webFetch": {"deny": []}}', '"webFetch.deny" Expected never but received "deny"'],
  ['{"compaction": {"threshold": 10}}', '"compaction.threshold" must be at least 1000'],
  ['{"compaction": {"auto": 1}}', '"compaction.auto" must be true or false'],
  ['{"sandbox": "open"}', '"sandbox" must be one of workspace-write, read-only, off, or {mode?, network?, bwrap?, mcp?, hidePaths?}'],
  ['{"sandbox": {"mode": "open"}}', '"sandbox" must be one of workspace-write, read-only, off, or {mode?, network?, bwrap?, mcp?, hidePaths?}'],
  ['{"sandbox": {"hidePaths": [""]}}', '"sandbox.hidePaths[0]" must not be empty'],
  ['{"memory": {"budget": -5}}', '"memory.budget" must not be negative'],
  ['{"memory": {"embeddings": {"baseURL": "nope", "model": "m"}}}', '"memory.embeddings.baseURL" must be a URL'],
  ['{"memory": {"embeddings": {"baseURL": "http://x", "model": "m", "apiKeyEnv": "1X"}}}', '"memory.embeddings.apiKeyEnv" must name an environment variable'],
  ['{"passEnv": ["OK", "not-ok"]}', '"passEnv[1]" must be a variable name'],
  ['{"checkpoints": {"keepDays": 0}}', '"checkpoints.keepDays" must be at least 1'],
  ['{"update": {"base": ""}}', '"update.base" must not be empty'],
  ['{"agent": "fast"}', '"agent" must be one of default, quick, deep, plan, review'],
  ['{"readOnlyCommands": "deny"}', '"readOnlyCommands" must be one of allow, ask'],
  ['{"contextWindow": 5}', '"contextWindow" must be at least 1000'],
];

function _reported(text: string): { kind: string; message: string } {
  writeFileSync(configPath, text);
  try {
    loadConfigFile(configPath);
    return { kind: "none", message: "" };
  } catch (error) {
    return { kind: error instanceof ConfigError ? "ConfigError" : String(error), message: (error as Error).message };
  }
}

test("every bad config is one ConfigError line naming the file and the field", () => {
  const seen = BAD_CONFIGS.map(([text]) => [text, _reported(text)]);
  expect(seen).toEqual(BAD_CONFIGS.map(([text, reason]) => [text, { kind: "ConfigError", message: `${configPath}: ${reason}` }]));
});

test("a good file read after a bad one, and a bad one after a good one, are each judged afresh", () => {
  expect(_reported('{"model": "m"}')).toEqual({ kind: "none", message: "" });
  expect(_reported('{"model": ""}')).toEqual({ kind: "ConfigError", message: `${configPath}: "model" must not be empty` });
  writeFileSync(configPath, '{"model": "m2"}');
  expect(loadConfigFile(configPath)).toEqual({ model: "m2" });
});

test("a file replaced (another inode) or edited in place (another size or time) is read again", () => {
  writeFileSync(configPath, '{"model": "one"}');
  expect(loadConfigFile(configPath)).toEqual({ model: "one" });
  writeFileSync(join(dir, "next.json"), '{"model": "two"}');
  renameSync(join(dir, "next.json"), configPath);
  expect(loadConfigFile(configPath)).toEqual({ model: "two" });
  writeFileSync(configPath, '{"model": "three!"}');
  expect(loadConfigFile(configPath)).toEqual({ model: "three!" });
  rmSync(configPath);
  expect(loadConfigFile(configPath)).toEqual({});
});

test("a load returns a copy, and other bytes under the same inode, size and modification time are read afresh", () => {
  const at = new Date("2026-01-02T03:04:05Z");
  writeFileSync(configPath, '{"model": "aaaa", "toolSets": ["git"]}');
  utimesSync(configPath, at, at);
  const first = loadConfigFile(configPath);
  first.toolSets!.push("net");
  expect(loadConfigFile(configPath)).toEqual({ model: "aaaa", toolSets: ["git"] });
  // What a file system with coarse timestamps leaves after a rewrite within one tick: only the bytes differ.
  writeFileSync(configPath, '{"model": "bbbb", "toolSets": ["net"]}');
  utimesSync(configPath, at, at);
  expect(loadConfigFile(configPath)).toEqual({ model: "bbbb", toolSets: ["net"] });
});
