/**
 * Bash permission rules through the real gate and the real bash tool's subjects: a rule matches
 * what the command means, whatever its spelling (no plugins, so only the rules decide).
 */
import { describe, expect, test } from "bun:test";
import { createGate, denyAll } from "../../lib/extensions/gate.ts";
import { parsePermissionRules } from "../../lib/approval/rules.ts";
import { createPluginHost } from "../../lib/extensions/plugin-host.ts";
import { bashTool } from "../../lib/tools/bash.ts";

const gateFor = (config: unknown, yolo = true) => {
  const gate = createGate({
    rules: parsePermissionRules(config),
    plugins: createPluginHost({ cwd: "/ws", writeStderr: () => {}, enabled: [] }),
    yolo,
    headless: !yolo,
    decide: denyAll,
  });
  let n = 0;
  return (command: string) => gate.check({ callId: `c${++n}`, tool: bashTool, name: "bash", input: { command }, cwd: "/ws" });
};

const PUSH_SPELLINGS = [
  "git push",
  "git push origin main",
  "/usr/bin/git push",
  "env X=1 git  push",
  "X=1 git push",
  "timeout 5 git push",
  "true && git push",
  "echo $(git push)",
  "echo `git push`",
  "(git push)",
  "{ git push; }",
  "nohup git push &",
  "command git push",
  "echo x | xargs git push",
  "git -C repo push",
  "git --no-pager push --tags",
  "g''it pu\"sh\"",
  "\\git push",
  "sudo git push",
  "bash -c 'git push'",
  "eval 'git push'",
  "make && git push || echo failed",
  "for i in 1; do git push; done",
  "if true; then git push; fi",
  "git push 2>&1 | tail -1",
  "f() { git push; }; f",
  "x=$(git push)",
  "cat <(git push)",
  "find . -maxdepth 0 -exec git push \\;",
  "sh <<EOF\ngit push\nEOF",
];
const PUSH_NEAR_MISSES = ["git status", "git pull", "echo git push", "git log --grep push", "gitk push", "git commit -m 'git push'"];

describe("a bash deny rule matches every spelling, under --yolo", () => {
  const check = gateFor({ bash: { "*": "allow", "git push*": "deny" } });
  for (const command of PUSH_SPELLINGS) {
    test(JSON.stringify(command), async () => {
      expect(await check(command)).toEqual({ allowed: false, by: "rule", reason: 'Refused by the permission rule bash: "git push*" = deny.' });
    });
  }
  for (const command of PUSH_NEAR_MISSES) {
    test(`near miss ${JSON.stringify(command)} is allowed`, async () => expect(await check(command)).toEqual({ allowed: true }));
  }
});

describe("an allow rule covers a line only when it covers every simple command in it", () => {
  const check = gateFor({ bash: { "*": "ask", "npm test*": "allow", "git status*": "allow" } }, false);
  // [command, allowed without asking]
  const TABLE: [string, boolean][] = [
    ["npm test", true],
    ["CI=1 npm test", true],
    ["timeout 60 npm test -- --watch=false", true],
    ["/usr/local/bin/npm test", true],
    ["npm test && git status", true],
    ["npm test; rm -rf x", false],
    ["npm test | sh", false],
    ["npm test $(rm x)", false],
    ["git status && curl x", false],
    ["bash -c 'npm test; rm x'", false],
    ["sudo npm test", false],
  ];
  for (const [command, allowed] of TABLE) {
    test(JSON.stringify(command), async () => expect((await check(command)).allowed).toBe(allowed));
  }
});

test("a wrapper rule still matches its own line: sudo * = deny refuses sudo whatever it runs", async () => {
  const check = gateFor({ bash: { "*": "allow", "sudo *": "deny" } });
  expect(await check("sudo -u root ls")).toEqual({ allowed: false, by: "rule", reason: 'Refused by the permission rule bash: "sudo *" = deny.' });
  expect(await check("cd x && /usr/bin/sudo ls")).toMatchObject({ allowed: false, by: "rule" });
  expect(await check("ls")).toEqual({ allowed: true });
});

test("a bash question carries the command as written for display, and its lines as subjects", async () => {
  const asked: { subject: string; subjects: string[]; suggestedPattern: string }[] = [];
  const gate = createGate({
    rules: parsePermissionRules({}),
    plugins: createPluginHost({ cwd: "/ws", writeStderr: () => {}, enabled: [] }),
    yolo: false,
    decide: async (request) => {
      asked.push({ subject: request.subject, subjects: request.subjects, suggestedPattern: request.suggestedPattern });
      return "deny";
    },
  });
  await gate.check({ callId: "c1", tool: bashTool, name: "bash", input: { command: "CI=1  npm test && echo $(git log -1)" }, cwd: "/ws" });
  expect(asked).toEqual([
    {
      subject: "CI=1 npm test && echo $(git log -1)",
      subjects: ["npm test", "echo $(git log -1)", "git log -1"],
      suggestedPattern: "npm *",
    },
  ]);
});

describe("an always grant never covers a path the classifier flags", () => {
  const COVERED = ["cat README.md", "cat docs/a.md src/b.ts", "cat -n notes.txt", "cat .env.example"];
  const FLAGGED = [
    "cat .env",
    "cat ./config/.env.production",
    "cat ~/.ssh/id_rsa",
    "cat /home/u/.aws/credentials",
    "cat $HOME/.netrc",
    "cat '.npmrc'",
    'cat "id_ed25519"',
    "cat --file=server.key",
    "cat *.env",
    "cat a.md .git-credentials",
    "cat /home/u/.shiro-neko/config.json",
  ];

  test(`"a" for cat README.md covers ${COVERED.length} reads and asks again for ${FLAGGED.length} secrets`, async () => {
    const asked: string[] = [];
    const gate = createGate({
      rules: parsePermissionRules(undefined),
      plugins: createPluginHost({ cwd: "/ws", writeStderr: () => {}, enabled: [] }),
      yolo: false,
      // cat README.md is read-only and would run unasked: the grant under test needs the question.
      allowReadOnly: false,
      decide: async (request) => {
        asked.push(request.secret ? `${request.subject} [${request.secret.path}]` : request.subject);
        return asked.length === 1 ? "always" : "deny";
      },
    });
    let n = 0;
    const run = (command: string) => gate.check({ callId: `c${++n}`, tool: bashTool, name: "bash", input: { command }, cwd: "/ws" });
    expect((await run("cat README.md")).allowed).toBe(true);
    for (const command of COVERED) expect([command, (await run(command)).allowed]).toEqual([command, true]);
    for (const command of FLAGGED) expect([command, (await run(command)).allowed]).toEqual([command, false]);
    expect(asked.slice(1).map((line) => line.replace(/ \[.*\]$/, ""))).toEqual(FLAGGED);
    expect(asked.slice(1).every((line) => line.endsWith("]"))).toBe(true);
    expect(gate.grants.list()).toEqual([{ tool: "bash", pattern: "cat *" }]);
  });
});
