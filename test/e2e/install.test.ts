/**
 * install.sh and `shiro update` against release folders served over HTTP on 127.0.0.1: a release
 * of this package's version ("new") and one built as 0.0.1 ("old"), both of the native target and
 * built once for the file; the same release around a small stand-in executable ("stand-in"), for
 * the cases about the installer's own logic; and a tampered copy of the stand-in one. Each way
 * in (curl under dash, busybox's wget, a local folder, `shiro update`) installs and runs the real
 * binary at least once. Every failure must be one line on stderr and leave nothing behind (no
 * install folder, no temp folder, the installed binary unchanged).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { findOnPath, hostPackage, hostTest } from "../host-packages.ts";
import { BINARY, ROOT, ensureBinary } from "./_harness.ts";
import { buildStandInRelease, buildTestRelease, nativeTarget, runProcess, serveFolders, type FolderServer } from "./_release.ts";

const NATIVE = nativeTarget();
const INSTALL_SH = join(ROOT, ".ci", "release", "install.sh");
const OLD = "0.0.1";

let work: string;
let server: FolderServer;
/** What the stand-in binary answers to --version. */
let standIn: string;
const folder = (name: string) => join(work, "releases", name);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "shiro-install-test-"));
  await Promise.all([buildTestRelease(folder("new"), [NATIVE]), buildTestRelease(folder("old"), [NATIVE], OLD)]);
  standIn = buildStandInRelease(folder("stand-in"), NATIVE);
  mkdirSync(folder("tampered"));
  for (const file of readdirSync(folder("stand-in"))) copyFileSync(join(folder("stand-in"), file), join(folder("tampered"), file));
  const archive = join(folder("tampered"), `shiro-${NATIVE}.tar.gz`);
  const bytes = readFileSync(archive);
  bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
  writeFileSync(archive, bytes);
  server = await serveFolders({ new: folder("new"), old: folder("old"), "stand-in": folder("stand-in"), tampered: folder("tampered") });
  ensureBinary();
}, 600_000);

afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

interface Sandbox {
  root: string;
  home: string;
  tmp: string;
  dir: string;
  fakeBin: string;
}

function makeSandbox(): Sandbox {
  const root = mkdtempSync(join(work, "sandbox-"));
  const sandbox = { root, home: join(root, "home"), tmp: join(root, "tmp"), dir: join(root, "home", "bin"), fakeBin: join(root, "fake-bin") };
  for (const path of [sandbox.home, sandbox.tmp, sandbox.fakeBin]) mkdirSync(path);
  return sandbox;
}

function installEnv(sandbox: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: `${sandbox.fakeBin}:${process.env.PATH}`, HOME: sandbox.home, SHIRO_HOME: sandbox.home, TMPDIR: sandbox.tmp, SHELL: "/bin/bash", ...extra };
}

const install = (sandbox: Sandbox, base: string, args: string[] = [], shell = "dash", extra: Record<string, string> = {}) =>
  runProcess(shell, [INSTALL_SH, ...args], { env: installEnv(sandbox, { SHIRO_INSTALL_BASE: base, ...extra }), cwd: sandbox.root });

/** Puts scripts named `uname` (and `ldd`) first on PATH that answer like another machine. */
function fakeMachine(sandbox: Sandbox, os: string, machine: string, libc?: "musl" | "glibc"): void {
  writeFileSync(join(sandbox.fakeBin, "uname"), `#!/bin/sh\ncase "$1" in -s) echo ${os} ;; -m) echo ${machine} ;; *) echo ${os} ;; esac\n`);
  chmodSync(join(sandbox.fakeBin, "uname"), 0o755);
  if (!libc) return;
  const text = libc === "musl" ? "musl libc (x86_64)\nVersion 1.2.4" : "ldd (Debian GLIBC 2.36-9) 2.36";
  writeFileSync(join(sandbox.fakeBin, "ldd"), `#!/bin/sh\necho '${text}' >&2\nexit 1\n`);
  chmodSync(join(sandbox.fakeBin, "ldd"), 0o755);
}

const sha = (path: string) => new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");

function expectNothingLeft(sandbox: Sandbox): void {
  expect(existsSync(sandbox.dir)).toBe(false);
  expect(readdirSync(sandbox.tmp)).toEqual([]);
}

