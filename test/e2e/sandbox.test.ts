/**
 * The shell sandbox through the built binary: headless `-p --yolo` runs against the fake provider
 * scripting bash calls (what lands on disk, what reaches a server on 127.0.0.1, what the model is
 * told), `--no-sandbox`, the "bwrap unusable" paths, the format hook, `shiro sandbox`, and the
 * REPL's offer to run one command outside the sandbox.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeEnv, toolResultsOf, useE2E } from "./_harness.ts";
import { startPty } from "./_pty.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";

const e2e = useE2E();
const HEADLESS_STAYS_INSIDE = "Not run outside the sandbox: a headless run never leaves it.";
const NO_NETWORK = 'sandbox: the workspace-write sandbox has no network (config "sandbox.network" is off)';

const bash = (...commands: string[]) => ({ toolCalls: commands.map((command) => ({ name: "bash", input: { command } })) });

/** Every tool result the model got back in the run's last request. */
const lastResults = () => toolResultsOf(e2e.fake.requests.at(-1)!).map((result) => result.output);

/** Writers that each try to create `dir/<name>-<writer>`. */
function writers(dir: string, name: string): { command: string; target: string }[] {
  const at = (writer: string) => join(dir, `${name}-${writer}`);
  return [
    { command: `echo pwned > ${at("redirect")}`, target: at("redirect") },
    { command: `python3 -c "open('${at("python")}', 'w').write('pwned')"`, target: at("python") },
    { command: `node -e "require('fs').writeFileSync('${at("node")}', 'pwned')"`, target: at("node") },
    { command: `cp /etc/hostname ${at("cp")}`, target: at("cp") },
  ];
}

async function withServer(body: (port: number, connections: () => number) => Promise<void>): Promise<void> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  try {
    await body((server.address() as { port: number }).port, () => count);
  } finally {
    await new Promise<void>((done) => server.close(() => done()));
  }
}

describe("headless --yolo in the sandbox", () => {
  sandboxTest(
    "writes outside the workspace leave no file; workspace writes, /tmp, reads and git work",
    async () => {
      const outside = writers(e2e.dirs.home, "outside");
      const inside = writers(e2e.dirs.cwd, "inside");
      const privateTmp = `/tmp/shiro-e2e-private-${process.pid}`;
      e2e.fake.script(
        bash(...outside.map((w) => w.command)),
        bash(...inside.map((w) => w.command)),
        bash(
          `echo kept > ${privateTmp} && cat ${privateTmp}`,
          "test -r /etc/passwd && test -x /usr/bin/env && ls -d /bin /lib >/dev/null && echo readable",
          "git init -q && echo a > a && git add a && git -c user.name=t -c user.email=t@e commit -q -m one && git log --format=%s",
        ),
        { text: "done" },
      );
      const result = await e2e.shiro(["-p", "write files", "--yolo"]);
      expect(result.code).toBe(0);
      expect(outside.filter((w) => existsSync(w.target)).map((w) => w.target)).toEqual([]);
      expect(inside.filter((w) => !existsSync(w.target)).map((w) => w.target)).toEqual([]);
      expect(existsSync(privateTmp)).toBe(false);
      expect(lastResults().slice(-3)).toEqual(["exit: 0\n\nstdout:\nkept", "exit: 0\n\nstdout:\nreadable", "exit: 0\n\nstdout:\none"]);
      expect(result.stderr).not.toContain("sandbox off");
    },
    60_000,
  );

  sandboxTest(
    "--no-sandbox restores the old behaviour: the same writes land outside",
    async () => {
      const outside = writers(e2e.dirs.home, "outside");
      e2e.fake.script(bash(...outside.map((w) => w.command)), { text: "done" });
      const result = await e2e.shiro(["-p", "write files", "--yolo", "--no-sandbox"]);
      expect(result.code).toBe(0);
      expect(outside.filter((w) => !existsSync(w.target)).map((w) => w.target)).toEqual([]);
      expect(result.stderr).not.toContain("sandbox");
    },
    60_000,
  );

  sandboxTest(
    "no network: connections to a server on 127.0.0.1 fail and the model is told why; --no-sandbox connects",
    async () => {
      await withServer(async (port, connections) => {
        const connectors = [
          `exec 3<>/dev/tcp/127.0.0.1/${port}`,
          `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=5)"`,
          `curl -sS -m 5 http://127.0.0.1:${port}/`,
        ];
        e2e.fake.script(bash(...connectors), { text: "no network" });
        const sandboxed = await e2e.shiro(["-p", "connect", "--yolo"]);
        expect(sandboxed.code).toBe(0);
        const results = lastResults();
        expect(results.map((output) => [output.includes(NO_NETWORK), output.includes(HEADLESS_STAYS_INSIDE)])).toEqual([
          [true, true],
          [true, true],
          [true, true],
        ]);
        expect(connections()).toBe(0);

        e2e.fake.script(bash(connectors[0]!), { text: "connected" });
        const open = await e2e.shiro(["-p", "connect", "--yolo", "--no-sandbox"]);
        expect([open.code, lastResults(), connections()]).toEqual([0, ["exit: 0\n\n(no output)"], 1]);
      });
    },
    60_000,
  );

  sandboxTest(
    "read-only: a workspace write is refused, explained, and not retried outside",
    async () => {
      e2e.writeConfig({ sandbox: "read-only" });
      e2e.fake.script(bash("touch made-here.txt"), { text: "refused" });
      const result = await e2e.shiro(["-p", "touch", "--yolo"]);
      expect(result.code).toBe(0);
      expect(existsSync(join(e2e.dirs.cwd, "made-here.txt"))).toBe(false);
      expect(lastResults()).toEqual([
        [
          "exit: 1",
          "",
          "stderr:",
          "touch: cannot touch 'made-here.txt': Read-only file system",
          "",
          "sandbox: the read-only sandbox refused a write: commands may write only in a private /tmp that is discarded afterwards.",
          `${HEADLESS_STAYS_INSIDE} Tell the user what failed; they can run the command themselves or restart shiro with --no-sandbox.`,
        ].join("\n"),
      ]);
    },
    30_000,
  );

  sandboxTest(
    "the format hook runs in the sandbox too",
    async () => {
      e2e.writeConfig({ plugins: ["format"] });
      const leak = join(e2e.dirs.home, "leak-from-hook");
      writeFileSync(join(e2e.dirs.cwd, "package.json"), JSON.stringify({ scripts: { format: `touch formatted; touch ${leak}` } }));
      e2e.fake.script({ text: "hello" });
      const result = await e2e.shiro(["-p", "hi", "--yolo"]);
      expect(result.code).toBe(0);
      expect([existsSync(join(e2e.dirs.cwd, "formatted")), existsSync(leak)]).toEqual([true, false]);
    },
    30_000,
  );
});

