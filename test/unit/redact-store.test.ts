/**
 * The redaction seam: what every state writer leaves on disk, what stays verbatim (config,
 * registry installs), the remember tool's answer, and the environment child processes get.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { writeConfigPatch } from "../../lib/config/config.ts";
import { createMcpHub } from "../../lib/extensions/mcp/hub.ts";
import { paths, stateDir } from "../../lib/platform/paths.ts";
import { presetKeyVariables } from "../../lib/providers/presets.ts";
import { childEnv, providerKeyVariables } from "../../lib/secrets/child-env.ts";
import { createPending } from "../../lib/store/approvals.ts";
import { appendHistory, loadHistory } from "../../lib/store/history.ts";
import { appendJsonLine, updateJsonSync, writeJsonAtomic, writeTextAtomic } from "../../lib/state-file/json-file.ts";
import { openMemory } from "../../lib/store/memory.ts";
import { createMemoryTools } from "../../lib/tools/memory-tools.ts";
import { bashTool } from "../../lib/tools/bash.ts";
import type { ToolContext } from "../../lib/tools/types.ts";
import { buildFakeSecrets, contextOf } from "../fixtures/fake-secrets.ts";
import { useTempHome } from "./temp-home.ts";

const home = useTempHome("shiro-redact-store-");
const SECRETS = buildFakeSecrets(0x51);
const ALL = SECRETS.map(contextOf).join("\n");
const jwt = SECRETS.find((secret) => secret.kind === "jwt")!.value;
const github = SECRETS.find((secret) => secret.kind === "github-token")!.value;

function stateText(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(readFileSync(path, "utf8"));
    }
  };
  walk(stateDir());
  return files.join("\n");
}

function leaked(text: string): string[] {
  return SECRETS.filter((secret) => text.includes(secret.value)).map((secret) => secret.kind);
}

describe("every json-file writer redacts", () => {
  test("atomic writes, appends, locked updates and text writes store placeholders; the caller's value is untouched", () => {
    const value = { messages: [{ role: "tool", output: ALL }] };
    writeJsonAtomic(join(stateDir(), "a.json"), value);
    appendJsonLine(join(stateDir(), "b.jsonl"), { type: "tool-result", output: ALL });
    updateJsonSync(join(stateDir(), "c.json"), { schema: v.unknown() }, () => ({ entries: [ALL] }));
    writeTextAtomic(join(stateDir(), "d.txt"), ALL);
    expect(value.messages[0]!.output).toBe(ALL);
    const text = stateText();
    expect(leaked(text)).toEqual([]);
    for (const kind of new Set(SECRETS.map((secret) => secret.kind))) expect(text).toContain(`<redacted:${kind}>`);
  });

  test("a growing session saved again and again: a secret added anywhere, even into a message already saved, is redacted", () => {
    const path = join(stateDir(), "session.json");
    const filler = "Ran the tests; 12 passed. ".repeat(40);
    const messages: { role: string; parts: { type: string; text: string }[] }[] = [];
    for (let step = 0; step < 5; step++) messages.push({ role: "assistant", parts: [{ type: "text", text: `${filler}${step}` }] });
    writeJsonAtomic(path, { messages });
    writeJsonAtomic(path, { messages });
    const places: ((secret: string) => void)[] = [
      (secret) => messages.push({ role: "tool", parts: [{ type: "text", text: secret }] }),
      (secret) => (messages[0]!.parts[0]!.text += ` ${secret}`),
      (secret) => messages[2]!.parts.push({ type: "text", text: secret }),
      (secret) => (messages[4]!.parts[0]!.text = `${filler}\n${secret}`),
    ];
    for (const [index, secret] of SECRETS.entries()) {
      places[index % places.length]!(contextOf(secret));
      writeJsonAtomic(path, { messages });
      expect(leaked(readFileSync(path, "utf8"))).toEqual([]);
    }
  });

  test("history and approvals go through it", () => {
    appendHistory(home.dir, `curl -H "Authorization: Bearer ${jwt}"`);
    createPending({
      id: "a1",
      runId: "r1",
      sessionId: "s1",
      callId: "c1",
      tool: "bash",
      input: { command: `gh auth login --with-token ${github}` },
      subjects: [`gh auth login --with-token ${github}`],
      cwd: home.dir,
      suggestedPattern: "gh *",
    });
    expect(loadHistory(home.dir)).toEqual(['curl -H "Authorization: Bearer <redacted:jwt>"']);
    expect(leaked(stateText())).toEqual([]);
    expect(readFileSync(paths.approvals(), "utf8")).toContain("gh auth login --with-token <redacted:github-token>");
  });

  test("config.json is the user's own: a key set there stays as written", () => {
    const key = SECRETS.find((secret) => secret.kind === "openai-key")!.value;
    writeConfigPatch({ apiKey: key, mcpServers: { s: { command: "srv", env: { GITHUB_TOKEN: github } } } });
    expect(JSON.parse(readFileSync(paths.config(), "utf8"))).toEqual({ apiKey: key, mcpServers: { s: { command: "srv", env: { GITHUB_TOKEN: github } } } });
  });
});

describe("remember", () => {
  test("a note holding a secret is stored with the placeholder and the model is told", async () => {
    const [remember] = createMemoryTools(openMemory(home.dir));
    const ctx: ToolContext = { root: home.dir, signal: new AbortController().signal, emitOutput: () => {}, callId: "call_1" };
    const answer = await remember!.execute({ kind: "fact", text: `deploy token is ${github}` }, ctx);
    expect(answer).toBe(
      [
        "Remembered as fact (1 stored): deploy token is &lt;redacted:github-token&gt;",
        'The note held a secret (github-token): it was saved as &lt;redacted:github-token&gt;, never the value itself. Notes must not hold secrets; say where the value lives instead (e.g. "the key is in .env as STRIPE_KEY").',
      ].join("\n"),
    );
    // Both lines spell the placeholder as the note's line does: escaped, as everything the model reads of a note.
    expect(answer.split("\n").map((line) => line.match(/&lt;redacted:[a-z-]+&gt;|<redacted:[a-z-]+>/g))).toEqual([
      ["&lt;redacted:github-token&gt;"],
      ["&lt;redacted:github-token&gt;"],
    ]);
    expect(
      openMemory(home.dir)
        .list()
        .map((entry) => entry.text),
    ).toEqual(["deploy token is <redacted:github-token>"]);
    expect(await remember!.execute({ kind: "fact", text: "the API lives under /v2" }, ctx)).toBe("Remembered as fact (2 stored): the API lives under /v2");
    expect(leaked(stateText())).toEqual([]);
  });
});

describe("child processes never see provider keys", () => {
  const keys = Object.fromEntries(providerKeyVariables().map((name) => [name, `value-of-${name}`]));

  test("every preset key variable and SHIRO_API_KEY are withheld; the rest passes", () => {
    expect(providerKeyVariables()).toEqual(["SHIRO_API_KEY", ...presetKeyVariables()]);
    expect(providerKeyVariables()).toContain("OPENAI_API_KEY");
    expect(childEnv([], { ...keys, PATH: "/bin", HOME: "/h", AWS_PROFILE: "dev" })).toEqual({ PATH: "/bin", HOME: "/h", AWS_PROFILE: "dev" });
  });

  test("passEnv lets the named ones through, and is read from config.json by default", () => {
    expect(childEnv(["OPENAI_API_KEY"], { ...keys, PATH: "/bin" })).toEqual({ PATH: "/bin", OPENAI_API_KEY: "value-of-OPENAI_API_KEY" });
    expect(childEnv(undefined, { ...keys })).toEqual({});
    writeConfigPatch({ passEnv: ["GROQ_API_KEY"] });
    expect(childEnv(undefined, { ...keys })).toEqual({ GROQ_API_KEY: "value-of-GROQ_API_KEY" });
  });

  test("a config.json rewritten in place with the same size and modification time is read again: a name taken out of passEnv is withheld", () => {
    // A file system with coarse timestamps gives two writes within its tick the same mtime; the inode and size may match too.
    writeConfigPatch({ passEnv: ["GROQ_API_KEY"] });
    const path = paths.config();
    const same = new Date(1_700_000_000_000);
    utimesSync(path, same, same);
    expect(childEnv(undefined, { ...keys })).toEqual({ GROQ_API_KEY: "value-of-GROQ_API_KEY" });
    const before = statSync(path);
    writeFileSync(path, readFileSync(path, "utf8").replace("GROQ_API_KEY", "NOT_A_KEY_VA"));
    utimesSync(path, same, same);
    const after = statSync(path);
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    expect(childEnv(undefined, { ...keys })).toEqual({});
  });

  test("a bash command's env has none of them", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, keys);
    try {
      const ctx: ToolContext = { root: home.dir, signal: new AbortController().signal, emitOutput: () => {}, callId: "call_1" };
      const output = await bashTool.execute({ command: "env" }, ctx);
      expect(output).toContain("SHIRO_HOME=");
      expect(providerKeyVariables().filter((name) => output.includes(`${name}=`))).toEqual([]);
    } finally {
      for (const name of Object.keys(keys)) if (saved[name] === undefined) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });
});

describe("MCP stdio servers never see provider keys", () => {
  const MEMORY_SERVER = require.resolve("@modelcontextprotocol/server-memory/dist/index.js");
  const keys = Object.fromEntries(providerKeyVariables().map((name) => [name, `value-of-${name}`]));

  test("only the keys passEnv or the server's own env name reach it", async () => {
    const preload = join(home.dir, "dump-env.js");
    const dump = join(home.dir, "env.json");
    writeFileSync(preload, `require("node:fs").writeFileSync(${JSON.stringify(dump)}, JSON.stringify(process.env));\n`);
    writeConfigPatch({ passEnv: ["GROQ_API_KEY"] });
    const saved = { ...process.env };
    Object.assign(process.env, keys);
    const hub = createMcpHub(
      {
        memory: {
          command: process.execPath,
          args: ["--preload", preload, MEMORY_SERVER],
          env: { XAI_API_KEY: "given-by-config", MEMORY_FILE_PATH: join(home.dir, "g.jsonl") },
        },
      },
      { cwd: home.dir, clientName: "shiro-test", clientVersion: "0.0.0", connectTimeoutMs: 20_000 },
    );
    try {
      hub.start();
      await hub.ready();
      expect(hub.status()[0]!.state).toBe("connected");
    } finally {
      await hub.close();
      for (const name of Object.keys(keys)) if (saved[name] === undefined) delete process.env[name];
      Object.assign(process.env, saved);
    }
    const env = JSON.parse(readFileSync(dump, "utf8")) as Record<string, string>;
    const seen = Object.fromEntries(
      providerKeyVariables()
        .filter((name) => name in env)
        .map((name) => [name, env[name]]),
    );
    expect(seen).toEqual({ GROQ_API_KEY: "value-of-GROQ_API_KEY", XAI_API_KEY: "given-by-config" });
  });
});
