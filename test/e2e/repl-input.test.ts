/**
 * Typing in the REPL through the built binary in a pseudo-terminal: prompts of several lines
 * (bracketed paste, `\`, Ctrl-J, Alt-Enter), the keys that forgive (Ctrl-C, Ctrl-D, Esc), Ctrl-R,
 * and the history kept per project across restarts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fakeEnv, latch, systemOf, toolResultsOf, userTextsOf, useE2E, waitUntil, type WireProtocol } from "./_harness.ts";
import { startFakeRegistry } from "../fakes/registry.ts";
import { withPty, type PtyDriver } from "./_pty.ts";

const e2e = useE2E();

const withRepl = (
  body: (repl: PtyDriver) => Promise<void>,
  cwd = e2e.dirs.cwd,
  protocol: WireProtocol = "chat",
  args: string[] = [],
  ready = "› ",
): Promise<void> => withPty({ args, ready, cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, protocol) }, body);

const lastUserTexts = () => userTextsOf(e2e.fake.requests.at(-1)!);

describe("prompts of several lines", () => {
  const spellings: [string, string][] = [
    ["a bracketed paste", "\x1b[200~line one\rline two\rline three\x1b[201~\r"],
    ["a bracketed paste with CRLF and a final newline", "\x1b[200~line one\r\nline two\r\nline three\r\n\x1b[201~\r"],
    ["lines ending in a backslash", "line one\\\rline two\\\rline three\r"],
    ["Ctrl-J", "line one\nline two\nline three\r"],
    ["Alt-Enter", "line one\x1b\rline two\x1b\rline three\r"],
  ];
  // One session types every spelling: each is one request whose last message holds the three lines.
  test(`${spellings.map(([name]) => name).join(", ")}: each reaches the model as one message`, async () => {
    e2e.fake.script(...spellings.map((_, i) => ({ text: `got three lines ${i}` })));
    const sent: [string, number, string | undefined][] = [];
    await withRepl(async (repl) => {
      let at = 0;
      for (const [i, [name, keys]] of spellings.entries()) {
        repl.type(keys);
        at = await repl.until(`got three lines ${i}`, at);
        at = await repl.until("in context", at);
        sent.push([name, e2e.fake.requests.length, lastUserTexts().at(-1)]);
      }
    });
    expect(sent).toEqual(spellings.map(([name], i) => [name, i + 1, "line one\nline two\nline three"]));
  }, 30_000);

  test("a paste is shown collapsed with its first line, and recalled by Up whole, as one entry, after a restart", async () => {
    e2e.fake.script({ text: "first answer" }, { text: "second answer" });
    await withRepl(async (repl) => {
      repl.type("\x1b[200~Error: boom\n  at a.ts:1\n  at b.ts:2\x1b[201~");
      await repl.until("[pasted 3 lines] Error: boom");
      repl.type("\r");
      await repl.until("first answer");
    });
    await withRepl(async (repl) => {
      const from = repl.screen().length;
      repl.type("\x1b[A");
      await repl.until("at b.ts:2", from);
      expect(repl.screen().slice(from)).not.toContain("[3 lines]");
      repl.type("\r");
      await repl.until("second answer");
    });
    expect(lastUserTexts()).toEqual(["Error: boom\n  at a.ts:1\n  at b.ts:2"]);
  }, 40_000);

  test("a recalled prompt of several lines is edited on every line: Up and Down move between its lines, the history only from its edges", async () => {
    e2e.fake.script({ text: "three answer" }, { text: "edited answer" }, { text: "older answer" }, { text: "fresh answer" });
    const [up, down] = ["\x1b[A", "\x1b[B"];
    const sent: string[] = [];
    await withRepl(async (repl) => {
      repl.type("line one\nline two\nline three\r");
      let at = await repl.until("three answer");
      at = await repl.until("in context", at);
      // Recalled with the cursor at the end of its last line: Up and Down stay inside it; Ctrl-J adds a line.
      repl.type(up);
      at = await repl.until("line three", at);
      repl.type(`${up}B${up}A${down}${down}C\x05\nnew\r`);
      at = await repl.until("edited answer", at);
      at = await repl.until("in context", at);
      sent.push(lastUserTexts().at(-1)!);
      // Recalled again (four lines now): three Ups reach its first line, the next goes to the older prompt.
      repl.type(`${up}${up}${up}${up}${up}\r`);
      at = await repl.until("older answer", at);
      at = await repl.until("in context", at);
      sent.push(lastUserTexts().at(-1)!);
      // Down on its last line leaves the history for the empty line.
      repl.type(`${up}${up}${down}${down}fresh\r`);
      await repl.until("fresh answer", at);
      sent.push(lastUserTexts().at(-1)!);
    });
    expect(sent).toEqual(["line oneA\nline twoB\nline threCe\nnew", "line one\nline two\nline three", "fresh"]);
  }, 30_000);

  test("a prompt longer than 20 lines is recalled collapsed, and sent whole", async () => {
    const long = Array.from({ length: 25 }, (_, i) => `row ${i + 1}`).join("\n");
    e2e.fake.script({ text: "long answer" }, { text: "again answer" });
    await withRepl(async (repl) => {
      repl.type(`\x1b[200~${long}\x1b[201~\r`);
      let at = await repl.until("long answer");
      at = await repl.until("in context", at);
      repl.type("\x1b[A");
      at = await repl.until("[25 lines] row 1", at);
      repl.type("\r");
      await repl.until("again answer", at);
    });
    expect(lastUserTexts()).toEqual([long, long]);
  }, 30_000);
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
      await waitUntil(() => e2e.fake.requests.length === 1);
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
  // One chain of sessions: each leaves by another spelling; the next, in a subfolder or the
  // root, recalls the prompt the one before sent last.
  const leaves = ["/exit", "/quit", "  /quit "];
  test(`Up after ${leaves.map((leave) => JSON.stringify(leave)).join(", ")} and a restart recalls the last real prompt, in any folder of the project`, async () => {
    mkdirSync(join(e2e.dirs.cwd, ".git"));
    mkdirSync(join(e2e.dirs.cwd, "sub"));
    e2e.fake.script(...leaves.map((_, i) => ({ text: `answered ${i}` })), { text: "answered again" });
    const recalled: string[] = [];
    for (const [i, leave] of leaves.entries()) {
      await withRepl(
        async (repl) => {
          if (i > 0) {
            repl.type("\x1b[A");
            await repl.until(`› real prompt ${i - 1}`);
            recalled.push(`real prompt ${i - 1}`);
            repl.type("\x15");
          }
          repl.type(`real prompt ${i}\r`);
          const at = await repl.until(`answered ${i}`);
          repl.type(`${leave}\r`);
          await repl.until("Good bye.", at);
        },
        i % 2 === 0 ? join(e2e.dirs.cwd, "sub") : e2e.dirs.cwd,
      );
    }
    await withRepl(
      async (repl) => {
        repl.type("\x1b[A");
        await repl.until(`› real prompt ${leaves.length - 1}`);
        repl.type("\r");
        await repl.until("answered again");
      },
      join(e2e.dirs.cwd, "sub"),
    );
    expect(recalled).toEqual(["real prompt 0", "real prompt 1"]);
    expect(e2e.fake.requests.map((request) => userTextsOf(request))).toEqual([["real prompt 0"], ["real prompt 1"], ["real prompt 2"], ["real prompt 2"]]);
  }, 40_000);
});

describe("interrupted means interrupted", () => {
  for (const protocol of ["chat", "responses", "anthropic"] as const) {
    test(`${protocol}: a turn stopped mid-tool is marked interrupted in the next request; one stopped before any answer is dropped`, async () => {
      e2e.fake.script(
        { reasoning: "the user wants it gone", text: "on it", toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] },
        { text: "never seen", stallMs: 5_000 },
        { text: "fresh answer" },
      );
      await withRepl(
        async (repl) => {
          repl.type("delete the build folder\r");
          let at = await repl.until("● bash sleep 30");
          repl.type("\x03");
          at = await repl.until("[aborted]", at);
          repl.type("a wrong request\r");
          at = await repl.until("a wrong request\n", at);
          await waitUntil(() => e2e.fake.requests.length === 2);
          repl.type("\x1b");
          at = await repl.until("\ninterrupted\n", at);
          at = await repl.until("› ", at);
          repl.type("what is 2+2\r");
          await repl.until("fresh answer", at);
        },
        e2e.dirs.cwd,
        protocol,
        ["--yolo"],
      );
      expect(e2e.fake.requests.map((request) => userTextsOf(request).at(-1))).toEqual(["delete the build folder", "a wrong request", "what is 2+2"]);
      expect(lastUserTexts()).toEqual(["delete the build folder", "[the user interrupted this request]", "what is 2+2"]);
    }, 40_000);
  }
});

describe("@path attaches", () => {
  test("a file's numbered lines and a folder's tree go with the prompt; a name that is nothing is sent as typed", async () => {
    mkdirSync(join(e2e.dirs.cwd, "src", "deep"), { recursive: true });
    writeFileSync(join(e2e.dirs.cwd, "src", "a.ts"), "export const a = 1;\nexport const b = 2;\n");
    writeFileSync(join(e2e.dirs.cwd, "src", "deep", "c.ts"), "c\n");
    writeFileSync(join(e2e.dirs.cwd, ".gitignore"), "build/\n");
    mkdirSync(join(e2e.dirs.cwd, "src", "build"));
    writeFileSync(join(e2e.dirs.cwd, "src", "build", "out.js"), "x\n");
    e2e.fake.script({ text: "read them" });
    await withRepl(async (repl) => {
      repl.type("explain @src/a.ts, then @src/ and mail me@example.com about @nothing.ts\r");
      const at = await repl.until("attached @src/a.ts (2 lines)");
      await repl.until("@nothing.ts names no file or folder in the workspace; sent as typed", at);
      await repl.until("read them", at);
    });
    expect(lastUserTexts()).toEqual([
      "explain @src/a.ts, then @src/ and mail me@example.com about @nothing.ts\n\n" +
        '<attached path="src/a.ts">\n1: export const a = 1;\n2: export const b = 2;\n</attached>\n\n' +
        '<attached path="src">\na.ts\ndeep/\n  c.ts\n</attached>',
    ]);
  }, 30_000);

  test("@.env asks first, as read_file would; n keeps it from the provider, y attaches it", async () => {
    writeFileSync(join(e2e.dirs.cwd, ".env"), "TOKEN=attach-s3cret\n");
    const answers = [
      ["n", false],
      ["y", true],
    ] as const;
    e2e.fake.script(...answers.map((_, i) => ({ text: `done ${i}` })));
    await withRepl(
      async (repl) => {
        let at = 0;
        for (const [i, [answer]] of answers.entries()) {
          repl.type("look at @.env\r");
          at = await repl.until("@.env may hold secrets (an env file); what is attached goes to the model provider. y attach once | n leave it out ", at);
          repl.type(`${answer}\r`);
          at = await repl.until(`done ${i}`, at);
          at = await repl.until("in context", at);
        }
      },
      e2e.dirs.cwd,
      "chat",
      ["--yolo"],
    );
    // The request after n holds no secret; the one after y holds it (in its newest message).
    const carried = e2e.fake.requests.map((request) => JSON.stringify(userTextsOf(request).at(-1)).includes("attach-s3cret"));
    expect(carried).toEqual(answers.map(([, sent]) => sent));
    expect(JSON.stringify(e2e.fake.requests[0]!.body).includes("attach-s3cret")).toBe(false);
  }, 30_000);
});

describe("@path meets the read permission", () => {
  test("a read_file deny rule leaves the file out, saying which rule; a rule naming a secret attaches it without the question", async () => {
    writeFileSync(join(e2e.dirs.cwd, "plans.md"), "the launch code is 0000\n");
    writeFileSync(join(e2e.dirs.cwd, ".env"), "TOKEN=attach-s3cret\n");
    e2e.writeConfig({ permission: { read_file: { "plans.md": "deny", ".env": "allow" } } });
    e2e.fake.script({ text: "done" });
    await withRepl(async (repl) => {
      repl.type("look at @plans.md and @.env\r");
      const at = await repl.until('@plans.md not attached: Refused by the permission rule read_file: "plans.md" = deny.');
      await repl.until("attached @.env (1 line)", at);
      await repl.until("done", at);
      expect(repl.screen()).not.toContain("may hold secrets");
    });
    expect(lastUserTexts()).toEqual(['look at @plans.md and @.env\n\n<attached path=".env">\n1: TOKEN=attach-s3cret\n</attached>']);
  }, 30_000);
});

describe("the guard asks about a command it cannot read", () => {
  test("under --yolo the REPL puts the question (no always): n keeps the folder, y runs the other call", async () => {
    mkdirSync(join(e2e.dirs.cwd, "v"));
    writeFileSync(join(e2e.dirs.cwd, "v", "keep.txt"), "keep\n");
    e2e.fake.script(
      {
        toolCalls: [
          { name: "bash", input: { command: "X=rm; $X -rf v" } },
          { name: "bash", input: { command: "X=ls; $X v" } },
        ],
      },
      { text: "done" },
    );
    await withRepl(
      async (repl) => {
        repl.type("clean up\r");
        let at = await repl.until('bash: The guard plugin asks: cannot tell what "X=rm; $X -rf v" runs (the program is an expansion).');
        at = await repl.until("y allow once | n deny ", at);
        repl.type("n\r");
        at = await repl.until('bash: The guard plugin asks: cannot tell what "X=ls; $X v" runs', at);
        repl.type("y\r");
        await repl.until("done", at);
      },
      e2e.dirs.cwd,
      "chat",
      ["--yolo"],
    );
    expect(existsSync(join(e2e.dirs.cwd, "v", "keep.txt"))).toBe(true);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((result) => result.output);
    expect([outputs[0], outputs[1]!.split("\n")[0]]).toEqual(["Error: User denied this tool call.", "exit: 0"]);
  }, 60_000);
});

describe("@ attachments meet the classifier's new names", () => {
  const names: [string, string][] = [
    [".vault-token", "a tool's credential file"],
    [".config/gh/hosts.yml", "a tool's credential file"],
    ["terraform.tfstate", "a Terraform state file"],
    [".env_prod", "an env file"],
  ];
  test(`${names.length} names each ask before they are attached; n keeps them from the provider`, async () => {
    for (const [name] of names) {
      mkdirSync(dirname(join(e2e.dirs.cwd, name)), { recursive: true });
      writeFileSync(join(e2e.dirs.cwd, name), `TOKEN=attach-${names.findIndex(([other]) => other === name)}-s3cret\n`);
    }
    e2e.fake.script(...names.map(() => ({ text: "done" })));
    await withRepl(
      async (repl) => {
        let at = 0;
        for (const [name, why] of names) {
          repl.type(`look at @${name}\r`);
          at = await repl.until(`@${name} may hold secrets (${why}); what is attached goes to the model provider. y attach once | n leave it out `, at);
          repl.type("n\r");
          at = await repl.until("done", at);
        }
      },
      e2e.dirs.cwd,
      "chat",
      ["--yolo"],
    );
    expect(JSON.stringify(e2e.fake.requests.map((request) => request.body)).match(/attach-\d-s3cret/g)).toBeNull();
  }, 60_000);
});

describe("shortcuts", () => {
  test("!cmd runs without an approval question and its output goes with the next prompt; a failing one shows ✗", async () => {
    e2e.fake.script({ text: "saw it" });
    await withRepl(async (repl) => {
      repl.type("!echo hi-from-shell\r");
      let at = await repl.until("✓ !echo hi-from-shell");
      repl.type("!exit 3\r");
      at = await repl.until("✗ !exit 3: exit 3", at);
      expect(repl.screen()).not.toContain("wants to run");
      repl.type("what did it print?\r");
      await repl.until("saw it", at);
    });
    expect(e2e.fake.requests.length).toBe(1);
    const [text] = lastUserTexts();
    expect(text).toStartWith('what did it print?\n\n<ran command="echo hi-from-shell">\n');
    expect(text).toContain("hi-from-shell\n");
    expect(text).toContain('<ran command="exit 3">\n');
  }, 30_000);

  test("!cmd meets the deny rules a model's bash call meets", async () => {
    e2e.writeConfig({ permission: { bash: { "rm *": "deny" } } });
    writeFileSync(join(e2e.dirs.cwd, "keep.txt"), "x");
    await withRepl(
      async (repl) => {
        repl.type("!rm keep.txt\r");
        await repl.until("✗ !rm keep.txt: not run:");
      },
      e2e.dirs.cwd,
      "chat",
      ["--yolo"],
    );
    expect(existsSync(join(e2e.dirs.cwd, "keep.txt"))).toBe(true);
  }, 30_000);

  test("#text remembers a project note, #global a note for every project; the model is not called", async () => {
    await withRepl(async (repl) => {
      repl.type("#the tests need docker running\r");
      let at = await repl.until("remembered for this project (1 note)");
      repl.type("#global I prefer tabs\r");
      at = await repl.until("remembered for every project (1 note)", at);
      repl.type("#the tests need docker running\r");
      await repl.until("already remembered for this project", at);
    });
    const project = await e2e.shiro(["memory", "list", "--json"]);
    expect(project.stdout).toContain("the tests need docker running");
    const global = await e2e.shiro(["memory", "list", "--global", "--json"]);
    expect(global.stdout).toContain("I prefer tabs");
    expect(global.stdout).not.toContain("docker");
    expect(e2e.fake.requests.length).toBe(0);
  }, 30_000);
});

describe("a sign of life", () => {
  test("a status line counts the seconds while the model thinks; a queued prompt is echoed when it starts; a failed command shows ✗", async () => {
    const thinking = latch();
    e2e.fake.script(
      { text: "slow answer", holdUntil: thinking.promise },
      { toolCalls: [{ name: "bash", input: { command: "exit 3" } }] },
      { text: "it failed" },
    );
    await withRepl(
      async (repl) => {
        repl.type("think hard\r");
        let at = await repl.until("… 1s", 0);
        repl.type("run it\r");
        await repl.until("queued: run it", at);
        thinking.release();
        at = await repl.until("slow answer", at);
        at = await repl.until("› run it\n", at);
        at = await repl.until("✗ bash: exit: 3", at);
        await repl.until("it failed", at);
      },
      e2e.dirs.cwd,
      "chat",
      ["--yolo"],
    );
  }, 30_000);
});

describe("the conventions users bring", () => {
  test("custom commands from .claude/commands and .shiro/commands (and the user's): listed in /help, completed by Tab, run with their arguments", async () => {
    const write = (path: string, text: string) => {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, text);
    };
    write(
      join(e2e.dirs.cwd, ".claude", "commands", "fix-issue.md"),
      "---\ndescription: Fix a GitHub issue\nargument-hint: <number> [priority]\n---\nFix issue #$1 with priority $2.\nAll: $ARGUMENTS\n",
    );
    write(join(e2e.dirs.cwd, ".shiro", "commands", "tidy.md"), "Tidy the imports.\n");
    write(join(e2e.dirs.cwd, ".claude", "commands", "help.md"), "not the real help\n");
    write(join(e2e.dirs.home, ".claude", "commands", "standup.md"), '---\ndescription: "Write my standup"\n---\nSummarise yesterday.\n');
    e2e.fake.script({ text: "fixing" }, { text: "tidying" }, { text: "standing up" });
    await withRepl(async (repl) => {
      repl.type("/help\r");
      let at = await repl.until("/fix-issue <number> [priority]");
      at = await repl.until("Fix a GitHub issue (project)", at);
      await repl.until("/standup", at);
      await repl.until("Write my standup (user)", at);
      at = await repl.until("help.md: /help is a built-in command", at);
      repl.type("/fix-is\t");
      at = await repl.until("/fix-issue", at);
      repl.type(" 42 high\r");
      at = await repl.until("fixing", at);
      repl.type("/tidy src/a.ts\r");
      at = await repl.until("tidying", at);
      repl.type("/standup\r");
      await repl.until("standing up", at);
    });
    const texts = e2e.fake.requests.map((request) => userTextsOf(request).at(-1));
    expect(texts).toEqual(["Fix issue #42 with priority high.\nAll: 42 high", "Tidy the imports.\n\nsrc/a.ts", "Summarise yesterday."]);
  }, 30_000);

  test("Claude Code's commit command as published: !`git status --short` runs and its output replaces it, allowed-tools narrows that turn (under --yolo without the trust question); frontend/component.md is /frontend:component", async () => {
    const { spawnSync } = await import("node:child_process");
    spawnSync("git", ["init", "-q"], { cwd: e2e.dirs.cwd });
    writeFileSync(join(e2e.dirs.cwd, "new-file.txt"), "x\n");
    const write = (path: string, text: string) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    };
    write(
      join(e2e.dirs.cwd, ".claude", "commands", "commit.md"),
      "---\nallowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\ndescription: Create a git commit\n---\n\n## Context\n\n- Current git status: !`git status --short`\n\n## Your task\n\nBased on the above changes, create a single git commit.\n",
    );
    write(join(e2e.dirs.cwd, ".claude", "commands", "frontend", "component.md"), "---\ndescription: Make a component\n---\nMake the $ARGUMENTS component.\n");
    e2e.fake.script({ text: "committing" }, { text: "making" });
    await withRepl(
      async (repl) => {
        repl.type("/commit\r");
        // Under --yolo nothing asks: not the trust question either; the turn is still narrowed.
        let at = await repl.until("committing");
        expect(repl.screen()).toContain("(--yolo: not asked to trust it)");
        expect(repl.screen()).not.toContain("Trust this command's allowed-tools?");
        repl.type("/frontend:component Button\r");
        at = await repl.until("making", at);
      },
      e2e.dirs.cwd,
      "chat",
      ["--yolo"],
    );
    const [commit, component] = e2e.fake.requests;
    expect(userTextsOf(commit!).at(-1)).toBe(
      "## Context\n\n- Current git status: ?? .claude/\n?? new-file.txt\n\n## Your task\n\nBased on the above changes, create a single git commit.",
    );
    const names = (request: typeof commit) => (request!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(names(commit)).toEqual(["bash"]);
    expect(userTextsOf(component!).at(-1)).toBe("Make the Button component.");
    expect(names(component)).toContain("read_file");
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "trusted-projects.json"))).toBe(false);
  }, 40_000);

  test("the commit command's allowed-tools, as Claude Code documents it: trusted once, `git add` runs without a question, `rm` is asked (and refused here)", async () => {
    const { spawnSync } = await import("node:child_process");
    const git = (...args: string[]) => spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd: e2e.dirs.cwd, encoding: "utf8" });
    git("init", "-q");
    writeFileSync(join(e2e.dirs.cwd, "README.md"), "hi\n");
    git("add", "README.md");
    git("commit", "-qm", "first");
    writeFileSync(join(e2e.dirs.cwd, "new-file.txt"), "x\n");
    mkdirSync(join(e2e.dirs.cwd, ".claude", "commands"), { recursive: true });
    writeFileSync(
      join(e2e.dirs.cwd, ".claude", "commands", "commit.md"),
      [
        "---",
        "allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)",
        "description: Create a git commit",
        "---",
        "",
        "## Context",
        "",
        "- Current git status: !`git status`",
        "- Current git diff (staged and unstaged changes): !`git diff HEAD`",
        "- Current branch: !`git branch --show-current`",
        "- Recent commits: !`git log --oneline -10`",
        "",
        "## Your task",
        "",
        "Based on the above changes, create a single git commit.",
        "",
      ].join("\n"),
    );
    const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
    e2e.fake.script(bash("git add new-file.txt"), bash("rm new-file.txt"), { text: "staged, not removed" }, { text: "plain turn" });
    await withRepl(async (repl) => {
      repl.type("/commit\r");
      let at = await repl.until("Trust this command's allowed-tools? y yes, remember it | n not now");
      expect(repl.screen()).toContain("pre-approves, for its turn: Bash(git add:*), Bash(git status:*), Bash(git commit:*)");
      repl.type("y\r");
      const from = at;
      at = await repl.until("| n deny ", at);
      const questioned = repl.screen().slice(from, at);
      expect(questioned).toContain("rm new-file.txt");
      expect(questioned.match(/\| n deny/g)?.length ?? 0).toBe(1);
      repl.type("n\r");
      at = await repl.until("staged, not removed", at);
      repl.type("a plain prompt\r");
      await repl.until("plain turn", at);
    });
    const [first, , third, plain] = e2e.fake.requests;
    expect(userTextsOf(first!).at(-1)).toContain("- Current branch: ");
    expect(userTextsOf(first!).at(-1)).toContain("new-file.txt");
    const names = (request: typeof first) => (request!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(names(first)).toEqual(["bash"]);
    expect(names(plain)).toContain("read_file");
    const [added, removed] = toolResultsOf(third!).map((result) => result.output);
    expect(added).toStartWith("exit: 0");
    expect(removed).toContain("User denied");
    expect(existsSync(join(e2e.dirs.cwd, "new-file.txt"))).toBe(true);
    expect(git("diff", "--cached", "--name-only").stdout.trim()).toBe("new-file.txt");
  }, 60_000);

  test(".claude/skills in the project and the home folder are skill sources", async () => {
    mkdirSync(join(e2e.dirs.cwd, ".claude", "skills", "deploy"), { recursive: true });
    writeFileSync(join(e2e.dirs.cwd, ".claude", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: ship it\n---\nRun the deploy.\n");
    mkdirSync(join(e2e.dirs.home, ".claude", "skills", "triage"), { recursive: true });
    writeFileSync(join(e2e.dirs.home, ".claude", "skills", "triage", "SKILL.md"), "---\nname: triage\ndescription: sort bugs\n---\nSort them.\n");
    await withRepl(async (repl) => {
      await repl.until("skills: commit, debug, deploy, migrate, perf, refactor, review, security, test, triage, verify");
    });
  }, 30_000);
});

describe("a project's .mcp.json", () => {
  const MEMORY_SERVER = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");
  // Its tools go in full or as lines of load_tools (deferred): either way the wire names the server.
  const offersMemory = (index: number) => JSON.stringify(e2e.fake.requests[index]!.body.tools).includes("mcp__memory__");
  const writeMcpJson = (command: string) =>
    writeFileSync(
      join(e2e.dirs.cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: { memory: { type: "stdio", command, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: join(e2e.dirs.home, "graph.jsonl") } } },
      }),
    );

  test("runs its servers only after the trust question was answered y, for that exact file", async () => {
    writeMcpJson(process.execPath);
    e2e.fake.script({ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" });
    // --yolo: a headless run without it withholds the tools it would deny, MCP ones among them.
    const before = await e2e.shiro(["-p", "hi", "--yolo"]);
    expect(before.stderr).toContain(".mcp.json not loaded: this folder is not trusted; a headless run never starts an untrusted project's servers");
    for (const answer of ["n", "y"]) {
      await withRepl(
        async (repl) => {
          await repl.until(`memory: ${process.execPath} ${MEMORY_SERVER}`);
          repl.type(`${answer}\r`);
          await repl.until(answer === "y" ? "trusted; the servers start with the session" : "not trusted: its servers stay off");
        },
        e2e.dirs.cwd,
        "chat",
        [],
        "| n not now ",
      );
      const after = await e2e.shiro(["-p", "hi", "--yolo"]);
      expect(after.code).toBe(0);
    }
    // An edited file (another command) is asked about again, and not run meanwhile.
    writeMcpJson("/bin/echo");
    await e2e.shiro(["-p", "hi", "--yolo"]);
    expect([0, 1, 2, 3].map(offersMemory)).toEqual([false, false, true, false]);
  }, 60_000);
});

describe("a project's .mcp.json is bound to the files it runs", () => {
  const MEMORY_SERVER = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");
  const offersMemory = (index: number) => JSON.stringify(e2e.fake.requests[index]!.body.tools).includes("mcp__memory__");

  test("the question shows env and the workspace files; editing server.js or the NODE_OPTIONS hook asks again", async () => {
    const cwd = e2e.dirs.cwd;
    const server = `import(${JSON.stringify(MEMORY_SERVER)});\n`;
    writeFileSync(join(cwd, "server.js"), server);
    writeFileSync(join(cwd, "hook.js"), "// a hook\n");
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: ["./server.js"],
            env: { NODE_OPTIONS: "--require ./hook.js", MEMORY_FILE_PATH: join(e2e.dirs.home, "graph.jsonl") },
          },
        },
      }),
    );
    e2e.fake.script({ text: "one" }, { text: "two" }, { text: "three" }, { text: "four" });
    await withRepl(
      async (repl) => {
        await repl.until(`memory: ${process.execPath} ./server.js`);
        await repl.until('env NODE_OPTIONS="--require ./hook.js"');
        await repl.until("runs workspace files (trust covers their content): hook.js, server.js");
        repl.type("y\r");
        await repl.until("trusted; the servers start with the session");
      },
      cwd,
      "chat",
      [],
      "| n not now ",
    );
    const runs: string[] = [];
    const run = async () => runs.push((await e2e.shiro(["-p", "hi", "--yolo"])).stderr);
    await run();
    writeFileSync(join(cwd, "server.js"), `${server}// planted later\n`);
    await run();
    writeFileSync(join(cwd, "server.js"), server);
    await run();
    writeFileSync(join(cwd, "hook.js"), "require('child_process').execSync('touch pwned');\n");
    await run();
    expect([0, 1, 2, 3].map(offersMemory)).toEqual([true, false, true, false]);
    expect(runs.map((stderr) => stderr.includes(".mcp.json not loaded: this folder is not trusted"))).toEqual([false, true, false, true]);
  }, 90_000);
});

describe("extensions without a restart", () => {
  const MEMORY_SERVER = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");
  const offersMemory = (index: number) => JSON.stringify(e2e.fake.requests[index]!.body.tools).includes("mcp__memory__");

  test("/mcp add connects a server in the running session, /mcp remove takes it away; a bad one says why", async () => {
    e2e.fake.script({ text: "with memory" }, { text: "without memory" });
    await withRepl(async (repl) => {
      repl.type("/mcp add memory --url not-a-url\r");
      let at = await repl.until("the URL must start with http:// or https://");
      repl.type(`/mcp add memory --command ${process.execPath} --arg ${MEMORY_SERVER}\r`);
      at = await repl.until("reloaded:", at);
      // The server connects in the background: ask /mcp until it lists the tools (bounded).
      for (let i = 0; i < 100 && !repl.screen().slice(at).includes("(local) - 11 tools"); i++) {
        repl.type("/mcp\r");
        await Bun.sleep(100);
      }
      at = await repl.until("(local) - 11 tools", at);
      repl.type("use it\r");
      at = await repl.until("with memory", at);
      repl.type("/mcp remove memory\r");
      at = await repl.until("reloaded:", at);
      repl.type("and now\r");
      await repl.until("without memory", at);
    });
    expect([0, 1].map(offersMemory)).toEqual([true, false]);
    expect(userTextsOf(e2e.fake.requests[1]!)).toEqual(["use it", "and now"]);
  }, 60_000);

  test("an MCP server's prompts are slash commands: in /help with their server, completed by Tab, sent filled in; /mcp says where each server comes from", async () => {
    const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
    e2e.writeConfig({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } });
    e2e.fake.script({ text: "sunny" });
    await withRepl(async (repl) => {
      // The server connects in the background: ask /mcp until it is connected (bounded).
      for (let i = 0; i < 150 && !/\(local\) - \d+ tools/.test(repl.screen()); i++) {
        repl.type("/mcp\r");
        await Bun.sleep(100);
      }
      let at = await repl.until(`from ${join(e2e.dirs.home, ".shiro-neko", "config.json")}`);
      repl.type("/help\r");
      at = await repl.until("/mcp__everything__args-prompt", at);
      at = await repl.until("(MCP server everything)", at);
      repl.type("/mcp__everything__args-p\t");
      at = await repl.until("/mcp__everything__args-prompt", at);
      repl.type(" Portland Oregon\r");
      await repl.until("sunny", at);
    });
    expect(lastUserTexts()).toEqual(["What's weather in Portland, Oregon?"]);
  }, 60_000);

  test("/reload picks up a skill written while the session runs", async () => {
    e2e.fake.script({ text: "before" }, { text: "after" });
    await withRepl(async (repl) => {
      repl.type("first\r");
      let at = await repl.until("before");
      mkdirSync(join(e2e.dirs.cwd, ".shiro", "skills"), { recursive: true });
      writeFileSync(join(e2e.dirs.cwd, ".shiro", "skills", "fresh.md"), "---\nname: fresh-skill\ndescription: just written\n---\nDo it.\n");
      repl.type("/reload\r");
      at = await repl.until("reloaded:", at);
      repl.type("second\r");
      await repl.until("after", at);
    });
    expect([0, 1].map((index) => systemOf(e2e.fake.requests[index]!).includes("fresh-skill"))).toEqual([false, true]);
  }, 30_000);

  test("/registry add installs a skill that the same session offers at once", async () => {
    const registry = await startFakeRegistry();
    try {
      const url = registry.serveIndex({
        skills: [{ name: "review-plus", description: "a stricter code review", url: registry.url("/review-plus.md") }],
        plugins: [],
      });
      registry.serve("/review-plus.md", { body: "---\nname: review-plus\ndescription: a stricter code review\n---\nReview harder.\n" });
      e2e.writeConfig({ registryUrl: url });
      e2e.fake.script({ text: "before" }, { text: "after" });
      await withRepl(async (repl) => {
        repl.type("first\r");
        let at = await repl.until("before");
        repl.type("/registry add review-plus --yes\r");
        at = await repl.until("reloaded:", at);
        repl.type("second\r");
        await repl.until("after", at);
      });
    } finally {
      await registry.close();
    }
    expect([0, 1].map((index) => systemOf(e2e.fake.requests[index]!).includes("review-plus"))).toEqual([false, true]);
    expect(userTextsOf(e2e.fake.requests[1]!)).toEqual(["first", "second"]);
  }, 60_000);
});

describe("sessions by folder", () => {
  test("headless -r of another project's session needs --force", async () => {
    const other = join(e2e.dirs.home, "other-project");
    mkdirSync(other);
    e2e.fake.script({ text: "there" }, { text: "forced" });
    await e2e.shiro(["-p", "started elsewhere"], { cwd: other });
    const [session] = JSON.parse((await e2e.shiro(["sessions", "--all", "--json"])).stdout) as { id: string }[];
    const refused = await e2e.shiro(["-p", "go on", "-r", session!.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`was started in ${other}, not in this project: pass --force to continue it here, or run shiro there`);
    const forced = await e2e.shiro(["-p", "go on", "-r", session!.id, "--force"]);
    expect(forced.code).toBe(0);
    expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["started elsewhere", "go on"]);
    expect(e2e.fake.requests.length).toBe(2);
  }, 30_000);

  test("/sessions lists this project's sessions with their folder; /resume numbers them; another folder's session is asked about", async () => {
    const other = join(e2e.dirs.home, "other-project");
    mkdirSync(other);
    mkdirSync(join(e2e.dirs.cwd, ".git"));
    mkdirSync(join(e2e.dirs.cwd, "sub"));
    e2e.fake.script({ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" });
    await e2e.shiro(["-p", "older here"]);
    await e2e.shiro(["-p", "newer in sub"], { cwd: join(e2e.dirs.cwd, "sub") });
    await e2e.shiro(["-p", "elsewhere"], { cwd: other });
    const otherId = (await e2e.shiro(["sessions", "--all", "--json"])).stdout;
    const elsewhere = (JSON.parse(otherId) as { id: string; title: string }[]).find((session) => session.title === "elsewhere")!.id;
    await withRepl(async (repl) => {
      repl.type("/sessions\r");
      let at = await repl.until("sub  newer in sub");
      at = await repl.until(".  older here", at);
      at = await repl.until("› ", at);
      expect(repl.screen().slice(0, at)).not.toContain("elsewhere");
      repl.type("/sessions all\r");
      at = await repl.until(`${other}  elsewhere`, at);
      repl.type("/resume\r");
      at = await repl.until(" 2. ", at);
      at = await repl.until("resume one with /resume <n>", at);
      repl.type("/resume 2\r");
      at = await repl.until("resumed ", at);
      at = await repl.until("older here", at);
      repl.type(`/resume ${elsewhere}\r`);
      at = await repl.until(`was started in ${other}; continue it here? y | n `, at);
      repl.type("n\r");
      at = await repl.until("not resumed", at);
      repl.type("go on\r");
      await repl.until("d", at);
    });
    expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["older here", "go on"]);
  }, 60_000);
});

describe("the ask tool", () => {
  test("in the REPL the model's question shows numbered options; a number answers with that option, words as typed", async () => {
    const ask = (options?: string[]) => ({ toolCalls: [{ name: "ask", input: { question: "Which database?", ...(options ? { options } : {}) } }] });
    e2e.fake.script(ask(["Postgres", "SQLite"]), { text: "going with it" }, ask(["Postgres", "SQLite"]), { text: "noted" }, ask(), { text: "fine" });
    await withRepl(async (repl) => {
      repl.type("pick one\r");
      let at = await repl.until("? Which database?\n  1. Postgres\n  2. SQLite\n");
      at = await repl.until("answer (a number or your own words) ", at);
      repl.type("2\r");
      at = await repl.until("going with it", at);
      repl.type("again\r");
      at = await repl.until("answer (a number or your own words) ", at);
      repl.type("DuckDB, actually\r");
      at = await repl.until("noted", at);
      repl.type("open question\r");
      at = await repl.until("answer ", at);
      repl.type("3\r");
      await repl.until("fine", at);
    });
    expect([1, 3, 5].map((index) => toolResultsOf(e2e.fake.requests[index]!).at(-1)!.output)).toEqual([
      "The user answered: SQLite",
      "The user answered: DuckDB, actually",
      "The user answered: 3",
    ]);
  }, 30_000);

  test("a prompt typed ahead stays on the input line through the question: the answer is only what was typed after it", async () => {
    const typed = latch();
    const ask = { toolCalls: [{ name: "ask", input: { question: "Which database?", options: ["Postgres", "SQLite"] } }], holdUntil: typed.promise };
    e2e.fake.script(ask, { text: "going with it" }, { text: "next answer" });
    await withRepl(async (repl) => {
      repl.type("pick one\r");
      let at = await repl.until("… 0s");
      repl.type("later prompt");
      at = await repl.until("later prompt", at);
      typed.release();
      at = await repl.until("answer (a number or your own words) ", at);
      repl.type("SQ\x7fQLite\r");
      at = await repl.until("going with it", at);
      await repl.until("in context", at);
      repl.type("\r");
      await repl.until("next answer", at);
    });
    expect(toolResultsOf(e2e.fake.requests[1]!).at(-1)!.output).toBe("The user answered: SQLite");
    expect(lastUserTexts()).toEqual(["pick one", "later prompt"]);
  }, 30_000);

  test("headless, ask is withheld: not offered at all", async () => {
    e2e.fake.script({ text: "ok" });
    await e2e.shiro(["-p", "hi"]);
    const names = (e2e.fake.requests[0]!.body.tools as { function?: { name: string } }[]).map((tool) => tool.function!.name);
    expect(names).toContain("todo_write");
    expect(names).not.toContain("ask");
  }, 30_000);
});

describe("MCP failures are said once", () => {
  test("a server that cannot start: `mcp <name> failed: …` once in the REPL and on stderr headless", async () => {
    e2e.writeConfig({ mcpServers: { broken: { command: join(e2e.dirs.home, "no-such-server") } } });
    e2e.fake.script({ text: "answer-one" }, { text: "answer-two" }, { text: "headless" });
    await withRepl(async (repl) => {
      // /mcp until the server has failed (bounded); the failure then joins the next turn, once.
      for (let i = 0; i < 100 && !repl.screen().includes("(local) - failed: "); i++) {
        repl.type("/mcp\r");
        await Bun.sleep(50);
      }
      repl.type("first\r");
      let at = await repl.until("answer-one");
      repl.type("second\r");
      at = await repl.until("answer-two", at);
      expect(repl.screen().split("mcp broken failed: ").length - 1, repl.screen()).toBe(1);
    });
    const headless = await e2e.shiro(["-p", "hi"]);
    expect(headless.stderr.split("mcp broken failed: ").length - 1).toBe(1);
  }, 30_000);
});
