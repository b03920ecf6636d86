/**
 * Escapes from the sandbox through git (issue 20), replayed through the built binary, each by
 * both routes:
 *
 * 1. The plant lands (bash under `--no-sandbox`, as with the sandbox off), then shiro's own git
 *    tools (status, diff, staged diff, show, show REF:PATH, log, blame, branch, commit message)
 *    and `remember` (note provenance runs `git rev-parse HEAD`) run in the same
 *    session: the payload must not run. Then the user's own git runs once as the control, and
 *    there the payload does run, so the plant was real.
 * 2. The same plant is tried by a sandboxed bash command (`--yolo`, the default sandbox): the
 *    protected files are byte-identical afterwards, and the user's own later git (status, diff,
 *    commit, in the repository, its nested repository and its submodule) runs no payload.
 *
 * The payload appends to a canary file outside the workspace and connects to a TCP listener on
 * 127.0.0.1 that the test runs: both must stay untouched.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolResultsOf, useE2E } from "./_harness.ts";
import { sandboxTest } from "../unit/sandbox-required.ts";

const e2e = useE2E();

interface Fixture {
  ws: string;
  payload: string;
  canary: string;
  env: Record<string, string>;
}

/** The user's git, with an identity of the test's own and no host config. */
function userGit(fx: Fixture, cwd: string, args: string[]): void {
  spawnSync("git", args, { cwd, env: fx.env, stdio: "ignore", timeout: 15_000 });
}

function setupGit(fx: Fixture, cwd: string, args: string[]): void {
  const run = spawnSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, env: fx.env, encoding: "utf8", timeout: 15_000 });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
}

/** The user's git config of a fixture: an identity, no signing, `main`. */
function writeUserConfig(home: string): Record<string, string> {
  const globalConfig = join(home, "user.gitconfig");
  writeFileSync(globalConfig, "[user]\n\tname = Test\n\temail = test@example.com\n[commit]\n\tgpgsign = false\n[init]\n\tdefaultBranch = main\n");
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GIT_CONFIG_GLOBAL: globalConfig, GIT_CONFIG_NOSYSTEM: "1" };
}

/**
 * The repositories every test starts from, made once for the file and copied into each test's
 * workspace: a repository with a submodule `mod` (its source beside the template), a nested
 * repository `sub`, a staged change to a.txt and unstaged ones to b.txt and mod/m.txt.
 */
let template: string | undefined;
afterAll(() => {
  if (template) rmSync(template, { recursive: true, force: true });
});

function templateWorkspace(): string {
  if (template) return join(template, "ws");
  template = mkdtempSync(join(tmpdir(), "shiro-e2e-git-escape-"));
  const fx: Fixture = { ws: join(template, "ws"), payload: "", canary: "", env: writeUserConfig(template) };
  const inner = join(template, "inner");
  mkdirSync(inner);
  setupGit(fx, inner, ["init", "-q"]);
  writeFileSync(join(inner, "m.txt"), "module\n");
  setupGit(fx, inner, ["add", "."]);
  setupGit(fx, inner, ["commit", "-q", "-m", "inner"]);
  const ws = fx.ws;
  mkdirSync(ws);
  setupGit(fx, ws, ["init", "-q"]);
  writeFileSync(join(ws, "a.txt"), "one\n");
  writeFileSync(join(ws, "b.txt"), "bee\n");
  setupGit(fx, ws, ["add", "."]);
  setupGit(fx, ws, ["commit", "-q", "-m", "first"]);
  setupGit(fx, ws, ["submodule", "add", "-q", inner, "mod"]);
  setupGit(fx, ws, ["commit", "-q", "-m", "add mod"]);
  mkdirSync(join(ws, "sub"));
  setupGit(fx, join(ws, "sub"), ["init", "-q"]);
  writeFileSync(join(ws, "sub", "s.txt"), "nested\n");
  setupGit(fx, join(ws, "sub"), ["add", "."]);
  writeFileSync(join(ws, "a.txt"), "one\ntwo\n");
  setupGit(fx, ws, ["add", "a.txt"]);
  writeFileSync(join(ws, "b.txt"), "bee\nsting\n");
  writeFileSync(join(ws, "mod", "m.txt"), "module changed\n");
  return ws;
}

/** The template's repositories in the test's workspace; the payload and the canary beside the state folder. */
function makeFixture(port: number): Fixture {
  const home = e2e.dirs.home;
  const canary = join(home, "canary");
  const payload = join(home, "payload.sh");
  writeFileSync(
    payload,
    `#!/bin/bash\necho "$0 $*" >> ${canary}\n(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null\nif [ -f "$1" ]; then cat "$1"; elif [ ! -t 0 ]; then cat; fi\nexit 0\n`,
  );
  chmodSync(payload, 0o755);
  cpSync(templateWorkspace(), e2e.dirs.cwd, { recursive: true });
  return { ws: e2e.dirs.cwd, payload, canary, env: writeUserConfig(home) };
}

