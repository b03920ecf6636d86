/**
 * Checkpoints through the binary: each kind of change a turn can make (every file tool, and bash
 * rm, mv, cp, chmod, mkdir, rmdir, truncate, redirects, binary bytes, symlinks, names with spaces
 * and non-ASCII letters) is taken back by `shiro rewind <id> --yes` to the byte and the mode; a
 * file changed by hand since is refused (exit 1, named, nothing changed) unless --force; and the
 * user's own git repository (staged changes, a stash, HEAD) is never touched.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEventLines, useE2E } from "./_harness.ts";
import { treeState } from "./_tree-state.ts";
import type { FakeToolCall } from "../fakes/provider.ts";

const e2e = useE2E();

function seed(cwd: string): void {
  const files: Record<string, string | Buffer> = {
    "keep.txt": "keep\n",
    "edit.txt": "one\ntwo\nthree\n",
    "patch.txt": "alpha\nbeta\n",
    "del.txt": "delete me\n",
    "bin.dat": Buffer.from([0, 1, 2, 255, 254, 10, 0]),
    "script.sh": "#!/bin/sh\necho hi\n",
    "private.txt": "private\n",
    "dir with space/ü ñ.txt": "unicode\n",
    "old/inner.txt": "inner\n",
    ".env": "TOKEN=abc123\n",
    "locked/f.txt": "in a folder with its own bits\n",
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(cwd, path, ".."), { recursive: true });
    writeFileSync(join(cwd, path), content);
  }
  chmodSync(join(cwd, "private.txt"), 0o640);
  chmodSync(join(cwd, "locked"), 0o750);
  mkdirSync(join(cwd, "empty"));
  symlinkSync("keep.txt", join(cwd, "link"));
}

const bash = (command: string): FakeToolCall => ({ name: "bash", input: { command } });

const CHANGES: { kind: string; calls: FakeToolCall[] }[] = [
  { kind: "write_file creates", calls: [{ name: "write_file", input: { path: "new dir/fresh é.txt", content: "fresh\n" } }] },
  { kind: "write_file overwrites", calls: [{ name: "write_file", input: { path: "keep.txt", content: "overwritten\n" } }] },
  { kind: "edit_file", calls: [{ name: "edit_file", input: { path: "edit.txt", oldString: "two", newString: "TWO" } }] },
  {
    kind: "multi_edit",
    calls: [
      {
        name: "multi_edit",
        input: {
          path: "edit.txt",
          edits: [
            { oldString: "one", newString: "1" },
            { oldString: "three", newString: "3" },
          ],
        },
      },
    ],
  },
  {
    kind: "apply_patch",
    calls: [{ name: "apply_patch", input: { patch: "*** Update File: patch.txt\n-beta\n+BETA\n*** Add File: added.txt\n+added\n*** Delete File: del.txt\n" } }],
  },
  { kind: "move_file", calls: [{ name: "move_file", input: { from: "keep.txt", to: "moved/keep.txt" } }] },
  { kind: "delete_file", calls: [{ name: "delete_file", input: { path: "del.txt" } }] },
  { kind: "bash rm of a secret file", calls: [bash("rm .env")] },
  { kind: "bash rm", calls: [bash("rm del.txt bin.dat")] },
  { kind: "bash mv", calls: [bash('mv "dir with space" renamed && mv edit.txt edit2.txt')] },
  { kind: "bash cp", calls: [bash("cp keep.txt copy.txt && cp script.sh keep.txt")] },
  { kind: "bash chmod", calls: [bash("chmod +x script.sh && chmod 600 private.txt && chmod 755 keep.txt")] },
  { kind: "bash mkdir and rmdir", calls: [bash("mkdir -p made/deeper && rmdir empty && rm old/inner.txt && rmdir old")] },
  { kind: "bash chmod on folders", calls: [bash('chmod 700 old && chmod 750 empty && chmod 711 "dir with space" && chmod 755 locked')] },
  { kind: "bash removes a folder with its own bits", calls: [bash("rm locked/f.txt && rmdir locked")] },
  { kind: "bash makes folders with their own bits", calls: [bash("mkdir -m 700 private-dir && echo s > private-dir/s.txt && mkdir -m 711 empty-new")] },
  { kind: "bash makes a folder read-only", calls: [bash("echo changed > locked/f.txt && chmod 555 locked")] },
  { kind: "bash truncate", calls: [bash("truncate -s 2 edit.txt && truncate -s 0 patch.txt")] },
  { kind: "bash > and >> redirects", calls: [bash("echo replaced > keep.txt && echo more >> edit.txt && echo new > 'spaced new ü.txt'")] },
  { kind: "a binary file", calls: [bash("printf '\\377\\000\\001binary' > bin.dat && head -c 3000 /dev/urandom > random.bin")] },
  { kind: "a symlink", calls: [bash("ln -sfn edit.txt link && ln -s keep.txt link2 && rm keep.txt && ln -s patch.txt keep.txt")] },
  { kind: "a file becomes a folder", calls: [bash("rm del.txt && mkdir del.txt && echo x > del.txt/in.txt")] },
  { kind: "a folder becomes a file", calls: [bash("rm old/inner.txt && rmdir old && echo now-a-file > old")] },
];

async function rewindJson(): Promise<Record<string, any>[]> {
  const listed = await e2e.shiro(["rewind", "--json"]);
  expect(listed.code).toBe(0);
  return JSON.parse(listed.stdout);
}

/** `call` with its paths (and a patch's file names, and a command's folder) moved into `dir`. */
function inFolder(call: FakeToolCall, dir: string): FakeToolCall {
  const input = { ...(call.input as Record<string, unknown>) };
  for (const key of ["path", "from", "to"]) if (typeof input[key] === "string") input[key] = `${dir}/${input[key]}`;
  if (typeof input.patch === "string") input.patch = input.patch.replace(/^(\*\*\* (?:Update|Add|Delete) File: )/gm, `$1${dir}/`);
  if (typeof input.command === "string") input.command = `cd ${dir} && ${input.command}`;
  return { ...call, input };
}

