/**
 * The sandbox's pure parts: the bubblewrap argv, the seccomp program, the Seatbelt profile, and
 * which failures are blamed on the sandbox. Running commands in it: sandbox.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBwrapArgv } from "../../lib/sandbox/bwrap.ts";
import type { SandboxStatus } from "../../lib/sandbox/detect.ts";
import { gitProtectionArgs, removePlantedCommondirs, scanWorkspaceGit } from "../../lib/sandbox/git-mounts.ts";
import { explainSandboxFailure } from "../../lib/sandbox/explain.ts";
import { buildSeatbeltArgv, buildSeatbeltProfile } from "../../lib/sandbox/seatbelt.ts";
import { buildSeccompFilter } from "../../lib/sandbox/seccomp.ts";

const BWRAP_ON: SandboxStatus = { mode: "workspace-write", network: false, runner: { kind: "bwrap", path: "/usr/bin/bwrap" }, source: "default", mcp: false };

describe("buildBwrapArgv", () => {
  test("workspace-write as root: user namespace without caps, no network, read-only host, private /tmp, writable workspace", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "shiro-argv-")));
    try {
      expect(buildBwrapArgv("/usr/bin/bwrap", { mode: "workspace-write", network: false }, dir, ["bash", "-lc", "ls"], 0)).toEqual([
        "/usr/bin/bwrap",
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-user",
        "--cap-drop",
        "ALL",
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--bind",
        dir,
        dir,
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        dir,
        "--",
        "bash",
        "-lc",
        "ls",
      ]);
      mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
      writeFileSync(join(dir, ".git", "config"), "");
      expect(buildBwrapArgv("/b", { mode: "workspace-write", network: true }, dir, ["true"], 1000)).toEqual([
        "/b",
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--bind",
        dir,
        dir,
        "--bind",
        join(dir, ".git"),
        join(dir, ".git"),
        "--ro-bind",
        join(dir, ".git/config"),
        join(dir, ".git/config"),
        "--ro-bind",
        join(dir, ".git/hooks"),
        join(dir, ".git/hooks"),
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        dir,
        "--",
        "true",
      ]);
      expect(buildBwrapArgv("/b", { mode: "read-only", network: false }, dir, ["true"], 1000)).toEqual([
        "/b",
        "--die-with-parent",
        "--new-session",
        "--unshare-pid",
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        dir,
        dir,
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--chdir",
        dir,
        "--",
        "true",
      ]);
      const filtered = buildBwrapArgv("/b", { mode: "read-only", network: true, seccompFile: "/f/filter.bpf" }, dir, ["true"], 1000);
      expect([filtered.slice(0, 5), filtered.slice(-9)]).toEqual([
        ["/bin/sh", "-c", 'exec "$@" 3<"$0"', "/f/filter.bpf", "/b"],
        ["--seccomp", "3", "--setenv", "TMPDIR", "/tmp", "--chdir", dir, "--", "true"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the git protection mounts", () => {
  test("every git dir is a mount point with its config, hooks and pointers read-only; a missing hooks folder is made; both views of a symlinked root", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "shiro-gitmounts-")));
    const alias = `${dir}-alias`;
    try {
      mkdirSync(join(dir, ".git", "info"), { recursive: true });
      writeFileSync(join(dir, ".git", "config"), "");
      writeFileSync(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
      mkdirSync(join(dir, ".git", "modules", "lib", "inner", "hooks"), { recursive: true });
      writeFileSync(join(dir, ".git", "modules", "lib", "inner", "HEAD"), "ref: refs/heads/main\n");
      writeFileSync(join(dir, ".git", "modules", "lib", "inner", "config"), "");
      mkdirSync(join(dir, "vendor", "nested", ".git"), { recursive: true });
      mkdirSync(join(dir, "lib", "inner"), { recursive: true });
      writeFileSync(join(dir, "lib", "inner", ".git"), "gitdir: ../../.git/modules/lib/inner\n");
      const scan = scanWorkspaceGit(dir);
      expect(scan).toEqual({
        gitDirs: [join(dir, ".git"), join(dir, ".git", "modules", "lib", "inner"), join(dir, "vendor", "nested", ".git")],
        gitFiles: [join(dir, "lib", "inner", ".git")],
        withoutCommondir: [join(dir, ".git"), join(dir, ".git", "modules", "lib", "inner"), join(dir, "vendor", "nested", ".git")],
      });
      symlinkSync(dir, alias);
      const args = gitProtectionArgs(dir, [dir, alias], scan);
      const triples = (view: string) =>
        Array.from({ length: args.length / 3 }, (_, i) => args.slice(i * 3, i * 3 + 3)).filter(([, , at]) => at!.startsWith(`${view}/`));
      const rel = (path: string) => path.slice(dir.length + 1);
      const expected = [
        ["--bind", ".git"],
        ["--ro-bind", ".git/config"],
        ["--ro-bind", ".git/hooks"],
        ["--ro-bind", ".git/info"],
        ["--bind", ".git/modules/lib/inner"],
        ["--ro-bind", ".git/modules/lib/inner/config"],
        ["--ro-bind", ".git/modules/lib/inner/hooks"],
        ["--bind", "vendor/nested/.git"],
        ["--ro-bind", "vendor/nested/.git/hooks"],
        ["--ro-bind", "lib/inner/.git"],
      ];
      expect(triples(dir).map(([kind, from, at]) => [kind, rel(from!), from === at])).toEqual(expected.map(([kind, path]) => [kind, path, true]));
      expect(triples(alias).map(([kind, from, at]) => [kind, rel(from!), at!.slice(alias.length + 1)])).toEqual(
        expected.map(([kind, path]) => [kind, path, path]),
      );
      expect(existsSync(join(dir, ".git", "hooks"))).toBe(true);
      expect(existsSync(join(dir, "vendor", "nested", ".git", "hooks"))).toBe(true);

      writeFileSync(join(dir, ".git", "commondir"), "../elsewhere\n");
      writeFileSync(join(dir, ".git", "modules", "lib", "inner", "commondir"), "x\n");
      expect(removePlantedCommondirs(dir, scan)).toEqual([join(dir, ".git", "commondir"), join(dir, ".git", "modules", "lib", "inner", "commondir")]);
      expect(existsSync(join(dir, ".git", "commondir"))).toBe(false);
    } finally {
      rmSync(alias, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the seccomp filter", () => {
  /** [code, jt, jf, k] per instruction. */
  const decode = (bytes: Uint8Array) => {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return Array.from({ length: bytes.length / 8 }, (_, i) => [
      view.getUint16(i * 8, true),
      view.getUint8(i * 8 + 2),
      view.getUint8(i * 8 + 3),
      view.getUint32(i * 8 + 4, true),
    ]);
  };
  const tail = [
    [0x06, 0, 0, 0x7fff0000],
    [0x06, 0, 0, 0x00050001],
    [0x06, 0, 0, 0x80000000],
  ];

  test("x64: another architecture or x32 is killed; io_uring_setup and socket(AF_UNIX) fail with EPERM", () => {
    expect(decode(buildSeccompFilter("x64")!)).toEqual([
      [0x20, 0, 0, 4],
      [0x15, 0, 8, 0xc000003e],
      [0x20, 0, 0, 0],
      [0x35, 6, 0, 0x40000000],
      [0x15, 4, 0, 425],
      [0x15, 0, 2, 41],
      [0x20, 0, 0, 16],
      [0x15, 1, 0, 1],
      ...tail,
    ]);
  });

  test("arm64: the same with its numbers; other architectures get no filter", () => {
    expect(decode(buildSeccompFilter("arm64")!)).toEqual([
      [0x20, 0, 0, 4],
      [0x15, 0, 7, 0xc00000b7],
      [0x20, 0, 0, 0],
      [0x15, 4, 0, 425],
      [0x15, 0, 2, 198],
      [0x20, 0, 0, 16],
      [0x15, 1, 0, 1],
      ...tail,
    ]);
    expect([buildSeccompFilter("ia32"), buildSeccompFilter("riscv64")]).toEqual([undefined, undefined]);
  });
});

