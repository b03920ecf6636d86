/**
 * Bad configuration and bad flags exit 2, everywhere, with one line on stderr: a table of
 * spellings run from source (`bun cmd/shiro.ts`) with state in a temp SHIRO_HOME.
 */
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ENTRY = resolve(import.meta.dir, "..", "..", "cmd", "shiro.ts");
const work = mkdtempSync(join(tmpdir(), "shiro-exit-codes-"));
afterAll(() => rmSync(work, { recursive: true, force: true }), 30_000);

let n = 0;
/** Runs shiro with `config` (bytes of config.json, or none) and `env`; returns the code and the stderr lines. */
function run(args: string[], config?: string, env: Record<string, string> = {}): { code: number | null; lines: number; stdout: string } {
  const home = join(work, `home-${++n}`);
  const cwd = join(work, `cwd-${n}`);
  mkdirSync(join(home, ".shiro-neko"), { recursive: true });
  mkdirSync(cwd);
  if (config !== undefined) writeFileSync(join(home, ".shiro-neko", "config.json"), config);
  const result = spawnSync(process.execPath, [ENTRY, ...args], {
    cwd,
    encoding: "utf8",
    timeout: 30_000,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      SHIRO_HOME: home,
      NO_COLOR: "1",
      SHIRO_API_KEY: "k",
      SHIRO_BASE_URL: "http://127.0.0.1:9/v1",
      ...env,
    },
  });
  return { code: result.status, lines: result.stderr.trimEnd().split("\n").length, stdout: result.stdout };
}

const CASES: [label: string, args: string[], config?: string, env?: Record<string, string>][] = [
  ["config.json that is not JSON", ["-p", "hi"], "provider = openai\n"],
  ["an unknown key", ["-p", "hi"], '{"foo": 1}'],
  ["a value of the wrong kind", ["-p", "hi"], '{"toolSets": ["gits"]}'],
  ["a plugin that does not exist", ["-p", "hi"], '{"plugins": ["gaurd"]}'],
  ["permission that is not a table", ["-p", "hi"], '{"permission": 5}'],
  ["a permission decision that does not exist", ["-p", "hi"], '{"permission": {"bash": "maybe"}}'],
  ["an unknown provider in the environment", ["-p", "hi"], undefined, { SHIRO_PROVIDER: "nope" }],
  ["a base URL that is not http", ["-p", "hi"], undefined, { SHIRO_BASE_URL: "ftp://x" }],
  ["an unknown flag", ["--no-such-flag"]],
  ["a flag without its value", ["-p", "hi", "--model"]],
  ["a bad --limit", ["runs", "list", "--limit", "0"]],
  ["an unknown subcommand flag", ["sessions", "--nope"]],
  ["config set of an unknown key", ["config", "set", "nope", "1"]],
  ["mcp add with an empty command", ["mcp", "add", "x", "--command", " "]],
];

test("bad configuration and bad flags: exit 2, one line, nothing on stdout", () => {
  const outcomes = CASES.map(([label, args, config, env]) => {
    const result = run(args, config, env);
    return { label, code: result.code, lines: result.lines, stdout: result.stdout };
  });
  expect(outcomes).toEqual(CASES.map(([label]) => ({ label, code: 2, lines: 1, stdout: "" })));
}, 120_000);
