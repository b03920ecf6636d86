/**
 * Secrets never reach the disk, through the built binary: a headless --yolo run reads a file full
 * of fake secrets, echoes one, is prompted with one and remembers one. The live turn carries the
 * real text to the provider; the state folder holds none of it; a `-c` resumed session sends the
 * placeholders. Bash's environment holds no provider key unless config `passEnv` names it.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { providerKeyVariables } from "../../lib/secrets/child-env.ts";
import { buildFakeSecrets, contextOf } from "../fixtures/fake-secrets.ts";
import { parseEventLines, toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();
const SECRETS = buildFakeSecrets(0xe2e);
const secretOf = (kind: string) => SECRETS.find((secret) => secret.kind === kind)!.value;
/** Every provider key variable set, SHIRO_API_KEY aside (the fake checks that one). */
const KEY_ENV = Object.fromEntries(
  providerKeyVariables()
    .filter((name) => name !== "SHIRO_API_KEY")
    .map((name) => [name, `env-value-of-${name}`]),
);

function stateFiles(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(path.slice(e2e.dirs.home.length + 1), readFileSync(path, "utf8"));
    }
  };
  walk(e2e.dirs.home);
  return files;
}

/** `kind in file` for every secret value found anywhere in `texts`. */
function leaks(texts: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of texts) {
    for (const secret of SECRETS) if (text.includes(secret.value)) found.push(`${secret.kind} in ${file}`);
  }
  return found;
}

const shiro = (args: string[], env: Record<string, string> = {}) => e2e.shiro(args, { protocol: "chat", env: { ...KEY_ENV, ...env } });

