/**
 * Memory in the REPL through the built binary in a pseudo-terminal: the notes written during a
 * turn are listed when it ends, `/memory` shows the notes per scope, the budget and what the
 * current prompt carries, and a run note is gone from the next prompt's run.
 */
import { expect, test } from "bun:test";
import { BINARY, binaryEnv, fakeEnv, toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

test("notes written are listed at the end of the turn; /memory shows scopes, budget and injection; run notes end with their run", async () => {
  expect((await e2e.shiro(["memory", "add", "command", "the webhook tests run with bun test test/webhook"])).code).toBe(0);
  let raw = "";
  const decoder = new TextDecoder();
  const proc = Bun.spawn([BINARY], {
    cwd: e2e.dirs.cwd,
    env: binaryEnv(e2e.dirs.home, fakeEnv(e2e.fake.baseURL, "chat")),
    terminal: { cols: 200, rows: 50, data: (_terminal, data) => void (raw += decoder.decode(data, { stream: true })) },
  });
  // eslint-disable-next-line no-control-regex
  const screen = () => raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");
  const until = async (text: string, from = 0): Promise<number> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const at = screen().indexOf(text, from);
      if (at >= 0) return at + text.length;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen:\n${screen()}`);
      await Bun.sleep(20);
    }
  };
  try {
    await until("› ");
    e2e.fake.script(
      { toolCalls: [{ name: "remember", input: { kind: "fact", text: "the webhook secret rotates hourly in staging", scope: "run" } }] },
      { text: "Noted." },
    );
    proc.terminal!.write("why do the webhook tests fail?\r");
    let at = await until("notes written in this run");
    at = await until("(fact, run) the webhook secret rotates hourly in staging", at);
    at = await until("› ", at);
    proc.terminal!.write("/memory\r");
    at = await until("notes: run 1, agent 0, project 1, repo 0, global 0", at);
    at = await until("budget: 1500 estimated tokens", at);
    at = await until("injected into the current prompt: 1 note, 0 episodes", at);
    at = await until("› ", at);
    e2e.fake.script({ toolCalls: [{ name: "recall", input: { query: "webhook secret" } }] }, { text: "Recalled it." });
    proc.terminal!.write("and the secret?\r");
    await until("Recalled it.", at);
    const recalled = toolResultsOf(e2e.fake.requests.at(-1)!).at(-1)!.output;
    expect(recalled).toStartWith("note (command, today): the webhook tests run with bun test test/webhook");
    expect(recalled).not.toContain("rotates hourly");
  } finally {
    proc.kill("SIGKILL");
    await proc.exited;
  }
});
