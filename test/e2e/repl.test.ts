/**
 * The interactive REPL through the built binary in a pseudo-terminal, against the fake provider:
 * the banner, approval questions (y / a / n, and ctrl-c while one is open), ctrl-c during a
 * turn, the prompt queue, /clear and /resume, and the farewell text.
 */
import { describe, expect, test } from "bun:test";
import { fakeEnv, latch, userTextsOf, useE2E } from "./_harness.ts";
import { startPty, withPty, type PtyDriver as ReplDriver } from "./_pty.ts";

const e2e = useE2E();

function startRepl(args: string[] = [], env: Record<string, string> = fakeEnv(e2e.fake.baseURL, "chat")): ReplDriver {
  return startPty(args, { cwd: e2e.dirs.cwd, home: e2e.dirs.home, env });
}

// ready "": each test waits for what it needs itself (the banner, a question, the prompt).
const withRepl = (args: string[], body: (repl: ReplDriver) => Promise<void>): Promise<void> =>
  withPty({ args, ready: "", cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") }, body);

describe("the REPL", () => {
  test("the banner names the approval policy; ctrl-c twice with nothing running says good bye", async () => {
    await withRepl([], async (repl) => {
      await repl.until("› ");
      expect(repl.screen()).toContain("no AGENTS.md found - /init writes one\n");
      expect(repl.screen()).toContain("approvals: ask for write_file, edit_file, bash, multi_edit, apply_patch, move_file, delete_file, mcp__*\n");
      repl.type("\x03");
      await repl.until("press Ctrl-C again to exit");
      repl.type("\x03");
      await repl.until("Good bye. Nothing to save from this session.\n");
      expect(await repl.exited).toBe(0);
    });
  }, 30_000);

  test("approval answers: y runs once, a grants the pattern, n denies; ctrl-c while asked denies and ends the turn", async () => {
    const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
    // echo is read-only and would run unasked: these answers need the question.
    e2e.writeConfig({ readOnlyCommands: "ask" });
    e2e.fake.script(
      bash("echo once-ok"),
      { text: "ran once" },
      bash("echo always-ok"),
      { text: "ran always" },
      bash("echo granted-ok"),
      { text: "ran without asking" },
      bash("touch denied.txt"),
      { text: "was denied" },
      bash("touch interrupted.txt"),
      { text: "next answer" },
    );
    await withRepl([], async (repl) => {
      await repl.until("› ");
      repl.type("first\r");
      let at = await repl.until("| n deny ");
      repl.type("y\r");
      at = await repl.until("ran once", at);
      repl.type("second\r");
      at = await repl.until("a always allow bash [echo *] | p always in this project | n deny ", at);
      repl.type("a\r");
      at = await repl.until("ran always", at);
      repl.type("third\r");
      at = await repl.until("ran without asking", at);
      expect(repl.screen().slice(at - 200, at)).not.toContain("wants to run");
      repl.type("fourth\r");
      at = await repl.until("| n deny ", at);
      repl.type("n\r");
      at = await repl.until("was denied", at);
      expect(repl.screen()).toContain("bash: User denied this tool call.");

      repl.type("fifth\r");
      at = await repl.until("| n deny ", at);
      repl.type("\x03");
      at = await repl.until("[aborted]", at);
      // The question was withdrawn: the next line is a prompt, not a late answer.
      repl.type("after the interrupt\r");
      await repl.until("next answer", at);
    });
    const last = e2e.fake.requests.at(-1)!;
    expect(userTextsOf(last)).toEqual(["first", "second", "third", "fourth", "fifth", "[the user interrupted this request]", "after the interrupt"]);
    expect(await Bun.file(`${e2e.dirs.cwd}/denied.txt`).exists()).toBe(false);
    expect(await Bun.file(`${e2e.dirs.cwd}/interrupted.txt`).exists()).toBe(false);
  }, 40_000);

  test("a read of a possible secret asks even under --yolo: n keeps it from the provider, y sends it", async () => {
    await Bun.write(`${e2e.dirs.cwd}/.env`, "TOKEN=repl-s3cret\n");
    const read = { toolCalls: [{ name: "read_file", input: { path: "./.env" } }] };
    e2e.fake.script(read, { text: "was refused" }, read, { text: "got it" });
    await withRepl(["--yolo"], async (repl) => {
      await repl.until("› ");
      repl.type("read it\r");
      let at = await repl.until("read_file wants to read .env, which may hold secrets (an env file)");
      at = await repl.until("y allow once | n deny ", at);
      repl.type("n\r");
      at = await repl.until("was refused", at);
      repl.type("now read it\r");
      at = await repl.until("y allow once | n deny ", at);
      repl.type("y\r");
      await repl.until("got it", at);
    });
    const bodies = e2e.fake.requests.map((request) => JSON.stringify(request.body).includes("repl-s3cret"));
    expect(bodies).toEqual([false, false, false, true]);
  }, 40_000);

  test("lines typed during a turn run after it, in order; ctrl-c during a turn stops it and drops the queue", async () => {
    const queued = latch();
    e2e.fake.script(
      { text: "slow answer", holdUntil: queued.promise },
      { text: "queued one answered" },
      { text: "queued two answered" },
      { toolCalls: [{ name: "bash", input: { command: "sleep 30" } }] },
      { text: "fresh answer" },
    );
    await withRepl(["--yolo"], async (repl) => {
      await repl.until("› ");
      repl.type("slow\r");
      await repl.until("slow\n");
      repl.type("queued one\r");
      repl.type("queued two\r");
      await repl.until("queued: queued two");
      queued.release();
      let at = await repl.until("queued two answered");
      expect(repl.screen().indexOf("slow answer")).toBeLessThan(repl.screen().indexOf("queued one answered"));

      repl.type("sleep now\r");
      at = await repl.until("● bash sleep 30", at);
      repl.type("never sent\r");
      repl.type("\x03");
      at = await repl.until("interrupted", at);
      at = await repl.until("The user interrupted this command.", at);
      repl.type("fresh\r");
      await repl.until("fresh answer", at);
    });
    const texts = e2e.fake.requests.map((request) => userTextsOf(request).at(-1));
    expect(texts).toEqual(["slow", "queued one", "queued two", "sleep now", "fresh"]);
  }, 40_000);

  test("/clear starts a new session, /resume brings the old one back with a recap of its last exchange, and the farewell says how to resume", async () => {
    e2e.fake.script({ text: "first answer" }, { text: "second answer" }, { text: "third answer" });
    await withRepl([], async (repl) => {
      await repl.until("› ");
      repl.type("remember the first\r");
      let at = await repl.until("first answer");
      repl.type("/clear\r");
      at = await repl.until("new session ", at);
      repl.type("in the second session\r");
      at = await repl.until("second answer", at);
      repl.type("/sessions\r");
      at = await repl.until("remember the first", at);
      // The second session is saved shortly after its turn (autosave is debounced).
      let sessions: string[] = [];
      for (const deadline = Date.now() + 5_000; sessions.length < 2 && Date.now() < deadline; await Bun.sleep(50)) {
        sessions = (await Array.fromAsync(new Bun.Glob("*.json").scan(`${e2e.dirs.home}/.shiro-neko/sessions`))).sort();
      }
      expect(sessions).toHaveLength(2);
      repl.type(`/resume ${sessions[1]!.slice(0, -5)}\r`);
      at = await repl.until("already in session ", at);
      repl.type(`/resume ${sessions[0]!.slice(0, -5)}\r`);
      at = await repl.until("(2 messages): remember the first\n  you: remember the first\n  shiro: first answer\n", at);
      repl.type("back again\r");
      at = await repl.until("third answer", at);
      repl.type("/exit\r");
      await repl.until(
        'Good bye.\nSaved 4 message(s): "remember the first"\n\nResume it with:\n  shiro -c ...newest session in this directory\n  shiro -r ',
        at,
      );
      expect(await repl.exited).toBe(0);
    });
    expect(userTextsOf(e2e.fake.requests[2]!)).toEqual(["remember the first", "back again"]);
  }, 40_000);

  test("a session that ran a tool leaves one episode with every prompt when the REPL exits; one that only chatted leaves none", async () => {
    e2e.fake.script({ toolCalls: [{ name: "glob", input: { pattern: "*" } }] }, { text: "looked" }, { text: "plain answer" }, { text: "chat only" });
    await withRepl([], async (repl) => {
      await repl.until("› ");
      repl.type("look around the tree\r");
      let at = await repl.until("looked");
      repl.type("and then explain it\r");
      at = await repl.until("plain answer", at);
      repl.type("/clear\r");
      at = await repl.until("new session ", at);
      repl.type("just chatting\r");
      at = await repl.until("chat only", at);
      repl.type("/exit\r");
      await repl.until("Good bye.", at);
      expect(await repl.exited).toBe(0);
    });
    const { pathHash16 } = await import("../../lib/platform/paths.ts");
    const { readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const file = join(e2e.dirs.home, ".shiro-neko", "memory", `${pathHash16(e2e.dirs.cwd)}.episodes.jsonl`);
    const episodes = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
      .flatMap((record) => (record.episode ? [record.episode] : []));
    expect(episodes.map((episode: { prompts: string[]; outcome: { runs: number } }) => [episode.prompts, episode.outcome.runs])).toEqual([
      [["look around the tree", "and then explain it"], 2],
    ]);
  }, 40_000);
});

describe("provider setup", () => {
  test("with no key, the REPL sets a provider up, saves it, and answers with it", async () => {
    e2e.fake.script({ text: "configured and answering" });
    const repl = startRepl([], {});
    try {
      await repl.until("Which provider?");
      const presets = [
        "anthropic",
        "openai",
        "openrouter",
        "groq",
        "deepseek",
        "xai",
        "mistral",
        "gemini",
        "together",
        "fireworks",
        "cerebras",
        "ollama",
        "lmstudio",
        "custom-openai",
      ];
      // One key at a time: a burst of escape sequences can arrive as one chunk and be misread.
      for (let i = 0; i < presets.indexOf("custom-openai"); i++) {
        repl.type("\x1b[B");
        await Bun.sleep(30);
      }
      await repl.until("● Custom OpenAI-compatible");
      repl.type("\r");
      await repl.until("◆  API root URL");
      repl.type(`${e2e.fake.baseURL}\r`);
      await repl.until("◆  API key");
      repl.type("sk-typed-key\r");
      await repl.until("● fake-model");
      repl.type("\r");
      await repl.until("› ");
      const { readFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      const saved = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "config.json"), "utf8"));
      expect(saved).toEqual({ provider: "custom-openai", model: "fake-model", baseURL: e2e.fake.baseURL, apiKey: "sk-typed-key" });
      repl.type("hello\r");
      await repl.until("configured and answering");
      expect(e2e.fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-typed-key");
      expect(userTextsOf(e2e.fake.requests.at(-1)!)).toEqual(["hello"]);
    } finally {
      repl.kill();
      await repl.exited;
    }
  }, 30_000);
});

describe("worker subagents in the REPL", () => {
  test("a worker's write asks the user through the parent's prompt, and the file is written on y", async () => {
    let sub = 0;
    let parent = 0;
    e2e.fake.respond((request) => {
      const system = JSON.stringify(request.body.messages?.[0] ?? "");
      if (system.includes("You are a subagent doing one piece of work")) {
        sub += 1;
        return sub === 1 ? { toolCalls: [{ name: "write_file", input: { path: "done.txt", content: "worker was here\n" } }] } : { text: "wrote done.txt" };
      }
      parent += 1;
      return parent === 1
        ? { toolCalls: [{ name: "task", input: { description: "write it", prompt: "create done.txt", kind: "worker" } }] }
        : { text: "the worker finished" };
    });
    await withRepl([], async (repl) => {
      await repl.until("› ");
      repl.type("please delegate\r");
      const at = await repl.until("a worker subagent wants to run write_file\ndelegated work, gated by your rules exactly as a direct call is");
      repl.type("y\r");
      await repl.until("the worker finished", at);
      const { readFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      expect(readFileSync(join(e2e.dirs.cwd, "done.txt"), "utf8")).toBe("worker was here\n");
    });
  }, 30_000);

  test("a subagent's live line waits while an approval question is open and prints after the answer", async () => {
    let questionShown!: () => void;
    const shown = new Promise<void>((resolve) => (questionShown = resolve));
    let worker = 0;
    let explore = 0;
    let parent = 0;
    e2e.fake.respond(async (request) => {
      const system = JSON.stringify(request.body.messages?.[0] ?? "");
      if (system.includes("You are a subagent doing one piece of work")) {
        worker += 1;
        return worker === 1 ? { toolCalls: [{ name: "write_file", input: { path: "done.txt", content: "worker was here\n" } }] } : { text: "wrote done.txt" };
      }
      if (system.includes("You are a subagent exploring")) {
        explore += 1;
        if (explore > 1) return { text: "explored" };
        await shown;
        return { toolCalls: [{ name: "list_dir", input: { path: "." } }] };
      }
      parent += 1;
      return parent === 1
        ? {
            toolCalls: [
              { name: "task", input: { description: "look around", prompt: "list the files" } },
              { name: "task", input: { description: "write it", prompt: "create done.txt", kind: "worker" } },
            ],
          }
        : { text: "both finished" };
    });
    await withRepl([], async (repl) => {
      await repl.until("› ");
      repl.type("please delegate twice\r");
      const asked = await repl.until("| n deny ");
      questionShown();
      // The explorer's second request means its tool call (and so its live line) has happened.
      for (let waited = 0; explore < 2 && waited < 10_000; waited += 20) await Bun.sleep(20);
      expect(explore).toBe(2);
      await Bun.sleep(300);
      expect(repl.screen().slice(asked)).not.toContain("[look around]");
      repl.type("y\r");
      const after = await repl.until("[look around] list_dir", asked);
      await repl.until("both finished", after);
    });
  }, 30_000);

  test("/cost splits tokens and spend between this agent and its subagents", async () => {
    let parent = 0;
    e2e.fake.respond((request) => {
      const system = JSON.stringify(request.body.messages?.[0] ?? "");
      if (system.includes("You are a subagent exploring")) return { text: "explored", usage: { input: 1000, output: 100 } };
      parent += 1;
      if (parent === 1) return { toolCalls: [{ name: "task", input: { description: "look", prompt: "list the files" } }], usage: { input: 200, output: 20 } };
      return { text: "done", usage: { input: 300, output: 30 } };
    });
    await withRepl([], async (repl) => {
      await repl.until("› ");
      repl.type("delegate\r");
      let at = await repl.until("done\n");
      at = await repl.until("› ", at);
      repl.type("/cost\r");
      await repl.until("context: ", at);
      const shown = repl.screen().slice(at);
      expect(shown).toContain("billed: 1500 in / 150 out\n");
      expect(shown).toMatch(/\n {2}this agent: 500 in \/ 50 out, \$\d[^\n]*\n {2}subagents: 1000 in \/ 100 out, \$\d/);
    });
  }, 30_000);
});

describe("blocked runs at start", () => {
  test("the REPL offers this folder's pending approval; y approves it and the run continues here", async () => {
    const { existsSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "CHANGES.md", content: "# Changes\n" } }] }, { text: "Changelog written." });
    const blocked = await e2e.shiro(["-p", "write the changelog", "--approvals", "block"]);
    expect(blocked.code).toBe(3);
    await withRepl([], async (repl) => {
      const at = await repl.until("1 blocked run waits for an approval in this folder");
      await repl.until("write_file CHANGES.md: y approve and continue it here | n deny and continue it here | s skip", at);
      repl.type("y\r");
      await repl.until("Changelog written.", at);
      await repl.until("› ", at);
      expect(readFileSync(join(e2e.dirs.cwd, "CHANGES.md"), "utf8")).toBe("# Changes\n");
      expect(existsSync(join(e2e.dirs.cwd, "CHANGES.md"))).toBe(true);
    });
    const approvals = JSON.parse(readFileSync(join(e2e.dirs.home, ".shiro-neko", "approvals.json"), "utf8"));
    expect(approvals.approvals[0]).toMatchObject({ status: "approved", decidedBy: "user" });
  }, 30_000);
});