describe("secrets never reach the disk", () => {
  test("read, echoed, prompted and remembered secrets are stored as placeholders; the live turn saw them; -c sends placeholders", async () => {
    expect(new Set(SECRETS.map((secret) => secret.kind)).size).toBeGreaterThanOrEqual(10);
    writeFileSync(join(e2e.dirs.cwd, "dump.txt"), `${SECRETS.map(contextOf).join("\n")}\n`);
    // dump.txt holds a private key block, so reading it asks (docs/permissions.md): a rule naming it lets it through.
    e2e.writeConfig({ permission: { read_file: { "*": "allow", "dump.txt": "allow" } } });
    const github = secretOf("github-token");
    const stripe = secretOf("stripe-key");
    const jwt = secretOf("jwt");
    e2e.fake.script(
      {
        toolCalls: [
          { name: "read_file", input: { path: "dump.txt" } },
          { name: "bash", input: { command: "env" } },
          { name: "remember", input: { kind: "fact", text: `deploys use the token ${github}` } },
        ],
      },
      { text: `Done. The Stripe key there is ${stripe}.` },
    );
    const first = await shiro(["-p", `check the dump; the session token is ${jwt}`, "--yolo"]);
    expect(first.code).toBe(0);

    // The live turn: the provider got the real text back from read_file.
    const results = toolResultsOf(e2e.fake.requests[1]!);
    const read = results[0]!.output;
    // read_file numbers the lines, so a multi-line key shows line by line.
    expect(SECRETS.filter((secret) => secret.value.split("\n").some((line) => !read.includes(line))).map((secret) => secret.kind)).toEqual([]);
    expect(JSON.stringify(e2e.fake.requests[0]!.body)).toContain(jwt);

    // bash saw no provider key variable.
    const env = results[1]!.output;
    expect(env).toContain("SHIRO_HOME=");
    expect(providerKeyVariables().filter((name) => env.includes(`${name}=`))).toEqual([]);

    // remember told the model.
    expect(results[2]!.output).toBe(
      [
        "Remembered as fact (1 stored): deploys use the token &lt;redacted:github-token&gt;",
        'The note held a secret (github-token): it was saved as &lt;redacted:github-token&gt;, never the value itself. Notes must not hold secrets; say where the value lives instead (e.g. "the key is in .env as STRIPE_KEY").',
      ].join("\n"),
    );

    // Nothing in the state folder holds a secret; the session, the run and its events hold placeholders.
    const files = stateFiles();
    expect(leaks(files)).toEqual([]);
    const kinds = (text: string) => [...new Set(text.match(/<redacted:[a-z-]+>/g))].sort();
    const all = [...files.values()].join("\n");
    expect(kinds(all)).toEqual([...new Set(SECRETS.map((secret) => `<redacted:${secret.kind}>`))].sort());
    const byFolder = (folder: string) =>
      [...files]
        .filter(([name]) => name.startsWith(`.shiro-neko/${folder}/`))
        .map(([, text]) => text)
        .join("\n");
    for (const folder of ["sessions", "runs", "events", "memory"])
      expect({ folder, placeholders: kinds(byFolder(folder)).length > 0 }).toEqual({ folder, placeholders: true });
    expect(byFolder("runs")).toContain("the session token is <redacted:jwt>");
    // The session title is the prompt cut at 60 characters, inside the JWT: redacted before the cut, no prefix survives.
    expect([...files].filter(([, text]) => text.includes(jwt.slice(0, 12))).map(([name]) => name)).toEqual([]);
    expect(byFolder("sessions")).toContain('"title": "check the dump; the session token is <redacted:');

    // The resumed session sends the placeholders, never the values.
    e2e.fake.script({ text: "Resumed." });
    const second = await shiro(["-p", "go on", "-c"]);
    expect([second.code, second.stderr.includes("resumed session")]).toEqual([0, true]);
    const resumed = JSON.stringify(e2e.fake.requests[2]!.body);
    expect(SECRETS.filter((secret) => resumed.includes(JSON.stringify(secret.value).slice(1, -1))).map((secret) => secret.kind)).toEqual([]);
    expect(resumed).toContain("<redacted:github-token>");
    expect(resumed).toContain("The Stripe key there is <redacted:stripe-key>.");
    expect(resumed).toContain("the session token is <redacted:jwt>");
    expect(leaks(stateFiles())).toEqual([]);
  }, 60_000);

  test("a key where the run snapshot cuts the prompt (200 characters) leaves no prefix in any state file", async () => {
    const github = secretOf("github-token");
    e2e.fake.script({ text: "ok" });
    const run = await shiro(["-p", `${"please ".repeat(23)}use ${github} for the deploy`]);
    expect(run.code).toBe(0);
    const files = stateFiles();
    expect([...files].filter(([, text]) => text.includes(github.slice(0, 8))).map(([name]) => name)).toEqual([]);
    expect([...files].filter(([name]) => name.startsWith(".shiro-neko/runs/")).map(([, text]) => text.includes("<redacted:github-token>"))).toContain(true);
  }, 60_000);

  test("config passEnv lets the named key variable into bash, and only that one", async () => {
    e2e.writeConfig({ passEnv: ["OPENAI_API_KEY"] });
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "env" } }] }, { text: "ok" });
    const run = await shiro(["-p", "show env", "--yolo"]);
    expect(run.code).toBe(0);
    const env = toolResultsOf(e2e.fake.requests[1]!)[0]!.output;
    expect(providerKeyVariables().filter((name) => env.includes(`${name}=`))).toEqual(["OPENAI_API_KEY"]);
    expect(env).toContain("OPENAI_API_KEY=env-value-of-OPENAI_API_KEY");
  }, 60_000);

  test("a blocked call whose arguments held a secret is not run on resume with the placeholder", async () => {
    const key = secretOf("openai-key");
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "settings.txt", content: `key = ${key}\n` } }] }, { text: "Asked for the key again." });
    const blocked = await e2e.shiro(["-p", "save my key", "--approvals", "block", "--json"], { protocol: "chat" });
    expect(blocked.code).toBe(3);
    const block = parseEventLines(blocked.stdout).find((event) => event.type === "blocked")!;
    expect(leaks(stateFiles())).toEqual([]);
    expect((await e2e.shiro(["approve", String(block.approvalId)])).code).toBe(0);
    const resumed = await e2e.shiro(["runs", "resume", String(block.runId)], { protocol: "chat" });
    expect([resumed.code, resumed.stdout]).toEqual([0, "Asked for the key again.\n"]);
    expect(existsSync(join(e2e.dirs.cwd, "settings.txt"))).toBe(false);
    expect(toolResultsOf(e2e.fake.requests[1]!)[0]!.output).toBe(
      "Error: Not run: this call's arguments held a secret (openai-key), which shiro never saves, so while it waited for approval the value became <redacted:openai-key>. Get the value again from where it lives and repeat the call.",
    );
  }, 60_000);
});