/** What the user runs later, outside shiro and outside the sandbox. */
function userRunsGit(fx: Fixture): void {
  for (const dir of [fx.ws, join(fx.ws, "sub"), join(fx.ws, "mod")]) {
    userGit(fx, dir, ["status"]);
    userGit(fx, dir, ["diff"]);
    userGit(fx, dir, ["diff", "--cached"]);
    userGit(fx, dir, ["commit", "-q", "--allow-empty", "-m", "later"]);
  }
}

interface Escape {
  name: string;
  /** The plant, as one bash command; `P` stands for the payload's path. */
  plant: string;
  /** Prepares the fixture before shiro runs. */
  before?: (fx: Fixture) => void;
  /** Route 1: a tool result says this (the runner refused the planted pointer). */
  refusal?: string;
  /** Route 2: the bash result says this (shiro took the plant away after the command). */
  removed?: string;
}

const ESCAPES: Escape[] = [
  {
    name: "commondir redirect to a copy with textconv, filter.clean and core.fsmonitor",
    plant: [
      "cp -r .git planted",
      "git --git-dir=planted config core.fsmonitor P",
      "git --git-dir=planted config filter.x.clean P",
      "git --git-dir=planted config diff.x.textconv P",
      "echo ../planted > .git/commondir",
      "printf '*.txt filter=x diff=x\\n' > .git/info/attributes",
    ].join(" && "),
    refusal: "commondir sends git to",
    removed: "sandbox: removed ",
  },
  { name: "diff.<x>.textconv", plant: "printf '*.txt diff=x\\n' > .gitattributes && git config diff.x.textconv P" },
  { name: "filter.<x>.clean", plant: "printf '*.txt filter=x\\n' > .gitattributes && git config filter.x.clean P" },
  { name: "core.fsmonitor", plant: "git config core.fsmonitor P" },
  {
    name: "renaming .git and writing a fresh config",
    plant: "mv .git .git-old && cp -r .git-old .git && printf '[core]\\n\\tfsmonitor = P\\n' >> .git/config",
  },
  { name: "nested repository", plant: "git -C sub config core.fsmonitor P" },
  { name: "submodule git dir", plant: "git --git-dir=.git/modules/mod config core.fsmonitor P" },
  {
    name: "a gitdir: file",
    plant: "mv .git planted-git && git --git-dir=planted-git config core.fsmonitor P && printf 'gitdir: planted-git\\n' > .git",
    refusal: "a folder inside the workspace that commands can write",
  },
  {
    name: "a repository that had no hooks folder",
    before: (fx) => rmSync(join(fx.ws, ".git", "hooks"), { recursive: true, force: true }),
    plant: "mkdir -p .git/hooks && printf '#!/bin/sh\\nP\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
  },
];

const bash = (command: string) => ({ toolCalls: [{ name: "bash", input: { command } }] });
const call = (name: string, input: Record<string, unknown> = {}) => ({ name, input });

async function withListener(body: (port: number, connections: () => number) => Promise<void>): Promise<void> {
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  try {
    await body((server.address() as { port: number }).port, () => count);
  } finally {
    await new Promise<void>((done) => server.close(() => done()));
  }
}

/** Every file of the protected git paths with its bytes (hooks listed by name), to compare before and after. */
function snapshot(ws: string): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (path: string) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) for (const name of readdirSync(path).sort()) add(join(path, name));
    else out[path.slice(ws.length + 1)] = readFileSync(path, "latin1");
  };
  for (const path of [".git/config", ".git/hooks", ".git/info", ".git/HEAD", "sub/.git/config", "sub/.git/hooks", ".git/modules/mod/config", "mod/.git"])
    add(join(ws, path));
  out[".git is"] = statSync(join(ws, ".git")).isDirectory() ? "a folder" : "not a folder";
  out[".git/commondir"] = existsSync(join(ws, ".git", "commondir")) ? "present" : "absent";
  return out;
}

function canaryText(fx: Fixture): string {
  return existsSync(fx.canary) ? readFileSync(fx.canary, "utf8") : "";
}

