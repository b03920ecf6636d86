/**
 * Shared harness of the end-to-end tests: builds dist/shiro when it is missing or older than
 * any source, and runs it asynchronously (the fake provider lives in the test process, so a
 * blocking spawn would starve it) with state in a temp SHIRO_HOME and no keys from the caller.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "bun:test";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fakeEnv, startFakeProvider, type FakeProvider, type FakeProviderOptions, type ShiroProtocol as WireProtocol } from "../fakes/provider.ts";
import { BWRAP_USABLE } from "../unit/sandbox-required.ts";

export const ROOT = resolve(import.meta.dir, "..", "..");
export const BINARY = join(ROOT, "dist", "shiro");

function _newestSourceMtime(): number {
  let newest = 0;
  const visit = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const entry of ["cmd", "lib", "plugins", "skills", "package.json", "bun.lock"]) visit(join(ROOT, entry));
  return newest;
}

/** Builds the binary unless an up-to-date one exists. Call from beforeAll (allow ~3 minutes). */
export function ensureBinary(): string {
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= _newestSourceMtime()) return BINARY;
  const build = spawnSync(process.execPath, ["run", "build"], { cwd: ROOT, encoding: "utf8", timeout: 180_000 });
  if (build.status !== 0) throw new Error(`bun run build failed:\n${build.stdout}${build.stderr}`);
  return BINARY;
}

export interface ShiroResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  home: string;
  env?: Record<string, string>;
  /** Text piped to stdin; without it stdin is closed (not a TTY, so no prompt means "read stdin"). */
  stdin?: string;
  timeoutMs?: number;
}

/** The environment dist/shiro runs with: state in `home`, plain output, nothing else from the caller but PATH. */
export function binaryEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, SHIRO_HOME: home, NO_COLOR: "1", ...extra };
}

/** Runs dist/shiro to completion (killed after timeoutMs, default 30 s). */
export function runShiro(args: string[], options: RunOptions): Promise<ShiroResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(BINARY, args, { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"], env: binaryEnv(options.home, options.env) });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? "");
  });
}

export interface TempDirs {
  home: string;
  cwd: string;
  cleanup(): void;
}

export function makeTempDirs(): TempDirs {
  const home = mkdtempSync(join(tmpdir(), "shiro-e2e-home-"));
  const cwd = mkdtempSync(join(tmpdir(), "shiro-e2e-cwd-"));
  return {
    home,
    cwd,
    cleanup: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}

export { fakeEnv, type ShiroProtocol as WireProtocol } from "../fakes/provider.ts";

/** Parses --json output: one event per line. */
export function parseEventLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Resolves once `probe()` holds, checking every 20 ms; throws after `timeoutMs` (default 15 s). */
export async function waitUntil(probe: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${probe.toString().slice(0, 80)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A promise the test settles itself: a fake answer held (`holdUntil`) until the test saw what it waits for. */
export function latch(): { promise: Promise<void>; release(): void } {
  let release!: () => void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

/**
 * The events without the one notice a host without a working bubblewrap adds to every run
 * ("sandbox off: …"), so an exact event list holds on any machine. Where bwrap works nothing is
 * dropped, so a stray sandbox notice still fails the list there.
 */
export function withoutHostNotices(events: Record<string, unknown>[]): Record<string, unknown>[] {
  if (BWRAP_USABLE) return events;
  return events.filter((event) => !(event.type === "notice" && String(event.text).startsWith("sandbox off: ")));
}

export { systemOf, toolResultsOf, userTextsOf, type WireToolResult } from "../fakes/wire-readers.ts";

export interface E2ERunOptions {
  /** Default chat. */
  protocol?: WireProtocol;
  /** Added to the fake provider's env. */
  env?: Record<string, string>;
  stdin?: string;
  /** Default: the test's temp cwd. */
  cwd?: string;
  timeoutMs?: number;
}

export interface E2E {
  readonly fake: FakeProvider;
  readonly dirs: TempDirs;
  /** Runs dist/shiro in this test's folders against the fake provider. */
  shiro(args: string[], options?: E2ERunOptions): Promise<ShiroResult>;
  /** Writes `config` as config.json in this test's state folder. */
  writeConfig(config: unknown): void;
}

/**
 * The usual end-to-end setup, registered as bun:test hooks: the binary built once, one fake
 * provider for the file, fresh temp dirs for each test, and after each test the check that the
 * fake refused nothing (every request kept the provider invariants).
 */
export function useE2E(options: FakeProviderOptions = {}): E2E {
  let fake: FakeProvider | undefined;
  let dirs: TempDirs | undefined;
  const removed: string[] = [];
  beforeAll(async () => {
    ensureBinary();
    fake = await startFakeProvider(options);
  }, 200_000);
  afterAll(async () => {
    await fake?.stop();
    // A process the test left running wrote into a folder already removed (it made it again).
    expect(removed.filter((dir) => existsSync(dir))).toEqual([]);
  });
  beforeEach(() => {
    dirs = makeTempDirs();
    // A test that failed midway must not leave its scripted steps to the next one.
    fake!.reset();
  });
  afterEach(() => {
    dirs?.cleanup();
    if (dirs) removed.push(dirs.home, dirs.cwd);
    expect(fake!.violations).toEqual([]);
  });
  return {
    get fake() {
      return fake!;
    },
    get dirs() {
      return dirs!;
    },
    shiro: (args, run = {}) =>
      runShiro(args, {
        cwd: run.cwd ?? dirs!.cwd,
        home: dirs!.home,
        stdin: run.stdin,
        timeoutMs: run.timeoutMs,
        env: { ...fakeEnv(fake!.baseURL, run.protocol ?? "chat"), ...run.env },
      }),
    writeConfig(config) {
      mkdirSync(join(dirs!.home, ".shiro-neko"), { recursive: true });
      writeFileSync(join(dirs!.home, ".shiro-neko", "config.json"), JSON.stringify(config));
    },
  };
}
