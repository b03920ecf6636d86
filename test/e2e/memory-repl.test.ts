/**
 * Memory in the REPL through the built binary in a pseudo-terminal: the notes written during a
 * turn are listed when it ends, `/memory` shows the notes per scope, the budget and what the
 * current prompt carries, and a run note is gone from the next prompt's run.
 */
import { expect, test } from "bun:test";
import { fakeEnv, toolResultsOf, useE2E } from "./_harness.ts";
import { startPty } from "./_pty.ts";

const e2e = useE2E();

test("notes written are listed at the end of the turn; /memory shows scopes, budget and injection; run notes end with their run", async () => {
  expect((await e2e.shiro(["memory", "add", "command", "the webhook tests run with bun test test/webhook"])).code).toBe(0);
  const repl = startPty([], { cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
  try {
    await repl.until("› ");
    e2e.fake.script(
      { toolCalls: [{ name: "remember", input: { kind: "fact", text: "the webhook secret rotates hourly in staging", scope: "run" } }] },
      { text: "Noted." },
    );
    repl.type("why do the webhook tests fail?\r");
    let at = await repl.until("notes written in this run");
    at = await repl.until("(fact, run) the webhook secret rotates hourly in staging", at);
    at = await repl.until("› ", at);
    repl.type("/memory\r");
    at = await repl.until("notes: run 1, agent 0, project 1, repo 0, global 0", at);
    at = await repl.until("budget: 1500 estimated tokens", at);
    at = await repl.until("injected into the current prompt: 1 note, 0 episodes", at);
    at = await repl.until("› ", at);
    e2e.fake.script({ toolCalls: [{ name: "recall", input: { query: "webhook secret" } }] }, { text: "Recalled it." });
    repl.type("and the secret?\r");
    await repl.until("Recalled it.", at);
    const recalled = toolResultsOf(e2e.fake.requests.at(-1)!).at(-1)!.output;
    expect(recalled).toStartWith("note (command, today): the webhook tests run with bun test test/webhook");
    expect(recalled).not.toContain("rotates hourly");
  } finally {
    repl.kill();
    await repl.exited;
  }
});
