/** Which workspace files a project's MCP server runs from, so the trust covers their content too. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverFiles } from "../../lib/store/project-mcp.ts";

const scratch = mkdtempSync(join(tmpdir(), "shiro-project-mcp-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("the command path, argument files, env words and --flag=value words inside the root; nothing outside it, no folders", () => {
  const root = join(scratch, "ws");
  mkdirSync(join(root, "bin"), { recursive: true });
  mkdirSync(join(root, "tools"));
  for (const file of ["server.js", "hook.js", "preload.cjs", "bin/run.sh", "tools/x.py"]) writeFileSync(join(root, file), "x\n");
  writeFileSync(join(scratch, "outside.js"), "x\n");
  symlinkSync(join(scratch, "outside.js"), join(root, "link-out.js"));
  symlinkSync(join(root, "server.js"), join(root, "link-in.js"));
  const table: [object, string[]][] = [
    [{ command: "node", args: ["./server.js"] }, ["server.js"]],
    [{ command: "./bin/run.sh" }, ["bin/run.sh"]],
    [{ command: "node", args: ["-p", "process.version"], env: { NODE_OPTIONS: "--require ./hook.js --import=./preload.cjs" } }, ["hook.js", "preload.cjs"]],
    [{ command: "python3", args: ["x.py"], cwd: "tools" }, ["tools/x.py"]],
    [{ command: "node", args: ["../outside.js", join(scratch, "outside.js"), "link-out.js", "tools", "."] }, []],
    [{ command: "node", args: ["link-in.js"] }, ["server.js"]],
    [{ url: "https://mcp.example.com" }, []],
  ];
  expect(table.map(([server]) => [server, serverFiles(root, server as never)])).toEqual(table);
});
