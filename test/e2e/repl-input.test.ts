/**
 * Typing in the REPL through the built binary in a pseudo-terminal: prompts of several lines
 * (bracketed paste, `\`, Ctrl-J, Alt-Enter), the keys that forgive (Ctrl-C, Ctrl-D, Esc), Ctrl-R,
 * and the history kept per project across restarts.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, userTextsOf, useE2E } from "./_harness.ts";
import { startPty, type PtyDriver } from "./_pty.ts";

const e2e = useE2E();

async function withRepl(body: (repl: PtyDriver) => Promise<void>, cwd = e2e.dirs.cwd): Promise<void> {
  const repl = startPty([], { cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
  try {
    await repl.until("› ");
    await body(repl);
  } finally {
    repl.kill();
    await repl.exited;
  }
}

const lastUserTexts = () => userTextsOf(e2e.fake.requests.at(-1)!);

describe("prompts of several lines", () => {
  const spellings: [string, string][] = [
    ["a bracketed paste", "\x1b[200~line one\rline two\rline three\x1b[201~\r"],
    ["a bracketed paste with CRLF and a final newline", "\x1b[200~line one\r\nline two\r\nline three\r\n\x1b[201~\r"],
    ["lines ending in a backslash", "line one\\\rline two\\\rline three\r"],
    ["Ctrl-J", "line one\nline two\nline three\r"],
    ["Alt-Enter", "line one\x1b\rline two\x1b\rline three\r"],
  ];
  for (const [name, keys] of spellings) {
    test(`${name} reaches the model as one message`, async () => {
      e2e.fake.script({ text: "got three lines" });
      await withRepl(async (repl) => {
        repl.type(keys);
        await repl.until("got three lines");
      });
      expect(e2e.fake.requests.length).toBe(1);
      expect(lastUserTexts()).toEqual(["line one\nline two\nline three"]);
    }, 30_000);
  }

  test("a paste is shown collapsed with its first line, and recalled by Up as one entry after a restart", async () => {
    e2e.fake.script({ text: "first answer" }, { text: "second answer" });
    await withRepl(async (repl) => {
      repl.type("\x1b[200~Error: boom\n  at a.ts:1\n  at b.ts:2\x1b[201~");
      await repl.until("[pasted 3 lines] Error: boom");
      repl.type("\r");
      await repl.until("first answer");
    });
    await withRepl(async (repl) => {
      repl.type("\x1b[A");
      await repl.until("[3 lines] Error: boom");
      repl.type("\r");
      await repl.until("second answer");
    });
    expect(lastUserTexts()).toEqual(["Error: boom\n  at a.ts:1\n  at b.ts:2"]);
  }, 40_000);
});

describe("keys that forgive", () => {
  test("Ctrl-C clears a half-typed line and the session lives on; twice on an empty prompt exits", async () => {
    e2e.fake.script({ text: "still here" });
    await withRepl(async (repl) => {
      repl.type("half typed");
      await repl.until("half typed");
      repl.type("\x03");
      repl.type("real prompt\r");
      let at = await repl.until("still here");
      repl.type("\x03");
      at = await repl.until("press Ctrl-C again to exit", at);
      repl.type("\x03");
      await repl.until("Good bye.", at);
      expect(await repl.exited).toBe(0);
    });
    expect(lastUserTexts()).toEqual(["real prompt"]);
  }, 30_000);

  test("Ctrl-D on an empty line exits", async () => {
    await withRepl(async (repl) => {
      repl.type("\x04");
      await repl.until("Good bye.");
      expect(await repl.exited).toBe(0);
    });
  }, 30_000);

  test("Esc interrupts a running turn and the next prompt runs", async () => {
    e2e.fake.script({ text: "too slow", stallMs: 5_000 }, { text: "after esc" });
    await withRepl(async (repl) => {
      repl.type("slow\r");
      await repl.until("slow\n");
      await Bun.sleep(200);
      repl.type("\x1b");
      const at = await repl.until("interrupted");
      repl.type("again\r");
      await repl.until("after esc", at);
    });
    expect(e2e.fake.requests.length).toBe(2);
  }, 30_000);

  test("Ctrl-R finds an older prompt by a piece of it; Enter runs it", async () => {
    e2e.fake.script({ text: "one" }, { text: "two" }, { text: "three" });
    await withRepl(async (repl) => {
      repl.type("alpha prompt\r");
      let at = await repl.until("one");
      repl.type("beta prompt\r");
      at = await repl.until("two", at);
      repl.type("\x12lph");
      at = await repl.until("(search) 'lph': alpha prompt", at);
      repl.type("\r");
      await repl.until("three", at);
    });
    expect(lastUserTexts()).toEqual(["alpha prompt", "beta prompt", "alpha prompt"]);
  }, 30_000);
});

describe("history", () => {
  for (const leave of ["/exit", "/quit", "  /quit "]) test(`Up after ${JSON.stringify(leave)} and a restart recalls the last real prompt, in any folder of the project`, async () => {
    mkdirSync(join(e2e.dirs.cwd, ".git"));
    mkdirSync(join(e2e.dirs.cwd, "sub"));
    e2e.fake.script({ text: "answered" }, { text: "answered again" });
    await withRepl(async (repl) => {
      repl.type("the real prompt\r");
      const at = await repl.until("answered");
      repl.type(`${leave}\r`);
      await repl.until("Good bye.", at);
    });
    await withRepl(async (repl) => {
      repl.type("\x1b[A");
      await repl.until("› the real prompt");
      repl.type("\r");
      await repl.until("answered again");
    }, join(e2e.dirs.cwd, "sub"));
    expect(lastUserTexts()).toEqual(["the real prompt"]);
  }, 40_000);
});
