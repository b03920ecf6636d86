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
  expect(lines.slice(0, 3)).toEqual(["- `memory` (local) - 11 tools", `  ${commandLine}`, `  from ${configPath()}`]);
  expect(lines[3]).toMatch(/^- `docs` \(remote\) - failed: SSE error: .*ECONNREFUSED/);
  expect(lines.slice(4)).toEqual(["  http://127.0.0.1:9/mcp", `  from ${configPath()}`, ""]);
  // `list` started the server and closed it again before exiting.
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  expect(() => process.kill(pid, 0)).toThrow();

  const json = await shiro("mcp", "--json");
  expect(json.stderr).toBe("");
  const statuses = JSON.parse(json.stdout);
  expect(statuses[0]).toEqual({ name: "memory", kind: "local", target: commandLine, state: "connected", tools: 11, source: configPath() });
  expect(statuses[1]).toMatchObject({ name: "docs", kind: "remote", target: "http://127.0.0.1:9/mcp", state: "failed", tools: 0 });

  expect(await shiro("mcp", "remove", "memory")).toEqual({ code: 0, stdout: `removed mcp server memory\nsaved to ${configPath()}\n`, stderr: "" });
  expect(await shiro("mcp", "rm", "docs")).toEqual({ code: 0, stdout: `removed mcp server docs\nsaved to ${configPath()}\n`, stderr: "" });
  expect(readConfig()).toEqual({});
}, 30_000);

test("add keeps other settings and refuses bad names, duplicates and bad URLs", async () => {
  await shiro("config", "set", "model", "test-model");
  expect((await shiro("mcp", "add", "fs", "--command", "npx", "--arg=-y", "--arg", "@modelcontextprotocol/server-filesystem")).code).toBe(0);
  expect(readConfig()).toEqual({ model: "test-model", mcpServers: { fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem"] } } });
  const before = readFileSync(configPath(), "utf8");

  const refusals: [string[], number, string][] = [
    [["fs", "--command", "npx"], 1, "shiro: fs is already configured\n"],
    [["my__fs", "--command", "npx"], 1, "shiro: double underscores clash with the mcp__server__tool naming\n"],
    [["-fs", "--command", "npx"], 2, "shiro: unknown flag -fs (see shiro --help)\n"],
    [["my fs", "--command", "npx"], 1, "shiro: use letters, digits, underscores, dots and hyphens only\n"],
    [["web", "--transport", "ws", "http://127.0.0.1:9/"], 2, "shiro: --transport must be stdio, http or sse (got ws) (see shiro --help)\n"],
    [["web", "--scope", "global", "--", "npx"], 2, "shiro: --scope must be user, local or project (got global) (see shiro --help)\n"],
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
}, 30_000);

test("Claude Code's forms of add, add-json and get write the entries Claude Code would", async () => {
  const cases: [string[], string, Record<string, unknown>][] = [
    [["srv", "--", "node", "server.js", "--port", "1"], "srv", { command: "node", args: ["server.js", "--port", "1"] }],
    [
      ["-e", "API_KEY=abc", "--env=B=c d", "with_env", "--", "npx", "-y", "pkg"],
      "with_env",
      { command: "npx", args: ["-y", "pkg"], env: { API_KEY: "abc", B: "c d" } },
    ],
    [["--transport", "stdio", "air.table", "--", "npx", "-y", "airtable-mcp-server"], "air.table", { command: "npx", args: ["-y", "airtable-mcp-server"] }],
    [["--transport", "http", "notion", "https://mcp.notion.com/mcp"], "notion", { url: "https://mcp.notion.com/mcp" }],
    [
      ["-t", "sse", "asana", "https://mcp.asana.com/sse", "-H", "X-Api-Key: k1"],
      "asana",
      { url: "https://mcp.asana.com/sse", type: "sse", headers: { "X-Api-Key": "k1" } },
    ],
    [
      ["--header", "Authorization: Bearer ${TOKEN}", "gh", "https://api.githubcopilot.com/mcp/"],
      "gh",
      { url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: "Bearer ${TOKEN}" } },
    ],
    [["--scope", "user", "plain", "node"], "plain", { command: "node" }],
  ];
  for (const [args, name, entry] of cases) {
    const added = await shiro("mcp", "add", ...args);
    expect({ args, code: added.code, stderr: added.stderr }).toEqual({ args, code: 0, stderr: "" });
    expect({ args, entry: readConfig().mcpServers[name] }).toEqual({ args, entry });
  }

  const json = await shiro(
    "mcp",
    "add-json",
    "weather",
    '{"type":"stdio","command":"node","args":["w.js"],"env":{"K":"${K:-v}"},"alwaysAllow":["get"],"disabled":true}',
  );
  expect(json).toEqual({ code: 0, stdout: `added mcp server weather (node w.js)\nsaved to ${configPath()}\n`, stderr: "" });
  expect(readConfig().mcpServers.weather).toEqual({
    type: "stdio",
    command: "node",
    args: ["w.js"],
    env: { K: "${K:-v}" },
    alwaysAllow: ["get"],
    disabled: true,
  });
  expect(await shiro("mcp", "add-json", "bad", '{"command":""}')).toEqual({
    code: 1,
    stdout: "",
    stderr: "shiro: the server entry does not fit: command must not be empty\n",
  });

  const got = await shiro("mcp", "get", "weather", "--json");
  expect(JSON.parse(got.stdout)).toEqual({ name: "weather", source: configPath(), trusted: true, ...readConfig().mcpServers.weather });

  // --scope project writes the project's .mcp.json, which list then shows with its source.
  expect((await shiro("mcp", "add", "--scope", "project", "proj_srv", "--", "node", "x.js")).code).toBe(0);
  expect(JSON.parse(readFileSync(join(home, ".mcp.json"), "utf8"))).toEqual({ mcpServers: { proj_srv: { command: "node", args: ["x.js"] } } });
  const project = JSON.parse((await shiro("mcp", "get", "proj_srv", "--json")).stdout);
  expect(project).toEqual({ name: "proj_srv", source: join(home, ".mcp.json"), trusted: true, command: "node", args: ["x.js"] });
}, 30_000);

test("list shows a project's servers, trusted or not, with where each comes from, without starting untrusted or disabled ones", async () => {
  writeFileSync(join(home, ".mcp.json"), JSON.stringify({ mcpServers: { from_project: { type: "stdio", command: "/nonexistent/never-run" } } }));
  await shiro("mcp", "add-json", "off", '{"command":"/nonexistent/never-run","disabled":true}');
  const listed = await shiro("mcp", "list", "--json");
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([
    { name: "off", kind: "local", target: "/nonexistent/never-run", tools: 0, state: "closed", error: "disabled in its entry", source: configPath() },
    {
      name: "from_project",
      kind: "local",
      target: "/nonexistent/never-run",
      tools: 0,
      state: "closed",
      error: "not started: this folder's .mcp.json is not trusted (start shiro here once and answer y)",
      source: join(home, ".mcp.json"),
    },
  ]);
});
