import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { ApprovalRequest, DecisionSource } from "../../lib/approval/request.ts";
import { checkSandbox } from "../../lib/sandbox/check.ts";
import { describeSandbox, detectSandbox } from "../../lib/sandbox/detect.ts";
import { HEADLESS_STAYS_INSIDE, USER_KEPT_INSIDE, createCommandSandbox, type CommandSandbox } from "../../lib/sandbox/session.ts";
import { bashTool } from "../../lib/tools/bash.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { sandboxTest } from "./sandbox-required.ts";

let base = "";
let root = "";
let outside = "";
const savedHome = process.env.SHIRO_HOME;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "shiro-sandbox-")));
  // detectSandbox keeps its probe's outcome in the state folder.
  process.env.SHIRO_HOME = join(base, "home");
  root = join(base, "ws");
  outside = realpathSync(mkdtempSync(join(tmpdir(), "shiro-sandbox-outside-")));
  mkdirSync(root);
});

afterAll(() => {
  if (savedHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = savedHome;
  rmSync(base, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe("detectSandbox", () => {
  let bin = "";
  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), "shiro-fake-bwrap-"));
    writeFileSync(join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(join(bin, "bwrap"), 0o755);
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  test("turned off by the user: off, and nothing to say", () => {
    expect(detectSandbox({ noSandbox: true, config: "read-only" })).toEqual({ mode: "off", network: false, source: "--no-sandbox", mcp: false });
    expect(detectSandbox({ config: { mode: "off", network: true, mcp: true } })).toEqual({ mode: "off", network: true, source: "config", mcp: true });
  });

  test("the default without a working bwrap: off with one notice saying why", () => {
    const cases = [
      [{ config: { bwrap: "/nowhere/bwrap" } }, '"sandbox.bwrap" names /nowhere/bwrap, which is not an executable file'],
      [{ config: { bwrap: bin } }, `"sandbox.bwrap" names ${bin}, which is not an executable file`],
      [{ env: { PATH: "/nowhere:relative/dir" } }, "bwrap (bubblewrap) is not on PATH"],
      [{ env: { PATH: bin } }, `bwrap (${bin}/bwrap) does not work here: bwrap: No permissions to create new namespace`],
      [{ platform: "win32" as const }, "no sandbox runner exists for win32"],
    ] as const;
    for (const [options, why] of cases) {
      expect(detectSandbox(options)).toEqual({
        mode: "off",
        network: false,
        source: "default",
        mcp: false,
        notice: `sandbox off: ${why}; shell commands run unconfined (install bubblewrap, or set "sandbox": "off" to silence this)`,
      });
    }
  });

  test("a mode named in config that cannot be had: commands are refused, not run unconfined", async () => {
    const status = detectSandbox({ config: { mode: "workspace-write", bwrap: "/nowhere/bwrap" } });
    expect([status.mode, status.notice, status.refusal]).toEqual([
      "off",
      'sandbox workspace-write unavailable: "sandbox.bwrap" names /nowhere/bwrap, which is not an executable file; shell commands are refused until it works or config sets "sandbox": "off"',
      'Refused: config asks for the workspace-write sandbox, but "sandbox.bwrap" names /nowhere/bwrap, which is not an executable file. Install bubblewrap (apt-get install bubblewrap), fix "sandbox.bwrap", or set "sandbox" to "off" in config.json.',
    ]);
    const marker = join(root, "refused-marker");
    const sandbox = createCommandSandbox(status);
    await expect(bashTool.execute({ command: `touch ${marker}` }, context({ sandbox }))).rejects.toThrow(status.refusal!);
    expect(existsSync(marker)).toBe(false);
    expect(describeSandbox(status)).toBe("sandbox: unavailable, shell commands are refused");
  });

  test("the probe runs once per machine: a later start reuses its outcome until the runner, the kernel or the user changes", () => {
    const counting = mkdtempSync(join(tmpdir(), "shiro-counting-bwrap-"));
    const calls = join(counting, "calls");
    const script = join(counting, "bwrap");
    const write = (exit: number) => {
      writeFileSync(script, `#!/bin/sh\necho probe >> '${calls}'\n[ ${exit} = 0 ] || echo 'bwrap: setting up uid map: Permission denied' >&2\nexit ${exit}\n`);
      chmodSync(script, 0o755);
    };
    const probes = () => (existsSync(calls) ? readFileSync(calls, "utf8").split("\n").filter(Boolean).length : 0);
    try {
      write(0);
      const first = detectSandbox({ env: { PATH: counting } });
      expect([first.mode, probes()]).toEqual(["workspace-write", 1]);
      expect(detectSandbox({ env: { PATH: counting } })).toEqual(first);
      expect(probes()).toBe(1);
      expect(detectSandbox({ env: { PATH: counting }, fresh: true })).toEqual(first);
      expect(probes()).toBe(2);
      // A new runner binary (another inode, size and times) is probed again, and a failure is kept too.
      rmSync(script);
      write(1);
      const failed = detectSandbox({ env: { PATH: counting } });
      expect([failed.mode, failed.notice?.includes("Permission denied"), probes()]).toEqual(["off", true, 3]);
      expect(detectSandbox({ env: { PATH: counting } })).toEqual(failed);
      expect(probes()).toBe(3);
    } finally {
      rmSync(counting, { recursive: true, force: true });
    }
  });

  sandboxTest("bwrap on PATH that works: workspace-write by default, network from config", () => {
    expect(detectSandbox({})).toMatchObject({ mode: "workspace-write", network: false, source: "default", runner: { kind: "bwrap" } });
    expect(detectSandbox({ config: { mode: "read-only", network: true } })).toMatchObject({ mode: "read-only", network: true, source: "config" });
    expect(describeSandbox(detectSandbox({}))).toMatch(/^sandbox: workspace-write \(bwrap \/.+\), network off$/);
  });
});

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return { root, signal: new AbortController().signal, emitOutput: () => {}, callId: "call-1", ...overrides };
}

function sandboxOf(mode: "workspace-write" | "read-only", options: { network?: boolean; decide?: DecisionSource } = {}): CommandSandbox {
  const status = detectSandbox({ config: { mode, network: options.network ?? false } });
  return createCommandSandbox(status, { decide: options.decide });
}

describe("bash in the sandbox", () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  // `bash -l` reads the home's profile; an empty temp home keeps this machine's dotfiles out of the results.
  const savedHome = process.env.HOME;
  afterAll(() => {
    process.env.HOME = savedHome;
  });
  beforeAll(async () => {
    process.env.HOME = base;
    server = createServer((socket) => {
      connections += 1;
      socket.end();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => server.close());
  afterEach(() => {
    for (const name of ["hooked", "escaped"]) rmSync(join(root, name), { force: true });
  });

  const writers = (target: string) => [
    `echo pwned > ${target}`,
    `python3 -c "open('${target}', 'w').write('pwned')"`,
    `node -e "require('fs').writeFileSync('${target}', 'pwned')"`,
    `cp /etc/hostname ${target}`,
  ];

  sandboxTest(
    "writes outside the workspace leave no file: a sibling folder, the parent folder, .git/hooks",
    async () => {
      const sandbox = sandboxOf("workspace-write");
      mkdirSync(join(root, ".git", "hooks"), { recursive: true });
      const targets = [join(outside, "out.txt"), join(base, "parent.txt"), join(root, ".git", "hooks", "pre-commit")];
      for (const target of targets) {
        for (const command of writers(target)) {
          await bashTool.execute({ command }, context({ sandbox }));
          expect({ command, exists: existsSync(target) }).toEqual({ command, exists: false });
        }
      }
      rmSync(join(root, ".git"), { recursive: true, force: true });
    },
    60_000,
  );

  sandboxTest("a refused write says so, and headless runs do not leave the sandbox", async () => {
    const sandbox = sandboxOf("workspace-write");
    mkdirSync(join(root, ".git", "hooks"), { recursive: true });
    const hook = join(root, ".git", "hooks", "pre-commit");
    const result = await bashTool.execute({ command: `echo pwned > ${hook}` }, context({ sandbox }));
    expect(result).toBe(
      [
        "exit: 1",
        "",
        "stderr:",
        `bash: line 1: ${hook}: Read-only file system`,
        "",
        "sandbox: the workspace-write sandbox refused a write outside the workspace: commands may write only in the workspace and a private /tmp.",
        HEADLESS_STAYS_INSIDE,
      ].join("\n"),
    );
    expect(existsSync(hook)).toBe(false);
    rmSync(join(root, ".git"), { recursive: true, force: true });
  });

  sandboxTest("workspace writes work with every writer; the host's /usr and /etc are readable; git works", async () => {
    const sandbox = sandboxOf("workspace-write");
    for (const [index, command] of writers(join(root, "w.txt")).entries()) {
      rmSync(join(root, "w.txt"), { force: true });
      const result = await bashTool.execute({ command }, context({ sandbox }));
      expect({ index, result, exists: existsSync(join(root, "w.txt")) }).toEqual({ index, result: "exit: 0\n\n(no output)", exists: true });
    }
    rmSync(join(root, "w.txt"), { force: true });
    const seen = await bashTool.execute(
      { command: "test -r /etc/passwd && test -x /usr/bin/env && ls -d /bin /lib* >/dev/null && echo readable" },
      context({ sandbox }),
    );
    expect(seen).toBe("exit: 0\n\nstdout:\nreadable");
    const git =
      "git init -q repo && cd repo && echo a > a && git add a && git -c user.name=t -c user.email=t@e commit -q -m one && git log --format=%s && git status --short | wc -l";
    expect(await bashTool.execute({ command: git }, context({ sandbox }))).toBe("exit: 0\n\nstdout:\none\n0");
    rmSync(join(root, "repo"), { recursive: true, force: true });
  });

  sandboxTest("/tmp is private: written inside, gone outside", async () => {
    const name = `shiro-private-${process.pid}-${Date.now()}`;
    const result = await bashTool.execute(
      { command: `echo kept > /tmp/${name} && cat /tmp/${name} && ls -A /tmp` },
      context({ sandbox: sandboxOf("workspace-write") }),
    );
    // Only the file and the folder leading to the workspace: nothing of the host's /tmp.
    expect([result, existsSync(join("/tmp", name))]).toEqual([`exit: 0\n\nstdout:\nkept\n${[name, basename(base)].sort().join("\n")}`, false]);
  });

  sandboxTest(
    "no network: a connection to a server on 127.0.0.1 fails, and the result says why",
    async () => {
      const sandbox = sandboxOf("workspace-write");
      const connectors = [
        `exec 3<>/dev/tcp/127.0.0.1/${port}`,
        `python3 -c "import socket; socket.create_connection(('127.0.0.1', ${port}), timeout=5)"`,
        `node -e "require('net').connect(${port}, '127.0.0.1').on('error', (e) => { console.error(e.message); process.exit(1); }).on('connect', () => process.exit(0))"`,
        `curl -sS -m 5 http://127.0.0.1:${port}/`,
      ];
      for (const command of connectors) {
        const result = await bashTool.execute({ command }, context({ sandbox }));
        expect({ command, explained: result.includes('sandbox: the workspace-write sandbox has no network (config "sandbox.network" is off)') }).toEqual({
          command,
          explained: true,
        });
      }
      expect(connections).toBe(0);
      const open = await bashTool.execute({ command: connectors[0]! }, context({ sandbox: sandboxOf("workspace-write", { network: true }) }));
      expect([open, connections]).toEqual(["exit: 0\n\n(no output)", 1]);
    },
    60_000,
  );

  sandboxTest("read-only: the workspace refuses writes; an approved rerun runs outside, once or always", async () => {
    const asked: ApprovalRequest[] = [];
    const answers: ("once" | "always" | "deny")[] = ["deny", "once", "always"];
    const sandbox = sandboxOf("read-only", { decide: async (request) => (asked.push(request), answers.shift()!) });
    const escaped = join(root, "escaped");
    const command = `touch ${escaped}`;
    const denied = await bashTool.execute({ command }, context({ sandbox }));
    expect(
      denied.endsWith(
        `sandbox: the read-only sandbox refused a write: commands may write only in a private /tmp that is discarded afterwards.\n${USER_KEPT_INSIDE}`,
      ),
    ).toBe(true);
    expect(existsSync(escaped)).toBe(false);
    expect(await bashTool.execute({ command }, context({ sandbox }))).toBe(
      "exit: 0\n\n(no output)\n\nsandbox: Ran outside the sandbox: the user approved it after the sandboxed attempt failed. (the read-only sandbox refused a write: commands may write only in a private /tmp that is discarded afterwards)",
    );
    expect(existsSync(escaped)).toBe(true);
    rmSync(escaped);
    await bashTool.execute({ command }, context({ sandbox }));
    expect(asked.map((request) => [request.tool, request.subject, request.suggestedPattern, request.sandbox?.startsWith("the read-only sandbox")])).toEqual([
      ["bash", command, "touch *", true],
      ["bash", command, "touch *", true],
      ["bash", command, "touch *", true],
    ]);
    // "always" granted `touch *`: the next touch runs outside at once; a chained one is not covered.
    rmSync(escaped);
    expect(await bashTool.execute({ command }, context({ sandbox }))).toBe("exit: 0\n\n(no output)");
    expect([existsSync(escaped), asked.length]).toEqual([true, 3]);
    const chained = await bashTool.execute({ command: `touch ${join(root, "hooked")} && true` }, context({ sandbox }));
    expect([chained.includes(USER_KEPT_INSIDE) || chained.includes("Ran outside"), asked.length]).toEqual([true, 4]);
  });

  sandboxTest("no Unix sockets: a server on a socket file in the workspace is out of reach; socketpair still works", async () => {
    const path = join(root, "daemon.sock");
    let accepted = 0;
    const unixServer = createServer((socket) => {
      accepted += 1;
      socket.end();
    });
    await new Promise<void>((done) => unixServer.listen(path, done));
    try {
      const sandbox = sandboxOf("workspace-write", { network: true });
      const connectors = [
        `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${path}')"`,
        `node -e "require('net').connect('${path}').on('error', (e) => { console.error(e.code); process.exit(1); }).on('connect', () => process.exit(0))"`,
        `curl -sS -m 5 --unix-socket ${path} http://x/`,
      ];
      for (const command of connectors) {
        const result = await bashTool.execute({ command }, context({ sandbox }));
        expect({ command, failed: !result.startsWith("exit: 0") }).toEqual({ command, failed: true });
      }
      expect(accepted).toBe(0);
      const pair = await bashTool.execute(
        { command: `python3 -c "import socket; a, b = socket.socketpair(); a.send(b'ok'); print(b.recv(2).decode())"` },
        context({ sandbox }),
      );
      expect(pair).toBe("exit: 0\n\nstdout:\nok");
      await bashTool.execute({ command: connectors[0]! }, context());
      expect(accepted).toBe(1);
    } finally {
      await new Promise<void>((done) => unixServer.close(() => done()));
      rmSync(path, { force: true });
    }
  });

  sandboxTest("a timeout kills the whole sandboxed tree", async () => {
    const result = await bashTool.execute(
      { command: "sleep 31.25 & sleep 31.25; echo never", timeout: 1_000 },
      context({ sandbox: sandboxOf("workspace-write") }),
    );
    expect(result).toBe("exit: 143 (killed by SIGTERM; timeout is 1000ms)\n\n(no output)");
    const left = readdirSync("/proc")
      .filter((pid) => /^\d+$/.test(pid))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8") === "sleep\u000031.25\u0000";
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
  });

  sandboxTest("shiro sandbox's check sees the mode it was given", () => {
    expect(checkSandbox(sandboxOf("workspace-write"), root)).toEqual({ ok: true, systemWritable: false, workspaceWritable: true, interfaces: ["lo"] });
    expect(checkSandbox(sandboxOf("read-only"), root)).toEqual({ ok: true, systemWritable: false, workspaceWritable: false, interfaces: ["lo"] });
    const networked = checkSandbox(sandboxOf("read-only", { network: true }), root);
    expect([networked.ok, networked.interfaces!.length > 1]).toEqual([true, true]);
  });
});

describe("MCP stdio servers with sandbox.mcp", () => {
  sandboxTest(
    "a sandboxed server connects and serves, but cannot write outside its folder",
    async () => {
      const { createMcpHub } = await import("../../lib/extensions/mcp/hub.ts");
      const serverDir = realpathSync(mkdtempSync(join(tmpdir(), "shiro-mcp-sandboxed-")));
      const leak = join(outside, "mcp-leak.txt");
      const preload = join(serverDir, "try-write.js");
      writeFileSync(
        preload,
        [
          'const fs = require("node:fs");',
          `try { fs.writeFileSync(${JSON.stringify(leak)}, "pwned"); fs.writeFileSync("report.txt", "wrote"); }`,
          'catch (error) { fs.writeFileSync("report.txt", String(error.code)); }',
        ].join("\n"),
      );
      // The server is copied into its folder: a checkout under /tmp is hidden by the sandbox's private /tmp.
      const server = join(serverDir, "server.ts");
      copyFileSync(join(import.meta.dir, "..", "fixtures", "mcp-minimal-server.ts"), server);
      const sandbox = sandboxOf("workspace-write");
      const hub = createMcpHub(
        { minimal: { command: process.execPath, args: ["--preload", preload, server] } },
        { cwd: serverDir, wrapCommand: (argv, dir) => sandbox.wrap(argv, dir) },
      );
      try {
        hub.start();
        await hub.ready();
        expect(hub.status().map((server) => [server.name, server.state, server.tools])).toEqual([["minimal", "connected", 1]]);
        expect(hub.tools().map((tool) => tool.name)).toEqual(["mcp__minimal__echo"]);
        expect([readFileSync(join(serverDir, "report.txt"), "utf8"), existsSync(leak)]).toEqual(["ENOENT", false]);
      } finally {
        await hub.close();
        rmSync(serverDir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});

test("--no-sandbox survives a run snapshot, so `shiro runs resume` keeps it", async () => {
  const { flagsFromRunOptions, runOptionsFromFlags } = await import("../../lib/config/flags.ts");
  const flags = {
    yolo: true,
    approvals: "deny" as const,
    continue: false,
    noMcp: false,
    noSubagent: false,
    noInstructions: false,
    noSkills: false,
    noPlugins: false,
    noMemory: false,
  };
  expect([
    flagsFromRunOptions(runOptionsFromFlags({ ...flags, noSandbox: true })).noSandbox,
    flagsFromRunOptions(runOptionsFromFlags(flags)).noSandbox,
  ]).toEqual([true, false]);
});
