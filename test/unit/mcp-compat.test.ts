/** MCP entries as Claude Code, Claude Desktop, Cursor and Codex write them: expansion, timeouts, allow rules, `mcp add` forms. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expandVariables } from "../../lib/config/env-references.ts";
import { expandServer } from "../../lib/extensions/mcp/expand.ts";
import {
  connectTimeout,
  isPackageLauncher,
  rememberConnected,
  MCP_AFTER_SUCCESS_MS,
  MCP_FIRST_START_MS,
  headlessWait,
  MCP_INSTALL_CAP_MS,
  MCP_LAUNCHER_AFTER_SUCCESS_MS,
} from "../../lib/extensions/mcp/connect-timeout.ts";
import { configSchema } from "../../lib/config/config.ts";
import { alwaysAllowRules, offersTool } from "../../lib/extensions/mcp/servers.ts";
import { parseJson } from "../../lib/state-file/json-file.ts";
import { readServerEntry } from "../../lib/store/project-mcp.ts";

let dir: string;
const savedHome = process.env.SHIRO_HOME;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "shiro-mcp-compat-"));
  process.env.SHIRO_HOME = dir;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  if (savedHome === undefined) delete process.env.SHIRO_HOME;
  else process.env.SHIRO_HOME = savedHome;
});

test("variable references expand as Claude Code's .mcp.json defines them", () => {
  const env = { A: "a", EMPTY: "", PATHY: "/x y" };
  const table: [string, string][] = [
    ["${A}", "a"],
    ["pre-${A}-post", "pre-a-post"],
    ["${A:-d}", "a"],
    ["${EMPTY:-d}", "d"],
    ["${UNSET:-d}", "d"],
    ["${UNSET:-}", ""],
    ["${EMPTY}", ""],
    ["Bearer ${PATHY}", "Bearer /x y"],
    ["$A and $ {A}", "$A and $ {A}"],
    ["${A}${A}", "aa"],
    ["${env:A}", "a"],
    ["${env:UNSET:-d}", "d"],
  ];
  for (const [text, expected] of table) expect({ text, out: expandVariables(text, env) }).toEqual({ text, out: expected });
  expect(() => expandVariables("${UNSET}", env)).toThrow("environment variable UNSET is not set");
});

test("expansion reaches command, args, env, cwd, url and headers; Cursor's envFile joins env under it", () => {
  writeFileSync(join(dir, ".env"), '# comment\nexport FROM_FILE=1\nQUOTED="two words"\nSHARED=file\n');
  const env = { T: "tok", H: "/h" };
  expect(expandServer({ command: "${H}/bin", args: ["--k=${T}"], env: { K: "${T}", SHARED: "own" }, envFile: ".env", cwd: "${H}" }, env, dir)).toEqual({
    command: "/h/bin",
    args: ["--k=tok"],
    env: { FROM_FILE: "1", QUOTED: "two words", SHARED: "own", K: "tok" },
    envFile: ".env",
    cwd: "/h",
  });
  expect(expandServer({ type: "http", url: "https://${H:-x}.example/mcp", headers: { Authorization: "Bearer ${T}" } }, env, dir)).toEqual({
    type: "http",
    url: "https:///h.example/mcp",
    headers: { Authorization: "Bearer tok" },
  });
});

test("every field Claude Code, Claude Desktop, Cursor, Cline and Codex write is accepted", () => {
  const entries: unknown[] = [
    { type: "stdio", command: "npx", args: ["-y", "pkg"], env: { K: "v" } },
    { command: "npx", args: ["-y", "pkg"], disabled: false, alwaysAllow: ["read"], autoApprove: ["write"], timeout: 60 },
    { type: "http", url: "https://x.example/mcp", headers: { A: "b" } },
    { type: "sse", url: "${BASE}/sse" },
    { type: "streamable-http", url: "https://x.example/mcp" },
    { url: "https://x.example/mcp", startupTimeoutMs: 5000, description: "docs" },
    { command: "uvx", args: ["srv"], envFile: ".env", enabled: true, startup_timeout_sec: 30 },
    { command: "node", comment: "an unknown key is ignored in .mcp.json" },
  ];
  for (const entry of entries) expect({ entry, ok: typeof readServerEntry(entry) === "object" }).toEqual({ entry, ok: true });
  expect(readServerEntry({ command: "npx", alwaysAllow: "read" })).toBe("must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}");
});

test("a bare timeout, as each client writes it: Cline's seconds (its entries carry autoApprove; and any value under 1000), else ms (Gemini CLI); never cutting a first npx install", () => {
  // Cline's cline_mcp_settings.json entry, as Cline writes it.
  const cline = { command: "node", args: ["/path/to/server.js"], env: { API_KEY: "k" }, disabled: false, autoApprove: [], timeout: 60 };
  const cases: [string, Record<string, unknown>, number][] = [
    ["Cline, 60 s", cline, 60_000],
    ["Cline, its hour", { ...cline, timeout: 3600 }, 3_600_000],
    ["Cline without autoApprove", { command: "node", timeout: 60 }, 60_000],
    ["Gemini CLI's ms", { command: "node", timeout: 600_000 }, 600_000],
    ["ms as shiro always read them", { command: "node", timeout: 9000 }, 9000],
    ["0 is none: MCP_TIMEOUT decides", { command: "node", timeout: 0 }, 45_000],
    ["startupTimeoutMs wins", { ...cline, startupTimeoutMs: 5000 }, 5000],
    ["a timeout beats MCP_TIMEOUT", cline, 60_000],
  ];
  const seen = cases.map(([label, entry]) => [label, connectTimeout(`t-${label}`, entry as never, { MCP_TIMEOUT: "45000" }).ms]);
  expect(seen).toEqual(cases.map(([label, , ms]) => [label, ms]));
  const npx = { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], autoApprove: [], timeout: 60 };
  expect(connectTimeout("gh", npx)).toEqual({ ms: MCP_INSTALL_CAP_MS, first: true });
  rememberConnected("gh", npx, 9_000);
  expect(connectTimeout("gh", npx)).toEqual({ ms: 60_000, first: false });
});

test("connect timeouts: the entry's own, else long for a first start (longest through a package manager), shorter once it connected", () => {
  const npx = { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] };
  const node = { command: "node", args: ["server.js"] };
  expect(connectTimeout("m", npx)).toEqual({ ms: MCP_INSTALL_CAP_MS, first: true });
  expect(connectTimeout("n", node)).toEqual({ ms: MCP_FIRST_START_MS, first: true });
  rememberConnected("m", npx, 12_000);
  rememberConnected("n", node, 300);
  expect(connectTimeout("m", npx)).toEqual({ ms: MCP_LAUNCHER_AFTER_SUCCESS_MS, first: false });
  // Headless holds its first request only for servers known to start: twice the last connect plus 2 s, within the timeout.
  expect([headlessWait("m", npx), headlessWait("n", node), headlessWait("never", node)]).toEqual([26_000, 2_600, undefined]);
  rememberConnected("slowpoke", node, 20_000);
  expect(headlessWait("slowpoke", node)).toBe(MCP_AFTER_SUCCESS_MS);
  expect(connectTimeout("n", node)).toEqual({ ms: MCP_AFTER_SUCCESS_MS, first: false });
  // Another target under the same name is a first start again.
  expect(connectTimeout("n", { command: "node", args: ["other.js"] }).first).toBe(true);
  expect(connectTimeout("x", { ...node, startupTimeoutMs: 7000 }).ms).toBe(7000);
  expect(connectTimeout("x", { ...node, startup_timeout_sec: 2.5 }).ms).toBe(2500);
  expect(connectTimeout("x", { ...node, timeout: 9000 }).ms).toBe(9000);
  expect(connectTimeout("x", node, { MCP_TIMEOUT: "45000" }).ms).toBe(45_000);
  expect(connectTimeout("x", { ...node, startupTimeoutMs: 7000 }, { MCP_TIMEOUT: "45000" }).ms).toBe(7000);
  expect(connectTimeout("x", node, { MCP_TIMEOUT: "soon" }).ms).toBe(MCP_FIRST_START_MS);
  const launchers: [string, string[], boolean][] = [
    ["npx", ["-y", "x"], true],
    ["/usr/local/bin/bunx", ["x"], true],
    ["uvx", ["x"], true],
    ["pnpm", ["dlx", "x"], true],
    ["yarn", ["dlx", "x"], true],
    ["npx.cmd", ["x"], true],
    ["pnpm", ["start"], false],
    ["node", ["x.js"], false],
    ["python", ["-m", "x"], false],
  ];
  for (const [command, args, expected] of launchers)
    expect({ command, args, launcher: isPackageLauncher({ command, args }) }).toEqual({ command, args, launcher: expected });
});

test("alwaysAllow and autoApprove become allow entries for exactly those tools; disabled servers give none", () => {
  expect(
    alwaysAllowRules({
      fs: { command: "x", alwaysAllow: ["read_file", "list.dir"] },
      "brave.search": { command: "x", autoApprove: ["*"] },
      off: { command: "x", alwaysAllow: ["a"], disabled: true },
    }),
  ).toEqual({ mcp__fs__read_file: "allow", mcp__fs__list_dir: "allow", "mcp__brave_search__*": "allow" });
});

/**
 * The `mcpServers` examples of Gemini CLI's own documentation (docs/tools/mcp-server.md: the
 * configuration structure, then its example configurations), pasted unchanged.
 */
