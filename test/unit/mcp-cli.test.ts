/** `shiro mcp list|add|remove` as a user runs them, with a temporary SHIRO_HOME. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SHIRO = join(import.meta.dir, "..", "..", "cmd", "shiro.ts");
const MEMORY_SERVER = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "shiro-mcp-cli-"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

async function shiro(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn({
    cmd: [process.execPath, SHIRO, ...args],
    cwd: home,
    env: { ...process.env, SHIRO_HOME: home },
    stdout: "pipe",
    stderr: "pipe",
    timeout: 25_000,
    killSignal: "SIGKILL",
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

const configPath = () => join(home, ".shiro-neko", "config.json");
const readConfig = () => JSON.parse(readFileSync(configPath(), "utf8"));

test("with nothing configured, list says so and how to add one", async () => {
  const hint = "add one with: shiro mcp add <name> --command <cmd> [--arg <arg>]…  or  shiro mcp add <name> --url <url>\n";
  expect(await shiro("mcp")).toEqual({ code: 0, stdout: `no MCP servers configured\n${hint}`, stderr: "" });
  expect(await shiro("mcp", "list", "--json")).toEqual({ code: 0, stdout: "[]\n", stderr: "" });
});

test("add a local and a remote server, list them (connecting), remove one", async () => {
  writeFileSync(join(home, "pid.js"), 'require("node:fs").appendFileSync(process.env.PID_FILE, `${process.pid}\\n`);\n');
  const pidFile = join(home, "memory.pid");
  const added = await shiro(
    "mcp",
    "add",
    "memory",
    "--command",
    process.execPath,
    "--arg=--preload",
    "--arg",
    join(home, "pid.js"),
    "--arg",
    MEMORY_SERVER,
    "--env",
    `MEMORY_FILE_PATH=${join(home, "graph.jsonl")}`,
    "--env",
    `PID_FILE=${pidFile}`,
  );
  const commandLine = `${process.execPath} --preload ${join(home, "pid.js")} ${MEMORY_SERVER}`;
  expect(added).toEqual({ code: 0, stdout: `added mcp server memory (${commandLine})\nsaved to ${configPath()}\n`, stderr: "" });

  expect(await shiro("mcp", "add", "docs", "--url", "http://127.0.0.1:9/mcp", "--type", "sse", "--header", "Authorization: Bearer abc")).toEqual({
    code: 0,
    stdout: `added mcp server docs (http://127.0.0.1:9/mcp)\nsaved to ${configPath()}\n`,
    stderr: "",
  });
  expect(readConfig()).toEqual({
    mcpServers: {
      memory: {
        command: process.execPath,
        args: ["--preload", join(home, "pid.js"), MEMORY_SERVER],
        env: { MEMORY_FILE_PATH: join(home, "graph.jsonl"), PID_FILE: pidFile },
      },
      docs: { url: "http://127.0.0.1:9/mcp", type: "sse", headers: { Authorization: "Bearer abc" } },
    },
  });

  const listed = await shiro("mcp", "list");
  expect([listed.code, listed.stderr]).toEqual([0, ""]);
  const lines = listed.stdout.split("\n");
  expect(lines.slice(0, 2)).toEqual(["- `memory` (local) - 9 tools", `  ${commandLine}`]);
  expect(lines[2]).toMatch(/^- `docs` \(remote\) - failed: SSE error: .*ECONNREFUSED/);
  expect(lines.slice(3)).toEqual(["  http://127.0.0.1:9/mcp", "", `configured in ${configPath()}`, ""]);
  // `list` started the server and closed it again before exiting.
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  expect(() => process.kill(pid, 0)).toThrow();

  const json = await shiro("mcp", "--json");
  const statuses = JSON.parse(json.stdout);
  expect(statuses[0]).toEqual({ name: "memory", kind: "local", target: commandLine, state: "connected", tools: 9 });
  expect(statuses[1]).toMatchObject({ name: "docs", kind: "remote", target: "http://127.0.0.1:9/mcp", state: "failed", tools: 0 });

  expect(await shiro("mcp", "remove", "memory")).toEqual({ code: 0, stdout: `removed mcp server memory\nsaved to ${configPath()}\n`, stderr: "" });
  expect(await shiro("mcp", "rm", "docs")).toEqual({ code: 0, stdout: `removed mcp server docs\nsaved to ${configPath()}\n`, stderr: "" });
  expect(readConfig()).toEqual({});
});

test("add keeps other settings and refuses bad names, duplicates and bad URLs", async () => {
  await shiro("config", "set", "model", "test-model");
  expect((await shiro("mcp", "add", "fs", "--command", "npx", "--arg=-y", "--arg", "@modelcontextprotocol/server-filesystem")).code).toBe(0);
  expect(readConfig()).toEqual({ model: "test-model", mcpServers: { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem"] } } });
  const before = readFileSync(configPath(), "utf8");

  const refusals: [string[], number, string][] = [
    [["fs", "--command", "npx"], 1, "shiro: fs is already configured\n"],
    [["my__fs", "--command", "npx"], 1, "shiro: double underscores clash with the mcp__server__tool naming\n"],
    [["my.fs", "--command", "npx"], 1, "shiro: use letters, digits, and hyphens only\n"],
    [["web", "--url", "ftp://example.com"], 2, "shiro: the URL must start with http:// or https:// (see shiro --help)\n"],
    [["web"], 2, "shiro: shiro mcp add needs --command <cmd> (a local server) or --url <url> (a remote one) (see shiro --help)\n"],
    [
      ["web", "--command", "npx", "--url", "http://127.0.0.1:9/"],
      2,
      "shiro: give either --command (a local server) or --url (a remote one), not both (see shiro --help)\n",
    ],
    [["web", "--command", "npx", "--header", "A: b"], 2, "shiro: --header and --type are for remote servers (--url) (see shiro --help)\n"],
    [["web", "--url", "http://127.0.0.1:9/", "--arg", "x"], 2, "shiro: --arg and --env are for local servers (--command) (see shiro --help)\n"],
    [["web", "--url", "http://127.0.0.1:9/", "--header", "no-colon"], 2, 'shiro: "no-colon" must look like "Name: value" (see shiro --help)\n'],
  ];
  for (const [args, code, stderr] of refusals) {
    expect({ args, ...(await shiro("mcp", "add", ...args)) }).toEqual({ args, code, stdout: "", stderr });
  }
  expect(await shiro("mcp", "remove", "nope")).toEqual({ code: 1, stdout: "", stderr: 'shiro: no MCP server named "nope"\n' });
  expect(readFileSync(configPath(), "utf8")).toBe(before);
});
