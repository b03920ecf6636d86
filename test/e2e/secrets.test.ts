/**
 * Credential files never reach the model, through the built binary, headless: every request body
 * the fake provider received is searched for the files' contents after read_file, read_many_files,
 * grep, git_show (commit, REF:PATH), git_diff and git_blame called each of them. A permission
 * rule naming a file lets it through (the control that proves the search can find a leak).
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";

const e2e = useE2E();

/** Name → file content; every content carries a `k3y<N>Zq` marker that must never cross the wire. */
const CREDENTIALS: readonly string[] = [
  ".env",
  ".env.local",
  "config/.env.production",
  "prod.env",
  ".envrc",
  "id_rsa",
  "id_ed25519",
  "server.key",
  "tls/cert.pem",
  "store.p12",
  "cert.pfx",
  "app.keystore",
  "release.jks",
  ".npmrc",
  ".pypirc",
  ".netrc",
  ".pgpass",
  ".git-credentials",
  ".aws/credentials",
  ".aws/config",
  "gcp/service-account.json",
  "application_default_credentials.json",
  "credentials.json",
  ".kube/config",
  ".docker/config.json",
  ".azure/accessTokens.json",
  "secrets.yaml",
  ".yarnrc.yml",
  ".cargo/credentials.toml",
  ".config/gh/hosts.yml",
  ".env_prod",
  ".env-local",
  ".envs/.production/.django",
  ".my.cnf",
  ".s3cfg",
  ".vault-token",
  "auth.json",
  ".m2/settings.xml",
  "terraform.tfstate",
  "infra/terraform.tfstate.backup",
  ".dockercfg",
  ".htpasswd",
];
/** Innocent names, secret shapes: only the content classifier catches these. */
const SHAPED: readonly (readonly [string, string])[] = [
  ["deploy/notes.txt", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAk3y900Zq\n-----END OPENSSH PRIVATE KEY-----\n"],
  ["keys/gcp.json", '{ "type": "service_account", "private_key": "k3y901Zq" }\n'],
];
const MARKER = /k3y\d+Zq/;

function git(cwd: string, ...args: string[]): void {
  const run = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
    timeout: 20_000,
  });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
}

function seedWorkspace(cwd: string): string[] {
  const files: [string, string][] = [
    ...CREDENTIALS.map((name, i): [string, string] => [name, `TOKEN=k3y${i}Zq\n`]),
    ...SHAPED.map(([a, b]): [string, string] => [a, b]),
  ];
  for (const [name, content] of files) {
    mkdirSync(dirname(join(cwd, name)), { recursive: true });
    writeFileSync(join(cwd, name), content);
  }
  git(cwd, "init", "-q");
  git(cwd, "add", "-A", "-f");
  git(cwd, "commit", "-q", "-m", "seed");
  // Uncommitted edits, so git_diff has every file to show.
  for (const [name, content] of files) writeFileSync(join(cwd, name), `${content}TOKEN2=k3y${files.length}Zq\n`);
  return files.map(([name]) => name);
}

const calls = (names: readonly string[]) => [
  ...names.map((path) => ({ name: "read_file", input: { path } })),
  { name: "read_many_files", input: { files: names.slice(0, 20).map((path) => ({ path })) } },
  { name: "read_many_files", input: { files: names.slice(20).map((path) => ({ path })) } },
  { name: "grep", input: { pattern: "TOKEN|PRIVATE|private_key" } },
  { name: "grep", input: { pattern: "TOKEN", includeIgnored: true } },
  { name: "git_show", input: { ref: "HEAD" } },
  { name: "git_diff", input: {} },
  ...names.map((path) => ({ name: "git_show", input: { ref: `HEAD:${path}` } })),
  ...names.map((path) => ({ name: "git_blame", input: { path } })),
];

