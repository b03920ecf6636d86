/**
 * The REPL read and driven at speed, through the built binary in a pseudo-terminal: the input
 * line that belongs to you while a turn runs, one-key approvals (and the sentence after `n`),
 * the session's approval modes, folded output and one-line tool summaries.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, latch, toolResultsOf, userTextsOf, useE2E } from "./_harness.ts";
import { withPty, type PtyDriver } from "./_pty.ts";

const e2e = useE2E();

const withRepl = (body: (repl: PtyDriver) => Promise<void>, args: string[] = [], ready = "› "): Promise<void> =>
  withPty({ args, ready, cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") }, body);

const write = (path: string, content: string) => ({ toolCalls: [{ name: "write_file", input: { path, content } }] });
const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });

describe("the input line while a turn runs", () => {
  test("text typed during a streaming answer stays off the answer, keeps its cursor, and is sent intact", async () => {
    const typed = latch();
    e2e.fake.script({ text: ["partial ", "DONE\n"], holdMidStreamUntil: typed.promise }, { text: "second answer" });
    await withRepl(async (repl) => {
      repl.type("stream something\r");
      let at = await repl.until("… 0s");
      repl.type("typed ahd");
      at = await repl.until("typed ahd", at);
      typed.release();
      at = await repl.until("partial DONE", at);
      expect(repl.screen()).not.toContain("partial typed");
      expect(repl.screen()).not.toContain("typed ahdDONE");
      await repl.until("in context", at);
      // The cursor is where it was left (after "ahd"): Left, then "ea" makes "ahead".
      repl.type("\x1b[Dea\r");
      await repl.until("second answer", at);
    });
    expect(e2e.fake.requests).toHaveLength(2);
    expect(userTextsOf(e2e.fake.requests[1]!)).toEqual(["stream something", "typed ahead"]);
  }, 30_000);

  test("Enter during a turn queues the line, shown as queued and run after the turn", async () => {
    const queued = latch();
    e2e.fake.script({ text: "slow answer", holdUntil: queued.promise }, { text: "queued answer" });
    await withRepl(async (repl) => {
      repl.type("first\r");
      let at = await repl.until("… 0s");
      repl.type("next one\r");
      at = await repl.until("queued: next one", at);
      queued.release();
      at = await repl.until("slow answer", at);
      await repl.until("queued answer", at);
    });
    expect(userTextsOf(e2e.fake.requests[1]!)).toEqual(["first", "next one"]);
    expect(userTextsOf(e2e.fake.requests[1]!).join("")).not.toContain("slow");
  }, 30_000);
});

describe("one-key approvals", () => {
  test("y without Enter approves", async () => {
    e2e.fake.script(write("a.txt", "hello\n"), { text: "written" });
    await withRepl(async (repl) => {
      repl.type("write it\r");
      const at = await repl.until("| n deny ");
      repl.type("y");
      await repl.until("written", at);
    });
    expect(readFileSync(join(e2e.dirs.cwd, "a.txt"), "utf8")).toBe("hello\n");
    expect(toolResultsOf(e2e.fake.requests[1]!).map((result) => result.output)).toEqual(["Wrote 6 chars to a.txt"]);
  }, 30_000);

  const sentences: [string, string, string][] = [
    ["a sentence", "use b.txt instead\r", "Error: User denied this tool call. The user said: use b.txt instead"],
    ["a sentence edited with Backspace", "use c.tx\x7f\x7ftxt\r", "Error: User denied this tool call. The user said: use c.txt"],
    ["Enter alone", "\r", "Error: User denied this tool call."],
    ["a sentence typed in the same burst as n", "", "Error: User denied this tool call. The user said: wrong file"],
  ];
  // One session answers every row: each turn's write is denied, and its next request carries the reason.
  test(`n then ${sentences.map(([name]) => name).join(", ")}: each call is denied and the next request carries it`, async () => {
    e2e.fake.script(...sentences.flatMap((_, i) => [write("a.txt", "hello\n"), { text: `understood ${i}` }]));
    await withRepl(async (repl) => {
      let at = 0;
      for (const [i, [, typed]] of sentences.entries()) {
        repl.type(`write it ${i}\r`);
        at = await repl.until("| n deny ", at);
        if (typed === "") {
          repl.type("nwrong file\r");
        } else {
          repl.type("n");
          at = await repl.until("tell the model why (Enter to skip): ", at);
          repl.type(typed);
        }
        at = await repl.until(`understood ${i}`, at);
        at = await repl.until("in context", at);
      }
    });
    expect(existsSync(join(e2e.dirs.cwd, "a.txt"))).toBe(false);
    const reasons = sentences.map(([name], i) => [name, toolResultsOf(e2e.fake.requests[2 * i + 1]!).map((result) => result.output)]);
    // Each request carries every denial so far, the newest last.
    expect(reasons).toEqual(sentences.map(([name], i) => [name, sentences.slice(0, i + 1).map(([, , reason]) => reason)]));
  }, 30_000);

  test("keys typed ahead stay on the input line through a question", async () => {
    const typed = latch();
    e2e.fake.script({ ...write("a.txt", "x"), holdUntil: typed.promise }, { text: "done" }, { text: "third answer" });
    await withRepl(async (repl) => {
      repl.type("write it\r");
      let at = await repl.until("… 0s");
      repl.type("later prompt");
      at = await repl.until("later prompt", at);
      typed.release();
      at = await repl.until("| n deny ", at);
      repl.type("y");
      at = await repl.until("done", at);
      await repl.until("in context", at);
      repl.type("\r");
      await repl.until("third answer", at);
    });
    expect(userTextsOf(e2e.fake.requests[2]!).at(-1)).toBe("later prompt");
  }, 30_000);
});

describe("the session's approval mode", () => {
  test("accept-edits (Shift+Tab) skips the question for edits and still asks for bash", async () => {
    e2e.fake.script(write("a.txt", "edited\n"), bash("touch ran-it.txt"), { text: "both done" });
    await withRepl(async (repl) => {
      repl.type("\x1b[Z");
      let at = await repl.until("mode: accept-edits");
      repl.type("edit then run\r");
      at = await repl.until("accept-edits: allowed write_file a.txt", at);
      at = await repl.until("bash wants to run", at);
      expect(repl.screen()).not.toContain("write_file wants to run");
      repl.type("y");
      await repl.until("both done", at);
    });
    expect(readFileSync(join(e2e.dirs.cwd, "a.txt"), "utf8")).toBe("edited\n");
    expect(toolResultsOf(e2e.fake.requests[2]!).map((result) => result.output.split("\n")[0])).toEqual(["Wrote 7 chars to a.txt", "exit: 0"]);
  }, 30_000);

  test("/mode plan refuses a write without asking and tells the model why; /mode ask asks again", async () => {
    e2e.fake.script(write("a.txt", "x"), { text: "planned" }, write("a.txt", "x"), { text: "asked" });
    await withRepl(async (repl) => {
      repl.type("/mode plan\r");
      let at = await repl.until("mode: plan");
      repl.type("change it\r");
      at = await repl.until("planned", at);
      repl.type("/mode bogus\r");
      at = await repl.until('Unknown mode "bogus". Available: ask, accept-edits, plan', at);
      repl.type("/mode ask\r");
      at = await repl.until("mode: ask", at);
      repl.type("change it now\r");
      at = await repl.until("write_file wants to run", at);
      repl.type("n\r");
      await repl.until("asked", at);
    });
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain("plan mode (read-only)");
    expect(existsSync(join(e2e.dirs.cwd, "a.txt"))).toBe(false);
  }, 30_000);
});

describe("folded output", () => {
  test("seq 1 3000 shows a folded head; Ctrl-O and /expand 1 show it whole", async () => {
    e2e.fake.script(bash("seq 1 3000"), { text: "counted" });
    await withRepl(
      async (repl) => {
        repl.type("count\r");
        let at = await repl.until("● bash seq 1 3000");
        at = await repl.until("… +2997 lines (Ctrl-O or /expand 1)", at);
        at = await repl.until("counted", at);
        const folded = repl.screen();
        expect(folded).toContain("│ 3\n");
        expect(folded).not.toContain("1500\n");
        repl.type("\x0f");
        at = await repl.until("─ bash (fold 1, 3000 lines)", at);
        at = await repl.until("  2999\n  3000\n", at);
        repl.type("/expand 1\r");
        at = await repl.until("─ bash (fold 1, 3000 lines)", at);
        repl.type("/expand 9\r");
        await repl.until("no fold 9 (1 so far, the last 200 kept)", at);
      },
      ["--yolo"],
    );
  }, 30_000);

  test("a running command's output past its head is a live tail of its last 5 lines in the footer, then folded", async () => {
    // Each line waits for the test to have seen it drawn (the file .go-N), so every state of the tail shows.
    e2e.fake.script(bash("for i in 1 2 3 4 5 6 7 8 9 10; do echo line-$i; until test -e .go-$i; do sleep 0.02; done; done"), { text: "slow done" });
    await withRepl(
      async (repl) => {
        repl.type("run slowly\r");
        for (let i = 1; i < 10; i++) {
          await repl.until(`│ line-${i}\n`);
          writeFileSync(join(e2e.dirs.cwd, `.go-${i}`), "");
        }
        let at = await repl.until("│ line-3");
        // Each footer draw: the tail rows, then the status row; the last one before the result holds lines 6-10.
        at = await repl.until("  │ line-6\n  │ line-7\n  │ line-8\n  │ line-9\n  │ line-10\n… ", at);
        writeFileSync(join(e2e.dirs.cwd, ".go-10"), "");
        at = await repl.until("… +7 lines (Ctrl-O or /expand 1)", at);
        await repl.until("slow done", at);
        const draws = repl.screen().split("  │ line-4\n").length - 1;
        expect(draws).toBeGreaterThan(0);
        expect(repl.screen()).not.toMatch(/│ line-4\n {2}│ line-5\n {2}│ line-6\n {2}│ line-7\n {2}│ line-8\n {2}│ line-9/);
      },
      ["--yolo"],
    );
  }, 30_000);

  test("tool calls are one readable line from the declaration, never JSON", async () => {
    e2e.fake.script(
      {
        toolCalls: [
          { name: "write_file", input: { path: "notes.txt", content: "one\ntwo\n" } },
          { name: "ask", input: { question: "Which colour?", options: ["red", "blue"] } },
        ],
      },
      { text: "all shown" },
    );
    await withRepl(
      async (repl) => {
        repl.type("go\r");
        let at = await repl.until("● write_file notes.txt +2");
        at = await repl.until("● ask Which colour?", at);
        at = await repl.until("answer (a number or your own words) ", at);
        repl.type("2\r");
        await repl.until("all shown", at);
        expect(repl.screen()).not.toContain('{"');
      },
      ["--yolo"],
    );
  }, 30_000);
});

describe("the user is the user", () => {
  for (const [answer, gone] of [
    ["y", true],
    ["n", false],
  ] as const) {
    test(`!rm -rf build is not asked about; the guard's finding is one warning, and ${answer} ${gone ? "runs it" : "keeps it from running"}`, async () => {
      mkdirSync(join(e2e.dirs.cwd, "build"));
      writeFileSync(join(e2e.dirs.cwd, "build", "out.js"), "x");
      await withRepl(async (repl) => {
        repl.type("!rm -rf build\r");
        let at = await repl.until("⚠ the guard flags rm -rf build: recursive or forced delete\n");
        at = await repl.until("run it anyway? y | n ", at);
        repl.type(answer);
        await repl.until(gone ? "✓ !rm -rf build" : "✗ !rm -rf build: not run: you said no", at);
        const screen = repl.screen();
        expect(screen).not.toContain("wants to run");
        expect(screen).not.toContain("Ask the user");
        expect(screen.split("recursive or forced delete").length - 1).toBe(1);
      });
      expect(existsSync(join(e2e.dirs.cwd, "build"))).toBe(!gone);
      expect(e2e.fake.requests).toHaveLength(0);
    }, 30_000);
  }
});

describe("a failed prompt", () => {
  test("is not re-sent unmarked with the next one; /retry sends it again", async () => {
    const failure = { error: { status: 400, message: "the provider refused this" } };
    e2e.fake.script(failure, { text: "second ok" }, failure, { text: "retried ok" });
    await withRepl(async (repl) => {
      repl.type("first prompt\r");
      let at = await repl.until("/retry sends it again");
      repl.type("second prompt\r");
      at = await repl.until("second ok", at);
      repl.type("/retry\r");
      at = await repl.until("nothing to retry: the last prompt did not fail", at);
      repl.type("third prompt\r");
      at = await repl.until("/retry sends it again", at);
      repl.type("/retry\r");
      await repl.until("retried ok", at);
    });
    expect(e2e.fake.requests).toHaveLength(4);
    expect(userTextsOf(e2e.fake.requests[1]!)).toEqual(["second prompt"]);
    expect(userTextsOf(e2e.fake.requests[3]!)).toEqual(["second prompt", "third prompt"]);
  }, 30_000);
});

describe("read-only commands", () => {
  test("ls and git status run without asking; touch still asks; readOnlyCommands: ask asks for ls too", async () => {
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "ls" } }] }, bash("git status --short 2>&1"), bash("touch made.txt"), { text: "looked" });
    await withRepl(async (repl) => {
      repl.type("look around\r");
      let at = await repl.until("bash wants to run");
      at = await repl.until("$ touch made.txt", at);
      repl.type("y");
      await repl.until("looked", at);
      expect(repl.screen().split("wants to run").length - 1).toBe(1);
    });
    // git status runs (and fails: the folder is no repository) without a question.
    expect(toolResultsOf(e2e.fake.requests[3]!).map((result) => result.output.split("\n")[0])).toEqual(["exit: 0", "exit: 128", "exit: 0"]);

    e2e.writeConfig({ readOnlyCommands: "ask" });
    e2e.fake.script(bash("ls"), { text: "asked" });
    await withRepl(async (repl) => {
      repl.type("look again\r");
      const at = await repl.until("bash wants to run");
      repl.type("y");
      await repl.until("asked", at);
    });
  }, 40_000);
});

describe("#note", () => {
  test("records the provenance shiro memory add records: the files it names, so it can go stale", async () => {
    mkdirSync(join(e2e.dirs.cwd, "src"));
    writeFileSync(join(e2e.dirs.cwd, "src", "parser.ts"), "export const parse = 1;\n");
    await withRepl(async (repl) => {
      repl.type("#the parser lives in src/parser.ts\r");
      await repl.until("remembered for this project (1 note)");
    });
    const listed = JSON.parse((await e2e.shiro(["memory", "list", "--json"])).stdout);
    const note = listed.find((entry: { text: string }) => entry.text === "the parser lives in src/parser.ts");
    expect(note.source.files.map((file: { path: string }) => file.path)).toEqual(["src/parser.ts"]);
    writeFileSync(join(e2e.dirs.cwd, "src", "parser.ts"), "export const parse = 2;\n");
    const shown = await e2e.shiro(["memory", "show", note.id]);
    expect(shown.stdout).toContain("stale");
  }, 30_000);
});

describe("Tab", () => {
  test("completes the values of /think, /agent and /mode", async () => {
    await withRepl(async (repl) => {
      repl.type("/think me\t");
      await Bun.sleep(200);
      repl.type("\r");
      let at = await repl.until("thinking is now medium");
      repl.type("/agent dee\t");
      await Bun.sleep(200);
      repl.type("\r");
      at = await repl.until("agent is now deep", at);
      repl.type("/mode acc\t");
      await Bun.sleep(200);
      repl.type("\r");
      await repl.until("mode: accept-edits", at);
    });
  }, 30_000);
});

describe("start-up questions", () => {
  test("a prompt typed at the blocked-run question is not taken as its answer: it runs, and the run keeps waiting", async () => {
    e2e.fake.script(write("CHANGES.md", "# Changes\n"), { text: "answered the prompt" });
    expect((await e2e.shiro(["-p", "write the changelog", "--approvals", "block"])).code).toBe(3);
    await withRepl(
      async (repl) => {
        repl.type("what changed today?\r");
        const at = await repl.until("your line runs as a prompt");
        await repl.until("answered the prompt", at);
      },
      [],
      "| s skip ",
    );
    expect(userTextsOf(e2e.fake.requests.at(-1)!).at(-1)).toBe("what changed today?");
    const pending = JSON.parse((await e2e.shiro(["approvals", "--json"])).stdout);
    expect(pending.map((entry: { status: string }) => entry.status)).toEqual(["pending"]);
  }, 30_000);
});