describe("shiro rewind takes a turn back", () => {
  // One turn per kind of change, each in a folder of its own seeded the same way: every turn
  // leaves exactly its own checkpoint, and one rewind to the first takes them all back (a rewind
  // reads every checkpoint of the chain: what each changed, and its before and after states).
  // Six kinds share a workspace: a turn costs more with each checkpoint before it in the folder.
  // A first turn (not rewound) makes the workspace known to the store first: the first snapshot of
  // a folder new to it does not see the empty folders nested inside it (left for its owner).
  const CHUNK = 6;
  for (let start = 0; start < CHANGES.length; start += CHUNK) {
    const changes = CHANGES.slice(start, start + CHUNK);
    test(`${changes.map((change) => change.kind).join(", ")}: each is checkpointed by its turn and taken back to the byte and the mode`, async () => {
      const cwd = e2e.dirs.cwd;
      const dirs = changes.map((_, i) => `case-${start + i}`);
      for (const dir of dirs) seed(join(cwd, dir));
      e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "first.txt", content: "first\n" } }] }, { text: "done" });
      expect((await e2e.shiro(["-p", "first", "--yolo"])).code).toBe(0);
      const before = treeState(cwd);
      const seeded = dirs.map((dir) => treeState(join(cwd, dir)));
      const done: unknown[] = [];
      for (const [i, change] of changes.entries()) {
        e2e.fake.script({ toolCalls: change.calls.map((call) => inFolder(call, dirs[i]!)) }, { text: "done" });
        const run = await e2e.shiro(["-p", `do: ${change.kind}`, "--yolo", "--json"]);
        const events = parseEventLines(run.stdout);
        expect([change.kind, run.code, events.filter((event) => event.type === "tool-error")]).toEqual([change.kind, 0, []]);
        expect([change.kind, treeState(join(cwd, dirs[i]!))]).not.toEqual([change.kind, seeded[i]]);
        done.push(events.find((event) => event.type === "done")!.checkpoint);
      }
      const [firstTurn, ...listed] = (await rewindJson()).reverse();
      expect(firstTurn!.prompt).toBe("first");
      expect(listed.map((checkpoint) => [checkpoint.prompt, checkpoint.id])).toEqual(changes.map((change, i) => [`do: ${change.kind}`, done[i]]));
      expect(listed.map((checkpoint, i) => [changes[i]!.kind, checkpoint.files.length > 0])).toEqual(changes.map((change) => [change.kind, true]));

      const first: string = listed[0]!.id;
      let length = 10;
      while ([firstTurn!, ...listed].some((checkpoint) => checkpoint.id !== first && checkpoint.id.startsWith(first.slice(0, length)))) length += 1;
      const rewound = await e2e.shiro(["rewind", first.slice(0, length), "--yes"]);
      expect(rewound.stderr).toBe("");
      expect(rewound.code).toBe(0);
      expect(dirs.map((dir, i) => [changes[i]!.kind, treeState(join(cwd, dir))])).toEqual(dirs.map((_, i) => [changes[i]!.kind, seeded[i]!]));
      expect(treeState(cwd)).toEqual(before);
    }, 60_000);
  }

  test("a read-only turn never snapshots; a turn that changes nothing leaves no checkpoint", async () => {
    seed(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [{ name: "read_file", input: { path: "edit.txt" } }] }, { text: "read" });
    expect((await e2e.shiro(["-p", "read only", "--yolo"])).code).toBe(0);
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "checkpoints"))).toBe(false);
    e2e.fake.script({ toolCalls: [bash("cat keep.txt"), { name: "read_file", input: { path: "edit.txt" } }] }, { text: "read" });
    const run = await e2e.shiro(["-p", "look", "--yolo", "--json"]);
    expect(run.code).toBe(0);
    expect(parseEventLines(run.stdout).find((event) => event.type === "done")!.checkpoint).toBeUndefined();
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "checkpoints"))).toBe(true);
    expect(await rewindJson()).toEqual([]);
  });

  test("a hand edit since the turn is refused (exit 1, named, nothing changed); --force restores anyway", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    const before = treeState(cwd);
    e2e.fake.script({ toolCalls: [bash("echo agent > keep.txt && echo agent > edit.txt && rm del.txt")] }, { text: "done" });
    expect((await e2e.shiro(["-p", "change", "--yolo"])).code).toBe(0);
    writeFileSync(join(cwd, "edit.txt"), "by hand\n");
    writeFileSync(join(cwd, "del.txt"), "made again by hand\n");
    writeFileSync(join(cwd, "unrelated.txt"), "not shiro's business\n");
    const edited = treeState(cwd);
    const [checkpoint] = await rewindJson();
    const refused = await e2e.shiro(["rewind", checkpoint!.id, "--yes"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("  del.txt\n  edit.txt\n");
    expect(refused.stderr).not.toContain("keep.txt");
    expect(refused.stderr).toContain("nothing was changed");
    expect(treeState(cwd)).toEqual(edited);
    const forced = await e2e.shiro(["rewind", checkpoint!.id, "--yes", "--force"]);
    expect(forced.code).toBe(0);
    expect(treeState(cwd).filter((entry) => entry.path !== "unrelated.txt")).toEqual(before);
  });

  test("two turns: without --yes and without a terminal a rewind refuses to guess (exit 2), changing nothing; with it, a rewind to the first takes both back, in order", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    const before = treeState(cwd);
    e2e.fake.script({ toolCalls: [bash("echo first > keep.txt && echo one > a.txt")] }, { text: "1" });
    await e2e.shiro(["-p", "first", "--yolo"]);
    e2e.fake.script({ toolCalls: [bash("echo second > keep.txt && rm a.txt && echo two > b.txt")] }, { text: "2" });
    await e2e.shiro(["-p", "second", "--yolo"]);
    const changed = treeState(cwd);
    const listed = await rewindJson();
    expect(listed.map((record) => record.prompt)).toEqual(["second", "first"]);
    const asked = await e2e.shiro(["rewind", listed[1]!.id]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain("--yes");
    expect(treeState(cwd)).toEqual(changed);
    const text = await e2e.shiro(["rewind"]);
    expect(text.stdout.indexOf('"second"')).toBeLessThan(text.stdout.indexOf('"first"'));
    expect(text.stdout).toContain("M keep.txt (+1 -1)");
    expect((await e2e.shiro(["rewind", listed[1]!.id, "--yes"])).code).toBe(0);
    expect(treeState(cwd)).toEqual(before);
    expect((await rewindJson()).every((record) => typeof record.undone === "string")).toBe(true);
  });
});