const GEMINI_DOCS_MCP_SERVERS = `{
  "mcpServers": {
    "serverName": {
      "command": "path/to/server",
      "args": ["--arg1", "value1"],
      "env": {
        "API_KEY": "$MY_API_TOKEN"
      },
      "cwd": "./server-directory",
      "timeout": 30000,
      "trust": false
    },
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": {
        "DATABASE_URL": "$DB_CONNECTION_STRING",
        "API_KEY": "\${EXTERNAL_API_KEY}"
      },
      "timeout": 15000
    },
    "nodeServer": {
      "command": "node",
      "args": ["dist/server.js", "--verbose"],
      "cwd": "./mcp-servers/node",
      "trust": true
    },
    "httpServer": {
      "httpUrl": "http://localhost:3000/mcp",
      "timeout": 5000
    },
    "httpServerWithAuth": {
      "httpUrl": "http://localhost:3000/mcp",
      "headers": {
        "Authorization": "Bearer your-api-token",
        "X-Custom-Header": "custom-value",
        "Content-Type": "application/json"
      },
      "timeout": 5000
    },
    "filteredServer": {
      "command": "python",
      "args": ["-m", "my_mcp_server"],
      "includeTools": ["safe_tool", "file_reader", "data_processor"],
      "excludeTools": ["dangerous_tool", "file_deleter"],
      "timeout": 30000
    }
  }
}`;