describe("when bwrap is unusable", () => {
  const offNotice = (why: string) =>
    `[notice] sandbox off: ${why}; shell commands run unconfined (install bubblewrap, or set "sandbox": "off" to silence this)`;
  const sandboxLines = (stderr: string) => stderr.split("\n").filter((line) => line.includes("sandbox"));

  test("config naming a missing binary: off, exactly one notice, commands run unconfined", async () => {
    e2e.writeConfig({ sandbox: { bwrap: "/nowhere/bwrap" } });
    const target = join(e2e.dirs.home, "unconfined.txt");
    e2e.fake.script(bash(`touch ${target}`), bash("true"), { text: "done" });
    const result = await e2e.shiro(["-p", "touch", "--yolo"]);
    expect(result.code).toBe(0);
    expect(sandboxLines(result.stderr)).toEqual([offNotice('"sandbox.bwrap" names /nowhere/bwrap, which is not an executable file')]);
    expect(existsSync(target)).toBe(true);
  }, 30_000);

  test("PATH without bwrap: off, exactly one notice", async () => {
    const bin = mkdtempSync(join(tmpdir(), "shiro-e2e-nobwrap-"));
    try {
      for (const name of readdirSync("/usr/bin")) if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(bin, name));
      e2e.fake.script(bash("echo hi"), { text: "done" });
      const result = await e2e.shiro(["-p", "hi", "--yolo"], { env: { PATH: bin } });
      expect(result.code).toBe(0);
      expect(sandboxLines(result.stderr)).toEqual([offNotice("bwrap (bubblewrap) is not on PATH")]);
      expect(lastResults()).toEqual(["exit: 0\n\nstdout:\nhi"]);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 30_000);

  test("a mode named in config that cannot be had: commands are refused, never run unconfined", async () => {
    e2e.writeConfig({ sandbox: { mode: "workspace-write", bwrap: "/nowhere/bwrap" } });
    const target = join(e2e.dirs.home, "must-not-exist.txt");
    e2e.fake.script(bash(`touch ${target}`), { text: "refused" });
    const result = await e2e.shiro(["-p", "touch", "--yolo"]);
    expect(result.code).toBe(0);
    expect(existsSync(target)).toBe(false);
    expect(sandboxLines(result.stderr).filter((line) => line.startsWith("[notice] "))).toEqual([
      '[notice] sandbox workspace-write unavailable: "sandbox.bwrap" names /nowhere/bwrap, which is not an executable file; shell commands are refused until it works or config sets "sandbox": "off"',
    ]);
    expect(lastResults()).toEqual([
      'Error: Refused: config asks for the workspace-write sandbox, but "sandbox.bwrap" names /nowhere/bwrap, which is not an executable file. Install bubblewrap (apt-get install bubblewrap), fix "sandbox.bwrap", or set "sandbox" to "off" in config.json.',
    ]);
  }, 30_000);
});

describe("shiro sandbox", () => {
  sandboxTest(
    "reports the mode and a passing live check",
    async () => {
      const result = await e2e.shiro(["sandbox"]);
      expect([result.code, result.stderr]).toEqual([0, ""]);
      expect(result.stdout).toMatch(
        new RegExp(
          `^sandbox: workspace-write \\(bwrap /\\S+\\), network off\nwritable: ${e2e.dirs.cwd} and a private /tmp\ncheck: passed \\(/usr read-only, workspace writable, network interfaces: lo\\)\n$`,
        ),
      );
      const json = JSON.parse((await e2e.shiro(["sandbox", "--json"])).stdout);
      expect([json.mode, json.network, json.check.ok]).toEqual(["workspace-write", false, true]);
    },
    30_000,
  );

  test("says when the sandbox is off, and fails when config asks for one it cannot have", async () => {
    e2e.writeConfig({ sandbox: { bwrap: "/nowhere/bwrap" } });
    const off = await e2e.shiro(["sandbox"]);
    expect([off.code, off.stdout.split("\n")[0]]).toEqual([0, "sandbox: off"]);
    e2e.writeConfig({ sandbox: { mode: "read-only", bwrap: "/nowhere/bwrap" } });
    const refused = await e2e.shiro(["sandbox"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toStartWith("shiro: Refused: config asks for the read-only sandbox");
  }, 30_000);
});

describe("the REPL offers to run a refused command outside the sandbox", () => {
  sandboxTest(
    "y runs it outside once, a grants the pattern, n keeps it inside; --yolo still asks",
    async () => {
      e2e.writeConfig({ sandbox: "read-only", permission: { bash: "allow" } });
      e2e.fake.script(
        bash("touch once.txt"),
        { text: "ran once" },
        bash("touch always.txt"),
        { text: "ran always" },
        bash("touch granted.txt"),
        { text: "ran granted" },
        bash("mkdir kept-inside"),
        { text: "kept inside" },
      );
      const repl = startPty(["--yolo"], { cwd: e2e.dirs.cwd, home: e2e.dirs.home, env: fakeEnv(e2e.fake.baseURL, "chat") });
      try {
        await repl.until("› ");
        repl.type("first\r");
        let at = await repl.until("| n keep it inside ");
        expect(repl.screen()).toContain("the sandbox stopped bash: the read-only sandbox refused a write");
        expect(repl.screen()).toContain("y run outside once | a always outside [touch *] | n keep it inside ");
        repl.type("y\r");
        at = await repl.until("ran once", at);
        repl.type("second\r");
        at = await repl.until("| n keep it inside ", at);
        repl.type("a\r");
        at = await repl.until("ran always", at);
        repl.type("third\r");
        at = await repl.until("ran granted", at);
        expect(repl.screen().slice(at - 300, at)).not.toContain("the sandbox stopped");
        repl.type("fourth\r");
        at = await repl.until("| n keep it inside ", at);
        repl.type("n\r");
        await repl.until("kept inside", at);
      } finally {
        repl.kill();
        await repl.exited;
      }
      expect(["once.txt", "always.txt", "granted.txt", "kept-inside"].map((name) => existsSync(join(e2e.dirs.cwd, name)))).toEqual([true, true, true, false]);
      const results = lastResults();
      expect(results.at(-1)).toEndWith("Not run outside the sandbox: the user declined.");
      expect(results[0]).toEndWith(
        "sandbox: Ran outside the sandbox: the user approved it after the sandboxed attempt failed. (the read-only sandbox refused a write: commands may write only in a private /tmp that is discarded afterwards)",
      );
    },
    40_000,
  );
});