describe("seatbelt profile", () => {
  test("writes only in the workspace and the private temp folder, git hooks protected, no network", () => {
    expect(buildSeatbeltProfile({ mode: "workspace-write", network: false })).toBe(
      [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        '(allow file-write* (subpath (param "ROOT")) (subpath (param "TMP")) (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (regex #"^/dev/fd/"))',
        [
          '(deny file-write* (literal (string-append (param "ROOT") "/.git")) (literal (string-append (param "ROOT") "/.git/config"))',
          '(literal (string-append (param "ROOT") "/.git/config.worktree")) (literal (string-append (param "ROOT") "/.git/commondir"))',
          '(subpath (string-append (param "ROOT") "/.git/hooks")) (subpath (string-append (param "ROOT") "/.git/info"))',
          '(subpath (string-append (param "ROOT") "/.git/worktrees")) (subpath (string-append (param "ROOT") "/.git/remotes"))',
          '(subpath (string-append (param "ROOT") "/.git/branches")))',
        ].join(" "),
        "(deny network*)",
        "",
      ].join("\n"),
    );
  });

  test("read-only with network: the workspace is not writable, the network is left alone", () => {
    const profile = buildSeatbeltProfile({ mode: "read-only", network: true });
    expect([profile.includes('(param "ROOT")'), profile.includes("network")]).toEqual([false, false]);
  });

  test("paths travel as -D parameters, never inside the profile", () => {
    const argv = buildSeatbeltArgv("/usr/bin/sandbox-exec", { mode: "workspace-write", network: false }, '/w/"x")(allow', "/t", ["bash", "-lc", "ls"]);
    expect(argv.slice(3)).toEqual(["-D", 'ROOT=/w/"x")(allow', "-D", "TMP=/t", "/usr/bin/env", "TMPDIR=/t", "bash", "-lc", "ls"]);
    expect(argv[2]).toBe(buildSeatbeltProfile({ mode: "workspace-write", network: false }));
  });
});

