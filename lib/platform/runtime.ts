/**
 * The small runtime shim: the only module that asks whether it runs under Bun or Deno,
 * and whether it is a compiled binary. Everything else uses node:* APIs, which both provide.
 */

declare const Deno: { version: { deno: string } } | undefined;
declare const Bun: { version: string; main: string; unsafe?: { setJITPolicy?: (scale: number) => void } } | undefined;

export type RuntimeName = "bun" | "deno";

export interface RuntimeInfo {
  name: RuntimeName;
  version: string;
  /** True when running from a `bun build --compile` binary. */
  compiled: boolean;
  platform: string;
  arch: string;
}

export function detectRuntime(): RuntimeInfo {
  const isDeno = typeof Deno !== "undefined";
  const name: RuntimeName = isDeno ? "deno" : "bun";
  const version = isDeno ? Deno!.version.deno : typeof Bun !== "undefined" ? Bun.version : (process.versions.bun ?? "unknown");
  return { name, version, compiled: isCompiledBinary(), platform: process.platform, arch: process.arch };
}

/**
 * Compiled Bun binaries run their entry point from the virtual `/$bunfs/` (or `B:/~BUN/`) root.
 * `Bun.main` says so even in a `--bytecode` build, where import.meta.url keeps the source path.
 */
export function isCompiledBinary(): boolean {
  const main = typeof Bun !== "undefined" ? Bun.main : import.meta.url;
  return main.includes("$bunfs") || main.includes("~BUN");
}

/**
 * Back to the runtime's normal JIT policy. The release binary starts with its tier-up thresholds
 * raised (.ci/release/build.ts `--compile-jit-policy`): code a process runs once on the way to its
 * first answer stays in the interpreter instead of being compiled on the other core. A front end
 * that stays open (the REPL, ACP) calls this once its first turn is done; a no-op elsewhere.
 */
export function useNormalJitPolicy(): void {
  if (typeof Bun !== "undefined") Bun.unsafe?.setJITPolicy?.(1);
}

/** The command that re-runs this same shiro: the binary itself, or the runtime with the entry script. */
export function selfCommand(): string[] {
  if (isCompiledBinary()) return [process.execPath];
  const entry = process.argv[1] ?? new URL("../../cmd/shiro.ts", import.meta.url).pathname;
  if (typeof Deno !== "undefined") return [process.execPath, "run", "-A", entry];
  return [process.execPath, entry];
}

/**
 * Node built-ins that modules on the start-up path reach on first use instead of importing them
 * at their top: a static `import … from "node:os"` (or child_process, fs/promises, crypto) costs a
 * compiled binary's start up to a millisecond each, paid by every run, while a plain answer spawns
 * nothing, opens no file handle and hashes only short inputs. Each returns the module itself.
 */
export const nodeOs = (): typeof import("node:os") => process.getBuiltinModule("node:os");
export const childProcess = (): typeof import("node:child_process") => process.getBuiltinModule("node:child_process");
export const fsPromises = (): typeof import("node:fs/promises") => process.getBuiltinModule("node:fs/promises");
export const nodeCrypto = (): typeof import("node:crypto") => process.getBuiltinModule("node:crypto");

/**
 * The user's home folder, as `os.homedir()` gives it: on POSIX that is $HOME when it is set, so
 * it is read from the environment without loading node:os (about 0.6 ms of a compiled binary's
 * start, where the plain path needs nothing else of it); an empty or missing $HOME, and Windows,
 * ask node:os.
 */
export function homeDirectory(): string {
  const home = process.platform === "win32" ? undefined : process.env.HOME;
  return home ? home : nodeOs().homedir();
}
