/**
 * The provider key stays out of reach of the commands the model runs, through the built binary:
 * a bash call reads the environment of its parent (`/proc/$PPID/environ`, shiro itself without the
 * sandbox, the sandbox's own first process inside it) and its own, with `--no-sandbox` and in the
 * sandbox; none holds SHIRO_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY or the variable config
 * `memory.embeddings.apiKeyEnv` names. The run still reaches the fake provider with its key (the
 * fake refuses a request without it), which proves the key was read before it was sealed.
 */
import { describe, expect, test } from "bun:test";
import { BINARY, toolResultsOf, useE2E } from "./_harness.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";

const e2e = useE2E();

const KEYS = { OPENAI_API_KEY: "sk-openai-m4rk3r1", ANTHROPIC_API_KEY: "sk-ant-m4rk3r2", EMBED_TOKEN: "emb-m4rk3r3" } as const;
const MARKER = /m4rk3r\d/;
const NAMES = /\b(?:SHIRO_API_KEY|OPENAI_API_KEY|ANTHROPIC_API_KEY|EMBED_TOKEN)=/;
const READ_PARENT = "tr '\\0' '\\n' < /proc/$PPID/environ";
const READ_OWN = "env";
const PARENT_COMMAND = "tr '\\0' ' ' < /proc/$PPID/cmdline";

async function readEnvironments(extraFlags: string[]): Promise<string[]> {
  e2e.writeConfig({ memory: { embeddings: { baseURL: `${e2e.fake.baseURL}`, model: "embed-small", apiKeyEnv: "EMBED_TOKEN" } } });
  e2e.fake.script({ toolCalls: [READ_PARENT, READ_OWN, PARENT_COMMAND].map((command) => ({ name: "bash", input: { command } })) }, { text: "done" });
  const result = await e2e.shiro(["-p", "read the environment", "--yolo", ...extraFlags], { env: { ...KEYS } });
  expect(result.code).toBe(0);
  return toolResultsOf(e2e.fake.requests.at(-1)!).map((entry) => entry.output);
}

describe("no key in any environment a command can read", () => {
  test("--no-sandbox: /proc/$PPID/environ (shiro's own) and the command's env hold none", async () => {
    const [parent, own, parentCommand] = await readEnvironments(["--no-sandbox"]);
    // The control: the parent is shiro itself, and the read worked and shows its other variables.
    expect(parentCommand).toContain(BINARY);
    expect(parent).toContain(`SHIRO_HOME=${e2e.dirs.home}`);
    expect(own).toContain(`SHIRO_HOME=${e2e.dirs.home}`);
    expect([MARKER.test(parent!), NAMES.test(parent!), MARKER.test(own!), NAMES.test(own!)]).toEqual([false, false, false, false]);
    expect(e2e.fake.requests.every((request) => request.headers.authorization === "Bearer test-key")).toBe(true);
  }, 60_000);

  sandboxTest(
    "in the sandbox: /proc/$PPID/environ and the command's env hold none",
    async () => {
      const [parent, own] = await readEnvironments([]);
      expect(own).toContain(`SHIRO_HOME=${e2e.dirs.home}`);
      expect(parent).toStartWith("exit: 0");
      expect([MARKER.test(parent!), NAMES.test(parent!), MARKER.test(own!), NAMES.test(own!)]).toEqual([false, false, false, false]);
    },
    60_000,
  );
});
