/**
 * The gate's judgement of an @path read (`judgeRead`) for a read tool that declares a shell
 * command: its rules see the command's simple commands, whether or not a command was read before
 * in this process. Run in a child process, where nothing has loaded the shell reader yet.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..", "..");

test("a deny rule on a read tool's command refuses an @path read judged before any command was read", () => {
  const dir = mkdtempSync(join(tmpdir(), "shiro-gate-read-"));
  try {
    const script = join(dir, "judge.ts");
    writeFileSync(
      script,
      `import * as v from "valibot";
import { createGate } from ${JSON.stringify(join(ROOT, "lib/extensions/gate.ts"))};
import { parsePermissionRules } from ${JSON.stringify(join(ROOT, "lib/approval/rules.ts"))};
import { createPluginHost } from ${JSON.stringify(join(ROOT, "lib/extensions/plugin-host.ts"))};
import { isShellReaderLoaded } from ${JSON.stringify(join(ROOT, "lib/shell/reader.ts"))};
const tool = {
  name: "peek_shell",
  description: "Peeks at a file through a command line.",
  schema: v.object({ line: v.string() }),
  effect: "read",
  decision: "allow",
  command: (input) => input.line,
  pathInput: (path) => ({ line: "cat " + path }),
  execute: async () => "",
};
const gate = createGate({
  rules: parsePermissionRules({ peek_shell: { "*": "allow", "cat *": "deny" } }, {}),
  plugins: createPluginHost({ cwd: "/ws", writeStderr: () => {} }),
  yolo: false,
  decide: async () => "deny",
});
const loadedBefore = isShellReaderLoaded();
console.log(JSON.stringify({ loadedBefore, verdict: await gate.judgeRead(tool, tool.pathInput("notes.txt"), "/ws") }));
`,
    );
    const run = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: "utf8", timeout: 30_000 });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      loadedBefore: false,
      verdict: { denied: 'Refused by the permission rule peek_shell: "cat *" = deny.', secretAllowed: false },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