describe("credential files stay off the wire", () => {
  for (const yolo of [false, true]) {
    test(`${CREDENTIALS.length + SHAPED.length} files × read_file, read_many_files, grep, git_show, git_diff, git_blame${yolo ? " under --yolo" : ""}`, async () => {
      const names = seedWorkspace(e2e.dirs.cwd);
      const script = calls(names);
      e2e.fake.script({ toolCalls: script }, { text: "done" });
      const result = await e2e.shiro(["-p", "look around", ...(yolo ? ["--yolo"] : [])], { timeoutMs: 90_000 });
      expect(result.code).toBe(0);
      expect(e2e.fake.requests).toHaveLength(2);
      const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output);
      expect(outputs).toHaveLength(script.length);
      const leaks = outputs.map((output, i) => [JSON.stringify(script[i]), output] as const).filter(([, output]) => MARKER.test(output));
      expect(leaks).toEqual([]);
      expect(e2e.fake.requests.map((request) => JSON.stringify(request.body)).filter((body) => MARKER.test(body))).toEqual([]);
      // Each read was refused for what it is, not by accident.
      expect(outputs.slice(0, names.length).filter((output) => !output.includes("may hold secrets"))).toEqual([]);
      expect(outputs[names.length]).toContain("[skipped: it may hold secrets (an env file)");
      expect(outputs[names.length + 2]).toContain(`[skipped ${names.length} files that may hold secrets`);
      expect(outputs[names.length + 4]).toContain("[withheld: deploy/notes.txt may hold secrets (a private key)");
    }, 120_000);
  }

  test("a rule naming the file lets it through: the control for the search above", async () => {
    seedWorkspace(e2e.dirs.cwd);
    e2e.writeConfig({ permission: { read_file: { "*": "allow", ".env": "allow" } } });
    e2e.fake.script(
      {
        toolCalls: [
          { name: "read_file", input: { path: "./.env" } },
          { name: "read_file", input: { path: "id_rsa" } },
        ],
      },
      { text: "done" },
    );
    const result = await e2e.shiro(["-p", "read it"], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const [env, key] = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output);
    expect(env).toContain("k3y0Zq");
    expect(key).toContain("Denied: id_rsa may hold secrets (an SSH private key)");
  }, 90_000);
});

describe("path rules match what a path means", () => {
  test('"secrets/*": "deny" refuses ./, a/../, absolute, // and trailing-/ spellings in read_file, read_many_files, grep and git_show, and grep\'s own finds', async () => {
    const cwd = e2e.dirs.cwd;
    mkdirSync(join(cwd, "secrets"), { recursive: true });
    mkdirSync(join(cwd, "x"), { recursive: true });
    writeFileSync(join(cwd, "secrets", "a.txt"), "hidden-v4lue\n");
    git(cwd, "init", "-q");
    git(cwd, "add", "-A");
    git(cwd, "commit", "-q", "-m", "seed");
    const rule = { "*": "allow", "secrets/*": "deny" };
    e2e.writeConfig({ permission: { read_file: rule, read_many_files: rule, grep: rule, git_show: rule } });
    const spellings = ["./secrets/a.txt", "x/../secrets/a.txt", `${cwd}/secrets/a.txt`, "secrets//a.txt", "secrets/a.txt/"];
    const script = [
      ...spellings.map((path) => ({ name: "read_file", input: { path } })),
      ...spellings.map((path) => ({ name: "read_many_files", input: { files: [{ path }] } })),
      { name: "grep", input: { pattern: "hidden", include: "./secrets/*" } },
      ...spellings.map((path) => ({ name: "git_show", input: { ref: `HEAD:${path.startsWith("/") ? path.slice(cwd.length + 1) : path}` } })),
    ];
    // A grep over the whole workspace finds the file itself: its hits meet the same rule.
    const searchAll = { name: "grep", input: { pattern: "hidden" } };
    e2e.fake.script({ toolCalls: [...script, searchAll] }, { text: "done" });
    const result = await e2e.shiro(["-p", "read", "--yolo"], { timeoutMs: 60_000 });
    expect(result.code).toBe(0);
    const outputs = toolResultsOf(e2e.fake.requests[1]!).map((r) => r.output.replace(/^Error: /, ""));
    expect(outputs).toEqual([...script.map((call) => `Refused by the permission rule ${call.name}: "secrets/*" = deny.`), "No matches."]);
    expect(e2e.fake.requests.map((request) => JSON.stringify(request.body)).filter((body) => body.includes("hidden-v4lue"))).toEqual([]);
  }, 90_000);
});