describe("install.sh", () => {
  // The real binary under dash; bash and sh run the same script over the stand-in release.
  const shells: [string, "new" | "stand-in"][] = [
    ["dash", "new"],
    ["bash", "stand-in"],
    ["sh", "stand-in"],
  ];
  for (const [shell, release] of shells) {
    test(`under ${shell}: installs the native build${release === "new" ? "" : " (the stand-in)"} from an HTTP base, and the installed binary runs`, async () => {
      const sandbox = makeSandbox();
      const result = await install(sandbox, `${server.url}/${release}`, [], shell);
      expect([result.code, result.stderr]).toEqual([0, ""]);
      const installed = join(sandbox.home, ".local", "bin", "shiro");
      expect(sha(installed)).toBe(sha(join(folder(release), `shiro-${NATIVE}`)));
      expect(statSync(installed).mode & 0o777).toBe(0o755);
      const version = await runProcess(installed, ["--version"], { env: installEnv(sandbox) });
      if (release === "new") {
        expect(version.stdout).toStartWith(`shiro-neko ${pkg.version} (`);
        expect(version.stdout).toEndWith(`linux-${process.arch}  compiled\n`);
      } else expect(version.stdout).toBe(`${standIn}\n`);
      expect(result.stdout).toContain(`installed ${version.stdout.trim()}\n`);
      expect(result.stdout).toContain(`${sandbox.home}/.local/bin is not on PATH; add it: echo 'export PATH="${sandbox.home}/.local/bin:$PATH"' >> ~/.bashrc`);
      expect(readdirSync(join(sandbox.home, ".local", "bin"))).toEqual(["shiro"]);
      expect(readdirSync(sandbox.tmp)).toEqual([]);
    }, 120_000);
  }

  test("piped into sh -s -- --dir, as the one-line installer runs it (the stand-in)", async () => {
    const sandbox = makeSandbox();
    const line = `cat '${INSTALL_SH}' | sh -s -- --dir '${sandbox.dir}'`;
    const result = await runProcess("sh", ["-c", line], {
      env: installEnv(sandbox, { SHIRO_INSTALL_BASE: `${server.url}/stand-in`, PATH: `${sandbox.dir}:${process.env.PATH}` }),
      cwd: sandbox.root,
    });
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toStartWith(`installed ${standIn}\n`);
    expect(result.stdout).not.toContain("is not on PATH");
    expect(readdirSync(sandbox.dir)).toEqual(["shiro"]);
  }, 120_000);

  const busybox = findOnPath("busybox");
  const BUSYBOX = hostPackage("busybox", "apt-get install -y busybox", busybox !== undefined);
  /** A PATH folder holding busybox applets only: the userland of an Alpine container. */
  const busyboxOnly = (sandbox: Sandbox): string => {
    const tools = join(sandbox.root, "busybox-bin");
    mkdirSync(tools);
    for (const applet of ["sh", "wget", "tar", "gzip", "sha256sum", "mktemp", "cut", "awk", "grep", "cp", "mv", "chmod", "mkdir", "rm", "uname", "ls", "cat"]) {
      symlinkSync(busybox!, join(tools, applet));
    }
    return tools;
  };
  hostTest(
    BUSYBOX,
    "with nothing but busybox (sh, wget, tar, sha256sum, …), as on Alpine",
    async () => {
      const sandbox = makeSandbox();
      const tools = busyboxOnly(sandbox);
      const result = await runProcess(join(tools, "sh"), [INSTALL_SH, "--target", NATIVE, "--dir", sandbox.dir], {
        env: { ...installEnv(sandbox, { SHIRO_INSTALL_BASE: `${server.url}/new` }), PATH: tools, SHELL: "/bin/ash" },
        cwd: sandbox.root,
      });
      expect([result.code, result.stderr]).toEqual([0, ""]);
      expect(sha(join(sandbox.dir, "shiro"))).toBe(sha(join(folder("new"), `shiro-${NATIVE}`)));
      expect(result.stdout).toContain(`is not on PATH; add it: echo 'export PATH="${sandbox.dir}:$PATH"' >> ~/.profile`);
      expect(readdirSync(sandbox.tmp)).toEqual([]);
    },
    120_000,
  );

  hostTest(
    BUSYBOX,
    "busybox alone refuses a tampered archive too",
    async () => {
      const sandbox = makeSandbox();
      const tools = busyboxOnly(sandbox);
      const result = await runProcess(join(tools, "sh"), [INSTALL_SH, "--target", NATIVE, "--dir", sandbox.dir], {
        env: { ...installEnv(sandbox, { SHIRO_INSTALL_BASE: `${server.url}/tampered` }), PATH: tools },
        cwd: sandbox.root,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toStartWith(`shiro install: checksum mismatch for shiro-${NATIVE}.tar.gz (expected `);
      expectNothingLeft(sandbox);
    },
    120_000,
  );

  // A folder base copies the real binary; the URL spellings install the stand-in.
  const bases: [string, "new" | "stand-in", (s: FolderServer) => string][] = [
    ["an HTTP URL with a trailing slash", "stand-in", (s) => `${s.url}/stand-in/`],
    ["a folder", "new", () => folder("new")],
    ["a file:// URL", "stand-in", () => `file://${folder("stand-in")}`],
  ];
  for (const [label, release, base] of bases) {
    test(`--dir and a base given as ${label}${release === "new" ? "" : " (the stand-in)"}`, async () => {
      const sandbox = makeSandbox();
      const result = await install(sandbox, "https://127.0.0.1:9/never", ["--dir", sandbox.dir, `--base=${base(server)}`]);
      expect([result.code, result.stderr]).toEqual([0, ""]);
      expect(sha(join(sandbox.dir, "shiro"))).toBe(sha(join(folder(release), `shiro-${NATIVE}`)));
      if (release === "new") expect(result.stdout).toStartWith(`installed shiro-neko ${pkg.version} (`);
    }, 120_000);
  }

  test("a tampered archive is refused with one line and nothing is installed", async () => {
    const sandbox = makeSandbox();
    const result = await install(sandbox, `${server.url}/tampered`, ["--dir", sandbox.dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^shiro install: checksum mismatch for shiro-${NATIVE}\\.tar\\.gz \\(expected [0-9a-f]{64}, got [0-9a-f]{64}\\); nothing was installed\\n$`),
    );
    expect(result.stdout).toBe("");
    expectNothingLeft(sandbox);
  }, 60_000);

  test("a base that is not there, or has no SHA256SUMS, stops with one line", async () => {
    const sandbox = makeSandbox();
    const result = await install(sandbox, `${server.url}/nowhere`, ["--dir", sandbox.dir]);
    expect([result.code, result.stderr]).toEqual([
      1,
      `shiro install: cannot download ${server.url}/nowhere/SHA256SUMS; check the network or SHIRO_INSTALL_BASE\n`,
    ]);
    expectNothingLeft(sandbox);
  }, 60_000);

  // Each machine maps to one artifact; the served release has only the native one, so the others
  // name theirs in the "cannot download" line.
  const machines: [string, string, "musl" | "glibc" | undefined, string][] = [
    ["Darwin", "arm64", undefined, "darwin-arm64"],
    ["Darwin", "x86_64", undefined, "darwin-x64"],
    ["Linux", "aarch64", "glibc", "linux-arm64"],
    ["Linux", "arm64", "glibc", "linux-arm64"],
    ["Linux", "x86_64", "musl", "linux-x64-musl"],
    ["Linux", "amd64", "musl", "linux-x64-musl"],
  ];
  for (const [os, machine, libc, target] of machines) {
    test(`${os} ${machine}${libc ? ` ${libc}` : ""} asks for shiro-${target}.tar.gz`, async () => {
      const sandbox = makeSandbox();
      fakeMachine(sandbox, os, machine, libc);
      const result = await install(sandbox, `${server.url}/new`, ["--dir", sandbox.dir]);
      expect([result.code, result.stderr]).toEqual([
        1,
        `shiro install: cannot download ${server.url}/new/shiro-${target}.tar.gz (no build for ${target} in this release?)\n`,
      ]);
      expectNothingLeft(sandbox);
    }, 60_000);
  }

  test("Linux x86_64 with glibc picks the native build and installs it (the stand-in)", async () => {
    const sandbox = makeSandbox();
    fakeMachine(sandbox, "Linux", process.arch === "x64" ? "x86_64" : "aarch64", "glibc");
    const result = await install(sandbox, `${server.url}/stand-in`, ["--dir", sandbox.dir]);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(server.requests.at(-1)).toBe(`/stand-in/shiro-${NATIVE}.tar.gz`);
  }, 60_000);

  const unknown: [string, string, "musl" | undefined][] = [
    ["FreeBSD", "amd64", undefined],
    ["SunOS", "i86pc", undefined],
    ["Linux", "riscv64", undefined],
    ["Linux", "armv7l", undefined],
    ["Darwin", "ppc", undefined],
    ["Linux", "aarch64", "musl"],
  ];
  test("a 32-bit userland on an arm64 kernel stops with one line and downloads nothing", async () => {
    const sandbox = makeSandbox();
    fakeMachine(sandbox, "Linux", "aarch64", "glibc");
    writeFileSync(join(sandbox.fakeBin, "getconf"), "#!/bin/sh\necho 32\n");
    chmodSync(join(sandbox.fakeBin, "getconf"), 0o755);
    const before = server.requests.length;
    const result = await install(sandbox, `${server.url}/new`, ["--dir", sandbox.dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toStartWith("shiro install: no shiro build for a 32-bit userland on aarch64 (builds: linux-x64 ");
    expect(result.stderr.split("\n")).toHaveLength(2);
    expect(server.requests.length).toBe(before);
    expectNothingLeft(sandbox);
  }, 60_000);

  for (const [os, machine, libc] of unknown) {
    test(`unknown platform ${os} ${machine}${libc ? " musl" : ""} stops with one line and downloads nothing`, async () => {
      const sandbox = makeSandbox();
      fakeMachine(sandbox, os, machine, libc);
      const before = server.requests.length;
      const result = await install(sandbox, `${server.url}/new`, ["--dir", sandbox.dir]);
      expect(result.code).toBe(1);
      expect(result.stderr.split("\n")).toHaveLength(2);
      expect(result.stderr).toStartWith(`shiro install: no shiro build for ${libc ? "musl libc on " : `${os} `}${machine} (builds: linux-x64 `);
      expect(server.requests.length).toBe(before);
      expectNothingLeft(sandbox);
    }, 60_000);
  }

  test("Windows shells are sent to install.ps1", async () => {
    const sandbox = makeSandbox();
    fakeMachine(sandbox, "MINGW64_NT-10.0-19045", "x86_64");
    const result = await install(sandbox, `${server.url}/new`, ["--dir", sandbox.dir]);
    expect([result.code, result.stderr]).toEqual([1, `shiro install: on Windows, run in PowerShell: irm ${server.url}/new/install.ps1 | iex\n`]);
  }, 60_000);

  const badArgs: [string[], number, string][] = [
    [["--frobnicate"], 2, "shiro install: unknown option --frobnicate (see --help)\n"],
    [["--dir"], 1, "shiro install: --dir needs a folder\n"],
    [
      ["--target", "linux-mips"],
      1,
      'shiro install: unknown target "linux-mips" (builds: linux-x64 linux-x64-baseline linux-x64-musl linux-arm64 darwin-x64 darwin-arm64; windows-x64 installs with install.ps1)\n',
    ],
    [
      ["--target=windows-x64"],
      1,
      'shiro install: unknown target "windows-x64" (builds: linux-x64 linux-x64-baseline linux-x64-musl linux-arm64 darwin-x64 darwin-arm64; windows-x64 installs with install.ps1)\n',
    ],
  ];
  for (const [args, code, stderr] of badArgs) {
    test(`install.sh ${args.join(" ")} stops with one line`, async () => {
      const sandbox = makeSandbox();
      expect(await install(sandbox, `${server.url}/new`, args)).toEqual({ code, stdout: "", stderr });
      expect(readdirSync(sandbox.home)).toEqual([]);
      expect(readdirSync(sandbox.tmp)).toEqual([]);
    }, 60_000);
  }
});

describe("shiro update", () => {
  let installedOld: Promise<string> | undefined;
  /** install.sh installs the old release once; each test starts from a copy of what it wrote. */
  async function installOld(): Promise<{ sandbox: Sandbox; binary: string }> {
    installedOld ??= (async () => {
      const sandbox = makeSandbox();
      const result = await install(sandbox, `${server.url}/old`, ["--dir", sandbox.dir]);
      expect([result.code, result.stderr]).toEqual([0, ""]);
      expect(result.stdout).toStartWith(`installed shiro-neko ${OLD} (`);
      return join(sandbox.dir, "shiro");
    })();
    return copyInstalled(await installedOld);
  }
  function copyInstalled(from: string): { sandbox: Sandbox; binary: string } {
    const sandbox = makeSandbox();
    mkdirSync(sandbox.dir);
    const binary = join(sandbox.dir, "shiro");
    copyFileSync(from, binary);
    chmodSync(binary, 0o755);
    return { sandbox, binary };
  }
  const shiro = (sandbox: Sandbox, binary: string, args: string[], base: string) =>
    runProcess(binary, args, { env: installEnv(sandbox, { SHIRO_INSTALL_BASE: base }), cwd: sandbox.root, timeoutMs: 120_000 });

  test("--check reports the newer release and changes nothing; update moves to it; then both say up to date", async () => {
    const { sandbox, binary } = await installOld();
    const oldSha = sha(binary);
    const date = JSON.parse(readFileSync(join(folder("new"), "release.json"), "utf8")).date.slice(0, 10);
    expect(await shiro(sandbox, binary, ["update", "--check"], `${server.url}/new`)).toEqual({
      code: 0,
      stdout: `update available: shiro ${OLD} -> ${pkg.version} (${date}); run shiro update\n`,
      stderr: "",
    });
    expect(sha(binary)).toBe(oldSha);
    expect(await shiro(sandbox, binary, ["update"], `${server.url}/new`)).toEqual({
      code: 0,
      stdout: `updated shiro ${OLD} -> ${pkg.version} at ${binary}\n`,
      stderr: "",
    });
    expect(sha(binary)).toBe(sha(join(folder("new"), `shiro-${NATIVE}`)));
    expect(readdirSync(sandbox.dir)).toEqual(["shiro"]);
    expect((await shiro(sandbox, binary, ["--version"], "")).stdout).toStartWith(`shiro-neko ${pkg.version} (`);
    const upToDate = `shiro ${pkg.version} is up to date (latest release ${pkg.version}, ${date})\n`;
    expect(await shiro(sandbox, binary, ["update", "--check"], `${server.url}/new`)).toEqual({ code: 0, stdout: upToDate, stderr: "" });
    const inode = statSync(binary).ino;
    expect(await shiro(sandbox, binary, ["update"], `${server.url}/new`)).toEqual({ code: 0, stdout: upToDate, stderr: "" });
    expect(statSync(binary).ino).toBe(inode);
  }, 180_000);

  test("an older release is not a newer one: --check says up to date", async () => {
    const { sandbox, binary } = copyInstalled(join(folder("new"), `shiro-${NATIVE}`));
    const result = await shiro(sandbox, binary, ["update", "--check"], `${server.url}/old`);
    expect(result.stdout).toStartWith(`shiro ${pkg.version} is up to date (latest release ${OLD}, `);
  }, 120_000);

  test("a tampered archive is refused, the installed binary is unchanged and nothing is left beside it", async () => {
    const { sandbox, binary } = await installOld();
    const oldSha = sha(binary);
    const result = await shiro(sandbox, binary, ["update"], `${server.url}/tampered`);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^shiro: checksum mismatch for shiro-${NATIVE}\\.tar\\.gz \\(expected [0-9a-f]{64}, got [0-9a-f]{64}\\); kept shiro ${OLD}\\n$`),
    );
    expect(sha(binary)).toBe(oldSha);
    expect(readdirSync(sandbox.dir)).toEqual(["shiro"]);
  }, 120_000);

  test("update.enabled false in config turns update and --check off; update.base is used without SHIRO_INSTALL_BASE", async () => {
    const { sandbox, binary } = await installOld();
    const configPath = join(sandbox.home, ".shiro-neko", "config.json");
    mkdirSync(join(sandbox.home, ".shiro-neko"), { recursive: true });
    writeFileSync(configPath, JSON.stringify({ update: { enabled: false } }));
    const off = `shiro: updates are turned off (update.enabled is false in ${configPath}); update this install the way it was installed\n`;
    for (const args of [["update"], ["update", "--check"]]) {
      expect(await shiro(sandbox, binary, args, `${server.url}/stand-in`)).toEqual({ code: 1, stdout: "", stderr: off });
    }
    writeFileSync(configPath, JSON.stringify({ update: { enabled: true, base: `${server.url}/stand-in` } }));
    const result = await shiro(sandbox, binary, ["update", "--check"], "");
    expect(result.stdout).toStartWith(`update available: shiro ${OLD} -> ${pkg.version} (`);
  }, 120_000);

  test("an unreachable base, a 404 and a file that is not an index each stop with one line", async () => {
    const { sandbox, binary } = await installOld();
    const notIndex = join(sandbox.root, "not-index");
    mkdirSync(notIndex);
    writeFileSync(join(notIndex, "release.json"), "<html>moved</html>");
    const cases: [string, string][] = [
      [`${server.url}/nowhere`, `shiro: ${server.url}/nowhere/release.json answered HTTP 404; check SHIRO_INSTALL_BASE or update.base in config\n`],
      [notIndex, `shiro: ${notIndex}/release.json is not JSON; is the release base right?\n`],
      [join(sandbox.root, "missing"), `shiro: cannot read ${sandbox.root}/missing/release.json; check SHIRO_INSTALL_BASE or update.base in config\n`],
    ];
    for (const [base, stderr] of cases) expect(await shiro(sandbox, binary, ["update"], base)).toEqual({ code: 1, stdout: "", stderr });
  }, 120_000);

  test("a local build (bun run build) is not replaced: it says how to update instead, and asks no server", async () => {
    const sandbox = makeSandbox();
    const before = server.requests.length;
    const result = await shiro(sandbox, BINARY, ["update"], `${server.url}/old`);
    expect(server.requests.length).toBe(before);
    expect(result).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "shiro: this shiro is a local build, not an installed release; update it with git pull, or install the release with install.sh (docs/release.md)\n",
    });
  }, 60_000);
});