const git = (cwd: string, ...args: string[]) => {
  const result = spawnSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
};

describe("inside the user's git repository", () => {
  test("staged changes, a stash and HEAD are identical before and after a turn and its rewind", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    git(cwd, "init", "-q");
    git(cwd, "add", "-A");
    git(cwd, "commit", "-qm", "base");
    writeFileSync(join(cwd, "keep.txt"), "stashed\n");
    git(cwd, "stash", "-q");
    writeFileSync(join(cwd, "edit.txt"), "staged\n");
    git(cwd, "add", "edit.txt");
    writeFileSync(join(cwd, "patch.txt"), "unstaged\n");
    const repoState = () => ({
      status: git(cwd, "status", "--porcelain=v2", "--branch"),
      stash: git(cwd, "stash", "list"),
      head: git(cwd, "rev-parse", "HEAD"),
      index: git(cwd, "ls-files", "-s"),
      refs: git(cwd, "for-each-ref"),
    });
    const gitBefore = repoState();
    const gitDirBefore = readdirSync(join(cwd, ".git")).sort();
    const before = treeState(cwd);
    e2e.fake.script({ toolCalls: [bash("echo agent > edit.txt && rm patch.txt && echo new > new.txt && git status --short > /dev/null")] }, { text: "ok" });
    expect((await e2e.shiro(["-p", "work", "--yolo"])).code).toBe(0);
    const [checkpoint] = await rewindJson();
    expect(checkpoint!.files.map((file: { path: string }) => file.path)).toEqual(["edit.txt", "new.txt", "patch.txt"]);
    expect((await e2e.shiro(["rewind", checkpoint!.id, "--yes"])).code).toBe(0);
    expect(treeState(cwd)).toEqual(before);
    expect(repoState()).toEqual(gitBefore);
    expect(readdirSync(join(cwd, ".git")).sort()).toEqual(gitDirBefore);
  });
});

