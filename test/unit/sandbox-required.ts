/**
 * Tests that need a working bubblewrap: `sandboxTest` runs them when `bwrap` works here. When it
 * does not, they FAIL under CI=true (CI installs bubblewrap, so a missing one is a broken CI),
 * and elsewhere they are skipped with one printed notice.
 */
import { test } from "bun:test";
import { detectSandbox } from "../../lib/sandbox/detect.ts";

const _status = process.platform === "linux" ? detectSandbox({ keep: false }) : undefined;
export const BWRAP_USABLE = _status?.runner?.kind === "bwrap";
const _why = _status?.notice ?? `the sandbox tests need Linux (this is ${process.platform})`;

let _noticed = false;

/** `test` when bwrap works; otherwise a failing test under CI=true, or a skipped one. */
export function sandboxTest(name: string, fn: () => unknown | Promise<unknown>, timeoutMs?: number): void {
  if (BWRAP_USABLE) {
    test(name, fn as () => Promise<void>, timeoutMs);
    return;
  }
  if (process.env.CI === "true") {
    test(name, () => {
      throw new Error(`bubblewrap is required under CI=true: ${_why}. Install it: apt-get install -y bubblewrap`);
    });
    return;
  }
  if (!_noticed) {
    _noticed = true;
    process.stderr.write(`skipping sandbox tests: ${_why}\n`);
  }
  test.skip(name, fn as () => Promise<void>);
}