test("Gemini CLI's documented mcpServers load unchanged in config.json and .mcp.json: httpUrl is streamable HTTP, trust allows every tool, include/excludeTools filter", () => {
  const parsed = parseJson(GEMINI_DOCS_MCP_SERVERS, { schema: configSchema() });
  expect(parsed.status).toBe("ok");
  const servers = (parsed as { value: { mcpServers: Record<string, unknown> } }).value.mcpServers;
  expect(servers.httpServerWithAuth).toEqual({
    url: "http://localhost:3000/mcp",
    type: "http",
    headers: { Authorization: "Bearer your-api-token", "X-Custom-Header": "custom-value", "Content-Type": "application/json" },
    timeout: 5000,
  });
  expect(servers.httpServer).toEqual({ url: "http://localhost:3000/mcp", type: "http", timeout: 5000 });
  // The same entries in a project's .mcp.json.
  const raw = JSON.parse(GEMINI_DOCS_MCP_SERVERS).mcpServers as Record<string, unknown>;
  for (const [name, entry] of Object.entries(raw)) expect({ name, read: readServerEntry(entry) }).toEqual({ name, read: servers[name] as never });
  // trust: true is every tool of that server allowed; trust: false allows nothing.
  expect(alwaysAllowRules(servers as never)).toEqual({ "mcp__nodeServer__*": "allow" });
  const filtered = servers.filteredServer as never;
  expect(["safe_tool", "file_reader", "dangerous_tool", "other"].map((tool) => offersTool(filtered, tool))).toEqual([true, true, false, false]);
  expect(offersTool({ command: "x", excludeTools: ["a"], includeTools: ["a", "b"] }, "a")).toBe(false);
  expect(offersTool({ command: "x" }, "anything")).toBe(true);
});

test("a Gemini CLI entry that does not fit is refused with the one line naming the shapes", () => {
  const table: [unknown, string][] = [
    [{ httpUrl: "" }, "must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}"],
    [{ httpUrl: "http://x/mcp", trust: "yes" }, "must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}"],
    [{ command: "node", includeTools: "safe_tool" }, "must be {command, args?, env?, cwd?}, {url, type?, headers?} or {httpUrl, headers?}"],
  ];
  for (const [entry, message] of table) expect({ entry, message: readServerEntry(entry) }).toEqual({ entry, message });
});