describe("what a checkpoint covers", () => {
  test("ignored files and files over checkpoints.maxFileBytes are left out, listed as not covered, and left alone by a rewind", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    writeFileSync(join(cwd, ".gitignore"), "build/\n");
    mkdirSync(join(cwd, "sub"));
    writeFileSync(join(cwd, "sub", ".shiroignore"), "*.tmp\n");
    e2e.writeConfig({ checkpoints: { maxFileBytes: 100 } });
    e2e.fake.script(
      { toolCalls: [bash("mkdir build && echo obj > build/out.o && head -c 200 /dev/zero > big.bin && echo t > sub/x.tmp && echo changed > keep.txt")] },
      { text: "ok" },
    );
    expect((await e2e.shiro(["-p", "build", "--yolo"])).code).toBe(0);
    const [checkpoint] = await rewindJson();
    expect(checkpoint!.files.map((file: { path: string }) => file.path)).toEqual(["keep.txt"]);
    expect(checkpoint!.notCovered).toEqual([{ path: "big.bin", why: "over-size-cap" }]);
    const text = await e2e.shiro(["rewind"]);
    expect(text.stdout).toContain("not covered: big.bin (over the size cap, checkpoints.maxFileBytes)");
    expect(text.stdout).toContain("never covered (ignored by .gitignore or .shiroignore): build/, sub/x.tmp");
    expect((await e2e.shiro(["rewind", checkpoint!.id, "--yes"])).code).toBe(0);
    expect(treeState(cwd).map((entry) => entry.path)).toContain("build/out.o");
    expect(existsSync(join(cwd, "big.bin"))).toBe(true);
    expect(existsSync(join(cwd, "sub", "x.tmp"))).toBe(true);
    expect(Buffer.from(treeState(cwd).find((entry) => entry.path === "keep.txt")!.content!, "base64").toString()).toBe("keep\n");
  });

  test("--no-checkpoints and checkpoints.enabled false take none", async () => {
    seed(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [bash("echo x > keep.txt")] }, { text: "1" });
    expect((await e2e.shiro(["-p", "one", "--yolo", "--no-checkpoints"])).code).toBe(0);
    e2e.writeConfig({ checkpoints: { enabled: false } });
    e2e.fake.script({ toolCalls: [bash("echo y > keep.txt")] }, { text: "2" });
    expect((await e2e.shiro(["-p", "two", "--yolo"])).code).toBe(0);
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "checkpoints"))).toBe(false);
  });

  test("the workspace's and the user's git configuration never run: filters, attributes and line endings change no byte", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    const marker = join(e2e.dirs.home, "filter-ran");
    git(cwd, "init", "-q");
    git(cwd, "config", "filter.evil.clean", `touch ${marker}; cat`);
    git(cwd, "config", "core.hooksPath", ".hooks");
    writeFileSync(join(e2e.dirs.home, ".gitconfig"), `[filter "evil"]\n\tclean = touch ${marker}; cat\n\trequired = true\n[core]\n\tautocrlf = true\n`);
    writeFileSync(join(cwd, ".gitattributes"), "* filter=evil text eol=crlf ident\n");
    writeFileSync(join(cwd, "crlf.txt"), "a\r\nb\nc $Id$\n");
    const before = treeState(cwd);
    e2e.fake.script({ toolCalls: [bash("echo changed > crlf.txt && echo n > keep.txt")] }, { text: "ok" });
    expect((await e2e.shiro(["-p", "edit", "--yolo"])).code).toBe(0);
    const [checkpoint] = await rewindJson();
    expect((await e2e.shiro(["rewind", checkpoint!.id, "--yes"])).code).toBe(0);
    expect(treeState(cwd)).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  });

  test("the done event's checkpoint is in the run snapshot and `shiro runs show` names it", async () => {
    seed(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [bash("echo x > keep.txt")] }, { text: "1" });
    const run = await e2e.shiro(["-p", "one", "--yolo", "--json"]);
    const done = parseEventLines(run.stdout).find((event) => event.type === "done")!;
    const shown = await e2e.shiro(["runs", "show", String(done.runId)]);
    expect(shown.stdout).toContain(`checkpoint ${done.checkpoint}`);
    const json = JSON.parse((await e2e.shiro(["runs", "show", String(done.runId), "--json"])).stdout);
    expect(json.checkpoint).toBe(done.checkpoint);
  });
});

