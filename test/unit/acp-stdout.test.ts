/**
 * `shiro acp` keeps stdout for protocol messages: while the server holds it, `console.log`, its
 * kin and `process.stdout.write` go to stderr, and only the protocol stream reaches stdout.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

test("stray writes go to stderr while the ACP streams hold stdout; restore gives stdout back", () => {
  const child = spawnSync(process.execPath, [join(import.meta.dir, "..", "fixtures", "acp-stdout.ts")], { encoding: "utf8", timeout: 20_000 });
  expect(child.status).toBe(0);
  expect(child.stdout).toBe('{"jsonrpc":"2.0","method":"x"}\nafter restore\n');
  expect(child.stderr).toBe("stray log\nstray info\nstray write\n");
});
