/**
 * What the sandbox hides from reads, through the built binary under `-p --yolo`: the home folder's
 * credential locations (`~/.ssh/id_rsa`, `~/.aws/credentials`, `~/.netrc`…), shiro's own state
 * folder with the `config.json` that holds an `apiKey`, and a path config `sandbox.hidePaths`
 * names. The control, a plain file beside them in the home folder, reads as usual; with
 * `--no-sandbox` the same commands print the secrets (what the sandbox is for). The home folder is
 * made under /var/tmp: the sandbox's private /tmp would hide one under /tmp whatever the rules.
 */
import { afterEach, describe, expect } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";

const e2e = useE2E();
const SECRET = /s3cr3t\d/;
let homes: string[] = [];
afterEach(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  homes = [];
});

function seedHome(home: string): string[] {
  const files: [string, string][] = [
    [".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\ns3cr3t1\n-----END OPENSSH PRIVATE KEY-----\n"],
    [".aws/credentials", "[default]\naws_secret_access_key = s3cr3t2\n"],
    [".netrc", "machine example.com password s3cr3t3\n"],
    [".config/gh/hosts.yml", "github.com:\n  oauth_token: s3cr3t4\n"],
    ["private/token.txt", "s3cr3t5\n"],
    ["notes.txt", "plain home file\n"],
  ];
  for (const [name, content] of files) {
    mkdirSync(dirname(join(home, name)), { recursive: true });
    writeFileSync(join(home, name), content);
  }
  return files.map(([name]) => join(home, name));
}

async function catAll(flags: string[]): Promise<string[]> {
  const home = mkdtempSync("/var/tmp/shiro-e2e-hide-");
  homes.push(home);
  mkdirSync(join(home, ".shiro-neko"), { recursive: true });
  writeFileSync(join(home, ".shiro-neko", "config.json"), JSON.stringify({ apiKey: "sk-config-s3cr3t6", sandbox: { hidePaths: ["~/private"] } }));
  const commands = [...seedHome(home), join(home, ".shiro-neko", "config.json")].map((path) => `cat ${path}`);
  e2e.fake.script({ toolCalls: commands.map((command) => ({ name: "bash", input: { command } })) }, { text: "done" });
  const result = await e2e.shiro(["-p", "read the home folder", "--yolo", ...flags], { env: { HOME: home, SHIRO_HOME: home } });
  expect(result.code).toBe(0);
  return toolResultsOf(e2e.fake.requests.at(-1)!).map((entry) => entry.output);
}

describe("the sandbox hides credentials from reads", () => {
  sandboxTest(
    "cat of ~/.ssh/id_rsa, ~/.aws/credentials, ~/.netrc, ~/.config/gh/hosts.yml, a hidePaths entry and shiro's config.json prints nothing secret",
    async () => {
      const outputs = await catAll([]);
      expect(outputs.map((output) => SECRET.test(output))).toEqual([false, false, false, false, false, false, false]);
      expect(outputs[5]).toBe("exit: 0\n\nstdout:\nplain home file");
    },
    60_000,
  );

  sandboxTest(
    "the control: with --no-sandbox the same reads print them",
    async () => {
      const outputs = await catAll(["--no-sandbox"]);
      expect(outputs.map((output) => SECRET.test(output))).toEqual([true, true, true, true, true, false, true]);
    },
    60_000,
  );
});