describe("--conversation", () => {
  test("takes the session back to before the prompt; recall_discarded still finds what was taken back", async () => {
    seed(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [bash("echo one > a.txt")] }, { text: "first answer" });
    expect((await e2e.shiro(["-p", "first prompt", "--yolo"])).code).toBe(0);
    e2e.fake.script({ toolCalls: [bash("echo two > b.txt")] }, { text: "second answer" });
    expect((await e2e.shiro(["-p", "second prompt about zebras", "--yolo", "-c"])).code).toBe(0);
    const [second] = await rewindJson();
    const rewound = await e2e.shiro(["rewind", second!.id, "--yes", "--conversation"]);
    expect(rewound.code).toBe(0);
    expect(rewound.stdout).toContain("4 messages taken back");
    expect(existsSync(join(e2e.dirs.cwd, "b.txt"))).toBe(false);
    expect(existsSync(join(e2e.dirs.cwd, "a.txt"))).toBe(true);
    e2e.fake.reset();
    e2e.fake.script({ toolCalls: [{ name: "recall_discarded", input: { query: "zebras" } }] }, { text: "found" });
    expect((await e2e.shiro(["-p", "third", "--yolo", "-c"])).code).toBe(0);
    const { userTextsOf, toolResultsOf } = await import("./_harness.ts");
    expect(userTextsOf(e2e.fake.requests[0]!)).toEqual(["first prompt", "third"]);
    expect(toolResultsOf(e2e.fake.requests[1]!).at(-1)!.output).toContain("second prompt about zebras");
  });
});

describe("the guard and the checkpoint", () => {
  test("headless: a covered rm -rf is a question nobody can answer (denied, files kept); with --no-checkpoints the guard refuses it as before", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    const before = treeState(cwd);
    e2e.fake.script({ toolCalls: [bash("rm -rf old")] }, { text: "1" });
    const asked = await e2e.shiro(["-p", "clean", "--yolo", "--json"]);
    const denied = parseEventLines(asked.stdout).find((event) => event.type === "tool-denied")!;
    expect(denied.by).toBe("headless");
    expect(treeState(cwd)).toEqual(before);
    e2e.fake.script({ toolCalls: [bash("rm -rf old")] }, { text: "2" });
    const refused = await e2e.shiro(["-p", "clean", "--yolo", "--json", "--no-checkpoints"]);
    const blocked = parseEventLines(refused.stdout).find((event) => event.type === "tool-denied")!;
    expect(blocked.by).toBe("plugin");
    expect(String(blocked.reason)).toContain("recursive or forced delete");
  });
});