describe("route 1: the plant lands, then shiro's own git tools and remember run", () => {
  for (const escape of ESCAPES) {
    test(escape.name, async () => {
      await withListener(async (port, connections) => {
        const fx = makeFixture(port);
        escape.before?.(fx);
        e2e.fake.script(
          bash(escape.plant.replaceAll("P", fx.payload)),
          {
            toolCalls: [
              call("git_status"),
              call("git_diff"),
              call("git_diff", { staged: true }),
              call("git_show", { ref: "HEAD" }),
              call("git_show", { ref: "HEAD:./b.txt" }),
              call("git_log"),
              call("git_blame", { path: "b.txt" }),
              call("git_branch"),
              call("read_file", { path: "b.txt" }),
            ],
          },
          { toolCalls: [call("git_commit_message")] },
          // git_commit_message asks the model once, unless the runner refused the repository.
          ...(escape.refusal ? [] : [{ text: "Add two to a.txt" }]),
          { toolCalls: [call("remember", { kind: "fact", text: "b.txt and a.txt hold the fixture's words" })] },
          { text: "done" },
        );
        const result = await e2e.shiro(["-p", "look at the repository", "--yolo", "--no-sandbox"], { timeoutMs: 60_000 });
        expect(result.code).toBe(0);
        const results = e2e.fake.requests.flatMap((request) => toolResultsOf(request).map((r) => r.output));
        expect(results[0]).toStartWith("exit: 0");
        expect({ canary: canaryText(fx), connections: connections() }).toEqual({ canary: "", connections: 0 });
        // Note provenance ran git through the runner: a commit is recorded unless the runner refused the repository.
        const memory = join(e2e.dirs.home, ".shiro-neko", "memory");
        const notes = readdirSync(memory).filter((name) => /^[0-9a-f]{16}\.json$/.test(name));
        const sources = notes.flatMap((name) => JSON.parse(readFileSync(join(memory, name), "utf8")).entries.map((entry: any) => entry.source));
        expect(sources.map((source: any) => typeof source?.commit)).toEqual([escape.refusal ? "undefined" : "string"]);
        if (escape.refusal) expect(results.some((output) => output.includes(escape.refusal!))).toBe(true);
        else expect(results.some((output) => output.includes("+sting"))).toBe(true);
        // The control: the user's own git runs the plant.
        userRunsGit(fx);
        expect(canaryText(fx)).not.toBe("");
      });
    }, 90_000);
  }
});

describe("route 2: a sandboxed command tries the plant", () => {
  for (const escape of ESCAPES) {
    sandboxTest(
      escape.name,
      async () => {
        await withListener(async (port, connections) => {
          const fx = makeFixture(port);
          escape.before?.(fx);
          const before = snapshot(fx.ws);
          e2e.fake.script(bash(escape.plant.replaceAll("P", fx.payload)), { toolCalls: [call("git_status"), call("git_diff")] }, { text: "done" });
          const result = await e2e.shiro(["-p", "plant", "--yolo"], { timeoutMs: 60_000 });
          expect(result.code).toBe(0);
          expect(snapshot(fx.ws)).toEqual(before);
          if (escape.removed) expect(toolResultsOf(e2e.fake.requests.at(-1)!)[0]!.output).toContain(`${escape.removed}${join(fx.ws, ".git", "commondir")}`);
          userRunsGit(fx);
          expect({ canary: canaryText(fx), connections: connections() }).toEqual({ canary: "", connections: 0 });
        });
      },
      90_000,
    );
  }

  sandboxTest(
    "a workspace without .git: a command that makes one with a hook and a fsmonitor is reported, and the next command cannot change them",
    async () => {
      const hook = ".git/hooks/pre-commit";
      e2e.fake.script(
        bash(`git init -q && git config core.fsmonitor /bin/true && printf '#!/bin/sh\\ntrue\\n' > ${hook} && chmod +x ${hook}`),
        bash(`git config core.fsmonitor /bin/false; echo more >> ${hook}; mv .git .git-old`),
        { text: "done" },
      );
      const result = await e2e.shiro(["-p", "make a repository", "--yolo"], { timeoutMs: 60_000 });
      expect(result.code).toBe(0);
      const [made, changed] = toolResultsOf(e2e.fake.requests.at(-1)!).map((r) => r.output);
      const top = join(e2e.dirs.cwd, ".git");
      expect(made).toBe(
        `exit: 0\n\n(no output)\n\nsandbox: ${top} was created in this session and holds hooks (pre-commit) and config that runs programs (core.fsmonitor): your own git would run them there (shiro's git tools do not); check them before using git in this folder.`,
      );
      expect(changed).toContain("Read-only file system");
      expect(changed).toContain("Device or resource busy");
      expect(readFileSync(join(e2e.dirs.cwd, hook), "utf8")).toBe("#!/bin/sh\ntrue\n");
      expect(readFileSync(join(top, "config"), "utf8")).toContain("fsmonitor = /bin/true");
    },
    60_000,
  );

  sandboxTest(
    "git itself still works in the sandbox: commit, branch, checkout",
    async () => {
      await withListener(async (port) => {
        makeFixture(port);
        const commit = "git -c user.name=t -c user.email=t@example.com commit -q -m second && git branch topic && git checkout -q topic";
        e2e.fake.script(bash(`${commit} && git log --format=%s | head -1`), { text: "done" });
        const result = await e2e.shiro(["-p", "commit", "--yolo"], { timeoutMs: 60_000 });
        expect(result.code).toBe(0);
        expect(toolResultsOf(e2e.fake.requests.at(-1)!).map((r) => r.output)).toEqual(["exit: 0\n\nstdout:\nsecond"]);
      });
    },
    60_000,
  );
});
