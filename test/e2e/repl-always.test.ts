/**
 * "Always" saved beyond the session, through the built binary in a pseudo-terminal: `p` at an
 * approval question shows the project rule and its file, `y` writes exactly that rule to
 * `.claude/settings.local.json`, and the next session in the project runs the call unasked.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeEnv, toolResultsOf, useE2E } from "./_harness.ts";
import { withPty, type PtyDriver } from "./_pty.ts";

const e2e = useE2E();

const withRepl = (body: (repl: PtyDriver) => Promise<void>): Promise<void> =>
  withPty({ cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") }, body);
const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
const settingsPath = () => join(e2e.dirs.cwd, ".claude", "settings.local.json");

describe("always in this project", () => {
  test("p shows the rule, y writes exactly it, and the next session runs the command without a question", async () => {
    e2e.fake.script(bash("touch one.txt"), { text: "first done" });
    let shown = "";
    await withRepl(async (repl) => {
      repl.type("touch one\r");
      let at = await repl.until("| p always in this project | n deny ");
      repl.type("p");
      at = await repl.until("write it? y write it | n this session only ", at);
      shown = /"permissions": \{ "allow": \[(.+)\] \}/.exec(repl.screen().slice(0, at))![1]!;
      repl.type("y");
      at = await repl.until("saved Bash(touch:*) to ", at);
      await repl.until("first done", at);
    });
    expect(shown).toBe('"Bash(touch:*)"');
    expect(JSON.parse(readFileSync(settingsPath(), "utf8"))).toEqual({ permissions: { allow: [JSON.parse(shown)] } });
    expect(existsSync(join(e2e.dirs.cwd, "one.txt"))).toBe(true);

    e2e.fake.script(bash("touch two.txt"), { text: "second done" });
    await withRepl(async (repl) => {
      repl.type("touch two\r");
      await repl.until("second done");
      expect(repl.screen()).not.toContain("wants to run");
      expect(repl.screen()).not.toContain("Trust this folder");
    });
    expect(existsSync(join(e2e.dirs.cwd, "two.txt"))).toBe(true);
    expect(toolResultsOf(e2e.fake.requests.at(-1)!).map((result) => result.output.split("\n")[0])).toEqual(["exit: 0"]);
  }, 40_000);

  test("n at `write it?` writes nothing: the session keeps the grant, the next session asks again", async () => {
    e2e.fake.script(bash("touch one.txt"), { text: "first done" }, bash("touch again.txt"), { text: "again done" });
    await withRepl(async (repl) => {
      repl.type("touch one\r");
      let at = await repl.until("| p always in this project | n deny ");
      repl.type("p");
      at = await repl.until("write it? y write it | n this session only ", at);
      repl.type("n");
      at = await repl.until("not written: allowed for this session only", at);
      const after = await repl.until("first done", at);
      repl.type("touch again\r");
      await repl.until("again done", after);
      expect(repl.screen().slice(after)).not.toContain("wants to run");
    });
    expect(existsSync(settingsPath())).toBe(false);
    expect(existsSync(join(e2e.dirs.cwd, "again.txt"))).toBe(true);

    e2e.fake.script(bash("touch two.txt"), { text: "second done" });
    await withRepl(async (repl) => {
      repl.type("touch two\r");
      await repl.until("bash wants to run");
      repl.type("n\r");
      await repl.until("second done");
    });
    expect(existsSync(join(e2e.dirs.cwd, "two.txt"))).toBe(false);
  }, 40_000);

  test('not offered where another rule asks about the call: config\'s "*": "ask" outvotes any allow a project rule could add', async () => {
    e2e.writeConfig({ permission: { bash: { "*": "ask", "git push *": "deny" } } });
    e2e.fake.script(bash("touch one.txt"), { text: "first done" });
    await withRepl(async (repl) => {
      repl.type("touch one\r");
      const at = await repl.until("a always allow bash [touch *] | n deny ");
      repl.type("y");
      await repl.until("first done", at);
      expect(repl.screen()).not.toContain("always in this project");
    });
    expect(existsSync(settingsPath())).toBe(false);
  }, 40_000);
});