describe("runs resume and detached runs", () => {
  test("a run that blocked and is resumed in another process checkpoints what it changed", async () => {
    seed(e2e.dirs.cwd);
    const before = treeState(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [{ name: "bash", input: { command: "echo resumed > keep.txt && rm del.txt" } }] }, { text: "Changed after the approval." });
    const blocked = await e2e.shiro(["-p", "change after approval", "--approvals", "block", "--json"]);
    expect(blocked.code).toBe(3);
    const block = parseEventLines(blocked.stdout).find((event) => event.type === "blocked")!;
    expect((await e2e.shiro(["approve", String(block.approvalId)])).code).toBe(0);
    const resumed = await e2e.shiro(["runs", "resume", String(block.runId), "--json"]);
    expect(resumed.code).toBe(0);
    const done = parseEventLines(resumed.stdout).find((event) => event.type === "done")!;
    const [checkpoint] = await rewindJson();
    expect(done.checkpoint).toBe(checkpoint!.id);
    expect(checkpoint!.runId).toBe(block.runId);
    expect(checkpoint!.prompt).toBe("change after approval");
    expect((await e2e.shiro(["rewind", checkpoint!.id, "--yes"])).code).toBe(0);
    expect(treeState(e2e.dirs.cwd)).toEqual(before);
  });

  test("a detached run checkpoints the same way", async () => {
    seed(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [bash("echo detached > keep.txt")] }, { text: "Background work finished." });
    const started = await e2e.shiro(["-p", "in the background", "--detach", "--yolo"]);
    const runId = started.stdout.trim();
    expect((await e2e.shiro(["runs", "tail", runId])).code).toBe(0);
    const snapshot = JSON.parse((await e2e.shiro(["runs", "show", runId, "--json"])).stdout);
    const [checkpoint] = await rewindJson();
    expect(snapshot.checkpoint).toBe(checkpoint!.id);
    expect(snapshot.detached).toBe(true);
  });
});

describe("without git, and secrets", () => {
  test("with no git on PATH a changing turn says once that checkpoints are off, and rewind refuses in one line", async () => {
    seed(e2e.dirs.cwd);
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "keep.txt", content: "changed\n" } }] }, { text: "ok" });
    const run = await e2e.shiro(["-p", "change", "--yolo", "--json"], { env: { PATH: join(e2e.dirs.home, "no-bin") } });
    expect(run.code).toBe(0);
    const notices = parseEventLines(run.stdout).filter((event) => event.type === "notice" && String(event.text).includes("checkpoints are off"));
    expect(notices.map((event) => event.text)).toEqual([
      "checkpoints are off: they need git on PATH (install git, or set checkpoints.enabled to false to hide this)",
    ]);
    expect(existsSync(join(e2e.dirs.home, ".shiro-neko", "checkpoints"))).toBe(false);
    e2e.fake.script({ toolCalls: [{ name: "write_file", input: { path: "keep.txt", content: "again\n" } }] }, { text: "ok" });
    expect((await e2e.shiro(["-p", "change with git", "--yolo"])).code).toBe(0);
    const [checkpoint] = await rewindJson();
    const refused = await e2e.shiro(["rewind", checkpoint!.id, "--yes"], { env: { PATH: join(e2e.dirs.home, "no-bin") } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("rewinding needs git on PATH (the checkpoint store is a git repository); install git and try again\n");
    expect(readFileSync(join(e2e.dirs.cwd, "keep.txt"), "utf8")).toBe("again\n");
  });

  test("a deleted secret file comes back, and its content is nowhere in the state folder outside the checkpoint store", async () => {
    const cwd = e2e.dirs.cwd;
    seed(cwd);
    e2e.fake.script({ toolCalls: [bash("rm .env")] }, { text: "ok" });
    expect((await e2e.shiro(["-p", "drop the env file", "--yolo"])).code).toBe(0);
    const [checkpoint] = await rewindJson();
    expect((await e2e.shiro(["rewind", checkpoint!.id, "--yes"])).code).toBe(0);
    expect(treeState(cwd).find((entry) => entry.path === ".env")!.content).toBe(Buffer.from("TOKEN=abc123\n").toString("base64"));
    expect((await e2e.shiro(["search", "abc123"])).stdout).toBe('nothing matches "abc123"\n');
    const state = join(e2e.dirs.home, ".shiro-neko");
    const holders = spawnSync("grep", ["-rl", "abc123", state, "--exclude-dir=checkpoints"], { encoding: "utf8" }).stdout;
    expect(holders).toBe("");
  });
});
