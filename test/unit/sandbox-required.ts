/**
 * Tests that need a working bubblewrap: `sandboxTest` runs them when `bwrap` works here. When it
 * does not, they FAIL under CI=true (CI installs bubblewrap, so a missing one is a broken CI),
 * and elsewhere they are skipped with one printed notice (test/host-packages.ts).
 */
import { detectSandbox } from "../../lib/sandbox/detect.ts";
import { hostPackage, hostTest } from "../host-packages.ts";

const _status = process.platform === "linux" ? detectSandbox({ keep: false }) : undefined;
export const BWRAP_USABLE = _status?.runner?.kind === "bwrap";
export const BUBBLEWRAP = hostPackage(
  "bubblewrap",
  "apt-get install -y bubblewrap",
  BWRAP_USABLE,
  _status?.notice ?? `the sandbox tests need Linux (this is ${process.platform})`,
);

/** `test` when bwrap works; otherwise a failing test under CI=true, or a skipped one. */
export function sandboxTest(name: string, fn: () => unknown | Promise<unknown>, timeoutMs?: number): void {
  hostTest(BUBBLEWRAP, name, fn, timeoutMs);
}
