/**
 * Material written for Claude Code, Codex and Cursor, used unchanged through the binary: a
 * user-level skill's files, instruction files, custom commands and gateways.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

function write(path: string, text: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  return path;
}

describe("skills", () => {
  test("a user-level skill (~/.claude/skills/x) names its folder, and its files are readable through the jail but not writable", async () => {
    const folder = join(e2e.dirs.home, ".claude", "skills", "pdf-tools");
    write(
      join(folder, "SKILL.md"),
      "---\nname: pdf-tools\ndescription: |-\n  Work with PDFs.\n  Read reference.md first.\n---\nSee reference.md beside this file.\n",
    );
    const reference = write(join(folder, "reference.md"), "The reference says: use pypdf.\n");
    e2e.fake.script(
      { toolCalls: [{ name: "skill", input: { name: "pdf-tools" } }] },
      { toolCalls: [{ name: "read_file", input: { path: reference } }] },
      { toolCalls: [{ name: "write_file", input: { path: reference, content: "overwritten" } }] },
      { text: "done" },
    );
    const result = await e2e.shiro(["-p", "use the pdf skill", "--yolo"]);
    expect(result.code).toBe(0);
    expect(JSON.stringify(e2e.fake.requests[0]!.body)).toContain("- pdf-tools: Work with PDFs. Read reference.md first.");
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toContain(`Skill folder: ${folder}`);
    expect(toolResultsOf(e2e.fake.requests[2]!).at(-1)!.output).toContain("The reference says: use pypdf.");
    expect(toolResultsOf(e2e.fake.requests[3]!).at(-1)!.output).toContain("Path escapes workspace");
    expect(readFileSync(reference, "utf8")).toBe("The reference says: use pypdf.\n");
  }, 30_000);
});

describe("instruction files", () => {
  test("a 30,000-character AGENTS.md with CLAUDE.md symlinked to it reaches the model whole and once; CLAUDE.md's @import is followed", async () => {
    const { symlinkSync } = await import("node:fs");
    const long = Array.from({ length: 600 }, (_, i) => `rule ${i}: ${"z".repeat(45)}`).join("\n");
    write(join(e2e.dirs.cwd, "AGENTS.md"), `${long}\nLAST RULE\n`);
    symlinkSync(join(e2e.dirs.cwd, "AGENTS.md"), join(e2e.dirs.cwd, "CLAUDE.md"));
    write(join(e2e.dirs.cwd, "CLAUDE.local.md"), "Local: see @docs/imported.md");
    write(join(e2e.dirs.cwd, "docs", "imported.md"), "IMPORTED TEXT");
    e2e.fake.script({ text: "ok" });
    expect((await e2e.shiro(["-p", "hi"])).code).toBe(0);
    const system = JSON.stringify(e2e.fake.requests[0]!.body);
    expect(system.split("rule 599: ").length).toBe(2);
    expect(system).toContain("LAST RULE");
    expect(system).toContain("--- docs/imported.md (imported by CLAUDE.local.md) ---\\nIMPORTED TEXT");
  }, 30_000);
});

describe("gateways and environment", () => {
  test("config headers for the provider in use go with every model request, variables expanded; they never go to another provider", async () => {
    e2e.writeConfig({
      headers: { openai: { "x-portkey-api-key": "${PORTKEY_API_KEY}", "x-portkey-provider": "${PORTKEY_PROVIDER:-openai}" }, anthropic: { "x-never": "sent" } },
    });
    e2e.fake.script({ toolCalls: [{ name: "todo_write", input: { todos: [] } }] }, { text: "ok" });
    const result = await e2e.shiro(["-p", "hi"], { env: { PORTKEY_API_KEY: "pk-123" } });
    expect(result.code).toBe(0);
    expect(
      e2e.fake.requests.map((request) => [request.headers["x-portkey-api-key"], request.headers["x-portkey-provider"], request.headers["x-never"]]),
    ).toEqual([
      ["pk-123", "openai", undefined],
      ["pk-123", "openai", undefined],
    ]);
    const missing = await e2e.shiro(["-p", "hi"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("headers.openai: environment variable PORTKEY_API_KEY is not set");
  }, 30_000);

  test("a gateway's html-message error body is shown as its text, on one line", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((_request, response) => {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ "html-message": "<b>Portkey:</b> invalid config\n&quot;x&quot;", status: "failure" }));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const port = (server.address() as { port: number }).port;
      const result = await e2e.shiro(["-p", "hi"], { env: { SHIRO_BASE_URL: `http://127.0.0.1:${port}/v1` } });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('Portkey: invalid config "x"');
      expect(result.stderr).not.toContain("html-message");
    } finally {
      server.close();
    }
  }, 30_000);

  test("OPENAI_BASE_URL / OPENAI_API_KEY and ANTHROPIC_BASE_URL / ANTHROPIC_AUTH_TOKEN / ANTHROPIC_API_KEY select the base URL and key, custom presets included", async () => {
    const cases: { env: Record<string, string>; protocol: "chat" | "anthropic"; auth: [string, string] }[] = [
      {
        env: { SHIRO_MODEL: "fake-model", SHIRO_PROVIDER: "custom-openai", OPENAI_BASE_URL: e2e.fake.baseURL, OPENAI_API_KEY: "sk-openai" },
        protocol: "chat",
        auth: ["authorization", "Bearer sk-openai"],
      },
      {
        env: { SHIRO_PROVIDER: "openai", OPENAI_BASE_URL: e2e.fake.baseURL, OPENAI_API_KEY: "sk-o2" },
        protocol: "chat",
        auth: ["authorization", "Bearer sk-o2"],
      },
      {
        env: { SHIRO_MODEL: "fake-model", SHIRO_PROVIDER: "custom-anthropic", ANTHROPIC_BASE_URL: e2e.fake.baseURL, ANTHROPIC_AUTH_TOKEN: "tok-1" },
        protocol: "anthropic",
        auth: ["authorization", "Bearer tok-1"],
      },
      {
        env: { SHIRO_PROVIDER: "anthropic", ANTHROPIC_BASE_URL: e2e.fake.baseURL, ANTHROPIC_AUTH_TOKEN: "tok-2", ANTHROPIC_API_KEY: "ak-wins" },
        protocol: "anthropic",
        auth: ["x-api-key", "ak-wins"],
      },
    ];
    for (const { env, protocol, auth } of cases) {
      e2e.fake.script({ text: "ok" });
      const before = e2e.fake.requests.length;
      const result = await e2e.shiro(["-p", "hi"], { protocol, env: { SHIRO_BASE_URL: "", SHIRO_API_KEY: "", ...env } });
      expect({ env, code: result.code, stderr: result.stderr.includes("Error") }).toEqual({ env, code: 0, stderr: false });
      const request = e2e.fake.requests[before]!;
      expect({ env, auth: request.headers[auth[0]] }).toEqual({ env, auth: auth[1] });
    }
  }, 60_000);
});
