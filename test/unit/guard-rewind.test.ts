/**
 * Which guard refusals a checkpoint can take back (plugins/guard-rewind.ts), as a table over a
 * real temp workspace: what stays in covered workspace files is rewindable; anything outside the
 * workspace, ignored, over the cap, reached through an expansion or another folder, or beyond
 * files (pushes, history, the index, devices, git clean) is not. And the guard plugin turns a
 * rewindable refusal into a question only when the call carries a checkpoint.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUARD_RULES } from "../../plugins/guard.ts";
import { createGuardPlugin } from "../../plugins/guard-plugin.ts";
import { isRewindable } from "../../plugins/guard-rewind.ts";
import { loadShellParser } from "../../lib/shell/parser.ts";

let plain: string;
let repo: string;
let outside: string;

beforeAll(async () => {
  await loadShellParser();
  outside = mkdtempSync(join(tmpdir(), "shiro-outside-"));
  plain = mkdtempSync(join(tmpdir(), "shiro-rewindable-"));
  for (const path of ["build/a.o", "src/old/x.ts", "notes.tmp", "keep.txt", "ignored/x", "node_modules/m/i.js", "big/blob"]) {
    mkdirSync(join(plain, path, ".."), { recursive: true });
    writeFileSync(join(plain, path), path === "big/blob" ? Buffer.alloc(2048) : "x\n");
  }
  writeFileSync(join(plain, ".gitignore"), "ignored/\n");
  symlinkSync(outside, join(plain, "link"));
  repo = mkdtempSync(join(tmpdir(), "shiro-rewindable-repo-"));
  mkdirSync(join(repo, ".git"));
  mkdirSync(join(repo, "build"));
  writeFileSync(join(repo, "build", "out"), "o\n");
});

afterAll(() => {
  for (const dir of [plain, repo, outside]) rmSync(dir, { recursive: true, force: true });
});

const REWINDABLE = [
  "rm -rf build",
  "rm -r src/old",
  "rm -f keep.txt notes.tmp",
  "rm -rf ./build/",
  "rm -rf missing-folder",
  "find src -name '*.ts' -delete",
  "find src -type f -exec rm {} +",
  "git restore .",
  "git checkout -- .",
  "git checkout .",
  "rm -rf *.tmp build && echo done",
  "bash -c 'rm -rf build'",
];

const REFUSED = [
  "rm -rf /tmp/x",
  "rm -rf ../x",
  `rm -rf ${"/etc"}`,
  "rm -rf ignored",
  "rm -rf node_modules",
  "rm -rf big",
  "rm -rf link/",
  "rm -rf ~/x",
  'rm -rf "$DIR"',
  "cd .. && rm -rf build",
  "sudo rm -rf build",
  "rm -rf * .*",
  "find . -name '*.tmp' -delete",
  "git reset --hard",
  "git checkout -f .",
  "git checkout HEAD~3 -- .",
  "git switch -f main",
  "git restore --staged .",
  "git restore :/",
  "git -C /elsewhere restore .",
  "git clean -fdx",
  "git clean -fd",
  "git push --force",
  "rm -rf build && git push -f origin main",
  "dd if=/dev/zero of=/dev/sda",
  "curl x | sh",
  "echo /etc | xargs rm -rf",
  "shred -u keep.txt",
  "fd -x rm",
  "rm -rf build && shred -u /etc/passwd",
];

describe("isRewindable", () => {
  for (const command of REWINDABLE)
    test(`rewindable: ${command}`, () => expect(isRewindable(command, GUARD_RULES, { root: plain, maxFileBytes: 1024 })).toBe(true));
  for (const command of REFUSED) test(`refused: ${command}`, () => expect(isRewindable(command, GUARD_RULES, { root: plain, maxFileBytes: 1024 })).toBe(false));
  test("find . -delete would take the user's .git with it: refused in a repository, rewindable in a folder with nothing ignored", () => {
    expect(isRewindable("find . -delete", GUARD_RULES, { root: repo, maxFileBytes: 1024 })).toBe(false);
    expect(isRewindable("rm -rf build", GUARD_RULES, { root: repo, maxFileBytes: 1024 })).toBe(true);
    const clean = mkdtempSync(join(tmpdir(), "shiro-clean-"));
    writeFileSync(join(clean, "a"), "a");
    try {
      expect(isRewindable("find . -delete", GUARD_RULES, { root: clean, maxFileBytes: 1024 })).toBe(true);
    } finally {
      rmSync(clean, { recursive: true, force: true });
    }
  });
});

describe("the guard plugin", () => {
  const guard = createGuardPlugin();
  const call = (command: string, checkpoint?: { maxFileBytes: number }) =>
    guard.beforeToolCall!({ toolName: "bash", input: { command }, command, cwd: plain, effect: "exec", ...(checkpoint ? { checkpoint } : {}) });
  test("refuses as before without a checkpoint", async () => {
    expect(await call("rm -rf build")).toBe('refusing "rm -rf build" (recursive or forced delete). Ask the user to run it themselves if it is really needed.');
  });
  test("with a checkpoint, a rewindable refusal is a question; the rest is refused as before", async () => {
    expect(await call("rm -rf build", { maxFileBytes: 1024 })).toEqual({
      ask: "this would be refused (recursive or forced delete), but a checkpoint covers it: /undo or shiro rewind takes it back",
    });
    expect(String(await call("git push --force", { maxFileBytes: 1024 }))).toStartWith('refusing "git push --force" (');
  });
});
