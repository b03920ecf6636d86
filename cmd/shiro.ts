#!/usr/bin/env bun
/**
 * The `shiro` entry point. It parses the root flags strictly (cmd/_flags.ts, the one parser,
 * which subcommands share through cmd/_run-citty.ts), answers --version and --help without
 * loading anything else, and dispatches subcommands lazily.
 * This file and the modules it imports up front are the start-up path: keep them light.
 * Exit codes are decided here and in cmd/ only.
 */
import { EXIT, UsageError, UserError } from "../lib/platform/errors.ts";
import { detectRuntime } from "../lib/platform/runtime.ts";
import { PRODUCT, describeVersion } from "../lib/platform/version.ts";
import { ROOT_FLAGS } from "../lib/config/flags.ts";
import { parseFlags, type ParsedFlags } from "./_flags.ts";
import { exitAfterOutput, writeErr, writeOutNow } from "../lib/ui/output.ts";
import { SUBCOMMANDS } from "./_subcommands.ts";

export function versionLine(): string {
  const rt = detectRuntime();
  return `${PRODUCT} ${describeVersion()}  ${rt.name} ${rt.version}  ${rt.platform}-${rt.arch}  ${rt.compiled ? "compiled" : "source"}`;
}

async function runRoot(flags: ParsedFlags): Promise<number> {
  if (flags.version) {
    writeOutNow(`${versionLine()}\n`);
    return EXIT.ok;
  }
  if (flags.help) {
    const { renderRootHelp } = await import("./_help.ts");
    writeOutNow(`${renderRootHelp()}\n`);
    return EXIT.ok;
  }
  if (flags._.length > 0) throw new UsageError(`unknown command "${flags._[0]}"`);
  await _sealKeys();
  const { startSession } = await import("./_start.ts");
  return startSession(flags);
}

/** Maps any throw to a one-line message and an exit code; stack traces only with SHIRO_DEBUG=1. */
export function reportError(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) {
    writeErr(`shiro: ${message} (see shiro --help)\n`);
    return EXIT.usage;
  }
  if (error instanceof UserError) {
    writeErr(`shiro: ${message}\n`);
    return error.exitCode;
  }
  writeErr(`shiro: ${message}\n`);
  if (process.env.SHIRO_DEBUG && error instanceof Error && error.stack) writeErr(`${error.stack}\n`);
  return EXIT.error;
}

export async function main(argv: string[]): Promise<number> {
  try {
    const first = argv[0];
    if (first !== undefined && !first.startsWith("-") && first in SUBCOMMANDS) {
      await _sealKeys();
      const { runStrict } = await import("./_run-citty.ts");
      await runStrict(await SUBCOMMANDS[first]!.load(), argv.slice(1), `shiro ${first}`);
      return typeof process.exitCode === "number" ? process.exitCode : EXIT.ok;
    }
    return await runRoot(parseFlags(argv, ROOT_FLAGS));
  } catch (error) {
    return reportError(error);
  }
}

/** Moves every key variable out of the environment before anything can spawn (lib/secrets/key-vault.ts). */
async function _sealKeys(): Promise<void> {
  const [{ sealKeys }, { keyVariables }] = await Promise.all([import("../lib/secrets/key-vault.ts"), import("../lib/secrets/child-env.ts")]);
  sealKeys(keyVariables());
}

// No top-level await: `bun build --bytecode` (fast start-up) needs a module without it.
if (import.meta.main) {
  // Every byte written reaches the reader, then the process leaves: lingering handles (a
  // keep-alive socket, a stdin listener) must not hold it open once the command is done.
  void main(process.argv.slice(2)).then(exitAfterOutput);
}
