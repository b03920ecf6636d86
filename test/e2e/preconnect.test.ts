/**
 * A headless run opens the provider's connection while it starts (`preconnectProvider` in lib/providers/_http.ts):
 * the fake provider accepts a connection before shiro has sent anything, seen here by a
 * UserPromptSubmit hook, which runs after start-up and before the first request, waiting (at most
 * 5 s) for the connection the fake reports. Behind a proxy variable no connection is opened early.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useE2E } from "./_harness.ts";

let connectedFlag = "";
const e2e = useE2E({ onConnection: () => connectedFlag && writeFileSync(connectedFlag, "") });

/** Writes the hook that records whether the fake had a connection while the prompt's hooks ran. */
function _hookSeesConnection(): void {
  connectedFlag = join(e2e.dirs.cwd, "connected");
  rmSync(connectedFlag, { force: true });
  const wait = `i=0; while [ ! -e connected ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; if [ -e connected ]; then echo yes > saw; else echo no > saw; fi`;
  e2e.writeConfig({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `cd "$CLAUDE_PROJECT_DIR" && { ${wait}; }` }] }] } });
}

const saw = () => (existsSync(join(e2e.dirs.cwd, "saw")) ? readFileSync(join(e2e.dirs.cwd, "saw"), "utf8").trim() : "hook did not run");

test("the provider's connection is open before the first request is built; the request then goes out once", async () => {
  _hookSeesConnection();
  e2e.fake.script({ text: "hello" });
  const run = await e2e.shiro(["-p", "hi"]);
  expect(run.code).toBe(0);
  expect(saw()).toBe("yes");
  expect(e2e.fake.requests).toHaveLength(1);
  expect(e2e.fake.violations).toEqual([]);
}, 60_000);

test("behind a proxy variable nothing connects before the request", async () => {
  _hookSeesConnection();
  e2e.fake.script({ text: "hello" });
  // HTTPS_PROXY does not apply to the fake's http:// URL, so the request itself still goes straight to it.
  const run = await e2e.shiro(["-p", "hi"], { env: { HTTPS_PROXY: "http://127.0.0.1:9" } });
  expect(run.code).toBe(0);
  expect(saw()).toBe("no");
  expect(e2e.fake.requests).toHaveLength(1);
}, 60_000);