describe("explainSandboxFailure", () => {
  const writeRefusals = [
    "bash: line 1: /usr/x: Read-only file system",
    "OSError: [Errno 30] Read-only file system: '/usr/x'",
    "Error: EROFS: read-only file system, open '/usr/x'",
    "cp: cannot create regular file '/usr/x': Read-only file system",
    "touch: cannot touch '/root/.bashrc': Read-only file system",
  ];
  const networkFailures = [
    "ConnectionRefusedError: [Errno 111] Connection refused",
    "Error: connect ECONNREFUSED 127.0.0.1:4000",
    "bash: line 1: /dev/tcp/127.0.0.1/4000: Connection refused",
    "curl: (6) Could not resolve host: example.com",
    "curl: (7) Failed to connect to 127.0.0.1 port 4000 after 0 ms: Couldn't connect to server",
    "ping: connect: Network is unreachable",
    "socket.gaierror: [Errno -3] Temporary failure in name resolution",
    "Error: getaddrinfo EAI_AGAIN registry.npmjs.org",
    "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
  ];

  test.each(writeRefusals)("a refused write is explained: %s", (output) => {
    expect(explainSandboxFailure(BWRAP_ON, { code: 1, output })).toBe(
      "the workspace-write sandbox refused a write outside the workspace: commands may write only in the workspace and a private /tmp",
    );
    expect(explainSandboxFailure({ ...BWRAP_ON, mode: "read-only" }, { code: 1, output })).toBe(
      "the read-only sandbox refused a write: commands may write only in a private /tmp that is discarded afterwards",
    );
  });

  test.each(networkFailures)("a network failure is explained when the network is off: %s", (output) => {
    expect(explainSandboxFailure(BWRAP_ON, { code: 7, output })).toBe(
      'the workspace-write sandbox has no network (config "sandbox.network" is off), so connections and name lookups fail',
    );
    expect(explainSandboxFailure({ ...BWRAP_ON, network: true }, { code: 7, output })).toBeUndefined();
  });

  test("nothing is blamed on the sandbox: success, a timeout, an interrupt, an ordinary failure, the sandbox off", () => {
    const output = writeRefusals[0]!;
    expect([
      explainSandboxFailure(BWRAP_ON, { code: 0, output }),
      explainSandboxFailure(BWRAP_ON, { code: null, output, timedOut: true }),
      explainSandboxFailure(BWRAP_ON, { code: 1, output, aborted: true }),
      explainSandboxFailure(BWRAP_ON, { code: 2, output: "ls: cannot access 'nope': No such file or directory" }),
      explainSandboxFailure({ mode: "off", network: false }, { code: 1, output }),
    ]).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  test("under sandbox-exec a refused write reads 'Operation not permitted'", () => {
    const mac: SandboxStatus = { ...BWRAP_ON, runner: { kind: "sandbox-exec", path: "/usr/bin/sandbox-exec" } };
    expect(explainSandboxFailure(mac, { code: 1, output: "touch: /usr/x: Operation not permitted" })).toContain("refused a write outside the workspace");
  });
});
