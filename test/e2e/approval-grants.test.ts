/**
 * An "always" grant never covers a path the secrets classifier flags, through the built binary in
 * the REPL: "a" for `cat README.md` grants `cat *`; `cat notes.md` then runs without a question
 * (the control: the grant works), while `cat .env` and `cat ~/.ssh/id_rsa` still ask, and denied,
 * their contents never reach the provider.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, toolResultsOf, useE2E } from "./_harness.ts";
import { withPty } from "./_pty.ts";

const e2e = useE2E();
const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });

describe("always grants and secrets", () => {
  test("cat * granted for README.md still asks for .env and ~/.ssh/id_rsa", async () => {
    // cat of a workspace file is read-only and would run unasked: the grant under test needs the question.
    e2e.writeConfig({ readOnlyCommands: "ask" });
    writeFileSync(join(e2e.dirs.cwd, "README.md"), "readme text\n");
    writeFileSync(join(e2e.dirs.cwd, "notes.md"), "notes text\n");
    writeFileSync(join(e2e.dirs.cwd, ".env"), "TOKEN=gr4nt-s3cret1\n");
    mkdirSync(join(e2e.dirs.home, ".ssh"));
    writeFileSync(join(e2e.dirs.home, ".ssh", "id_rsa"), "gr4nt-s3cret2\n");
    e2e.fake.script(
      bash("cat README.md"),
      { text: "read the readme" },
      bash("cat notes.md"),
      { text: "read the notes" },
      bash("cat .env"),
      { text: "env refused" },
      bash("cat ~/.ssh/id_rsa"),
      { text: "key refused" },
    );
    await withPty({ cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") }, async (repl) => {
      repl.type("first\r");
      let at = await repl.until("a always allow bash [cat *] | p always in this project | n deny ");
      repl.type("a\r");
      at = await repl.until("read the readme", at);
      let from = at;
      repl.type("second\r");
      at = await repl.until("read the notes", at);
      expect(repl.screen().slice(from, at)).not.toContain("| n deny");
      from = at;
      repl.type("third\r");
      at = await repl.until("| n deny ", at);
      expect(repl.screen().slice(from, at)).toContain("cat .env");
      repl.type("n\r");
      at = await repl.until("env refused", at);
      from = at;
      repl.type("fourth\r");
      at = await repl.until("| n deny ", at);
      expect(repl.screen().slice(from, at)).toContain("cat ~/.ssh/id_rsa");
      repl.type("n\r");
      await repl.until("key refused", at);
    });
    const results = toolResultsOf(e2e.fake.requests.at(-1)!).map((entry) => entry.output);
    expect(results.slice(0, 2)).toEqual(["exit: 0\n\nstdout:\nreadme text", "exit: 0\n\nstdout:\nnotes text"]);
    expect(results.filter((output) => output.includes("gr4nt-s3cret"))).toEqual([]);
    expect(results.length).toBe(4);
  }, 60_000);
});
