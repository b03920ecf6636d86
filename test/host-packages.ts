/**
 * Tests that need a package of the host (bubblewrap, ripgrep, Chromium, qemu-user, busybox,
 * Deno). `hostTest` and `hostDescribe` run them when the package is here. When it is missing they
 * FAIL under CI=true (.ci/run installs every one of them, so a missing one is a broken CI) and
 * elsewhere they are skipped, with one notice per package on stderr naming what to install. So
 * the README's test command passes on a machine with only Node and npm, and says what it skipped.
 */
import { describe, test } from "bun:test";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface HostPackage {
  /** What the notice calls it: `bubblewrap`, `ripgrep`, … */
  readonly name: string;
  readonly present: boolean;
  /** Why it is missing, when that says more than "not on PATH". */
  readonly why: string;
  /** What installs it, for the notice and the CI failure. */
  readonly install: string;
}

/** The executable `command` names on PATH (or `env.PATH`), or undefined. */
export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const folder of (env.PATH ?? "").split(delimiter)) {
    if (folder === "") continue;
    const candidate = join(folder, command);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** Describes a host package; `present` defaults to "`command` is on PATH". */
export function hostPackage(name: string, install: string, present: boolean, why = `${name} is not on PATH`): HostPackage {
  return { name, present, why, install };
}

const _noticed = new Set<string>();

function _required(): boolean {
  return process.env.CI === "true";
}

function _notice(pkg: HostPackage): void {
  if (_noticed.has(pkg.name)) return;
  _noticed.add(pkg.name);
  process.stderr.write(`notice: skipping the tests that need ${pkg.name}: ${pkg.why} (${pkg.install} to run them)\n`);
}

function _failure(pkg: HostPackage): Error {
  return new Error(`${pkg.name} is required under CI=true: ${pkg.why}. ${pkg.install}`);
}

/** Whether tests needing `pkg` run here; prints the skip notice once when they do not. */
export function hostReady(pkg: HostPackage): boolean {
  if (pkg.present) return true;
  if (!_required()) _notice(pkg);
  return false;
}

/** `test` when `pkg` is here; otherwise a failing test under CI=true, or a skipped one. */
export function hostTest(pkg: HostPackage, name: string, fn: () => unknown | Promise<unknown>, timeoutMs?: number): void {
  if (pkg.present) test(name, fn as () => Promise<void>, timeoutMs);
  else if (_required())
    test(name, () => {
      throw _failure(pkg);
    });
  else {
    _notice(pkg);
    test.skip(name, fn as () => Promise<void>);
  }
}

/**
 * `describe` when `pkg` is here; otherwise one failing test under CI=true, or one skipped test.
 * The body is not run when `pkg` is missing: a skipped describe still runs its body to collect
 * its tests (never their hooks), so whatever the body made at collection time would be left behind.
 */
export function hostDescribe(pkg: HostPackage, name: string, body: () => void): void {
  if (pkg.present) describe(name, body);
  else if (_required())
    describe(name, () => {
      test(`needs ${pkg.name}`, () => {
        throw _failure(pkg);
      });
    });
  else {
    _notice(pkg);
    describe(name, () => {
      test.skip(`needs ${pkg.name}`, () => {});
    });
  }
}
