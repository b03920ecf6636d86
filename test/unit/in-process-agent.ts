/**
 * Running shiro's agent in this process against the fake provider, as the in-process lifecycle,
 * overflow and compaction tests do: the environment that points it at the fake over a protocol,
 * the flags that leave out what those tests do not exercise (sandbox, MCP, memory, skills,
 * instruction files; approvals denied unless a test says otherwise), one fake provider for a test
 * file, the user config a run reads, and one whole turn of a fresh agent, closed after it.
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { createAgent, type Agent } from "../../lib/agent/agent.ts";
import type { AgentFlags } from "../../lib/config/flags.ts";
import type { AgentEvent } from "../../lib/events.ts";
import { paths } from "../../lib/platform/paths.ts";
import { fakeEnv, startFakeProvider, type FakeProvider, type FakeProviderOptions, type ShiroProtocol } from "../fakes/provider.ts";

export type Protocol = ShiroProtocol;

/**
 * Starts one fake provider before the file's tests and stops it after them; the getter returns it
 * once started. Starting compiles the fake's request schemas: slow on a busy machine, so the hooks
 * get time.
 */
export function useFakeProvider(options: FakeProviderOptions = {}): () => FakeProvider {
  let fake: FakeProvider | undefined;
  beforeAll(async () => {
    fake = await startFakeProvider(options);
  }, 60_000);
  afterAll(async () => {
    await fake?.stop();
  }, 30_000);
  return () => {
    if (!fake) throw new Error("useFakeProvider: the fake provider is not started yet (use it inside a test or hook)");
    return fake;
  };
}

export function agentEnv(fake: FakeProvider, protocol: Protocol = "chat"): Record<string, string> {
  return { PATH: process.env.PATH ?? "", ...fakeEnv(fake.baseURL, protocol) };
}

export function agentFlags(extra: Partial<AgentFlags> = {}): AgentFlags {
  return { approvals: "deny", noSandbox: true, noMcp: true, noMemory: true, noSkills: true, noInstructions: true, ...extra } as AgentFlags;
}

/** Writes the user config (`paths.config()`, in the test's temp home) that the next agent reads. */
export function writeConfig(config: unknown): void {
  mkdirSync(dirname(paths.config()), { recursive: true });
  writeFileSync(paths.config(), JSON.stringify(config));
}

/** One turn of a fresh agent in `cwd` (closed after it), with its events and the agent. */
export async function runTurn(
  fake: FakeProvider,
  options: { cwd: string; protocol: Protocol; prompt: string; flags?: Partial<AgentFlags> },
): Promise<{ events: AgentEvent[]; agent: Agent }> {
  const agent = await createAgent({
    cwd: options.cwd,
    flags: agentFlags(options.flags),
    mode: "headless",
    env: agentEnv(fake, options.protocol),
    writeStderr: () => {},
  });
  const events: AgentEvent[] = [];
  try {
    for await (const event of agent.turn(options.prompt, new AbortController().signal)) events.push(event);
  } finally {
    agent.close();
    await agent.closed;
  }
  return { events, agent };
}
