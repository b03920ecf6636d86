/**
 * Checkpoints beyond the folder shiro runs in, through the binary: the `--add-dir` folders are
 * snapshotted and rewound with the workspace (bytes, file and folder bits, removed and made
 * folders), a hand edit in one of them stops the whole rewind, and `shiro rewind` from a
 * subfolder of the workspace finds the workspace's checkpoints.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEventLines, useE2E, withoutHostNotices } from "./_harness.ts";
import { treeState, type EntryState } from "./_tree-state.ts";
import type { FakeToolCall } from "../fakes/provider.ts";

const e2e = useE2E();
const bash = (command: string): FakeToolCall => ({ name: "bash", input: { command } });

/** A fresh added folder for the length of `fn`, seeded with the workspace; `state()` snapshots both. */
async function withAdded(fn: (added: string, state: () => { main: EntryState[]; added: EntryState[] }) => Promise<void>): Promise<void> {
  const added = mkdtempSync(join(tmpdir(), "shiro-e2e-added-"));
  try {
    seed(e2e.dirs.cwd, added);
    await fn(added, () => ({ main: treeState(e2e.dirs.cwd), added: treeState(added) }));
  } finally {
    rmSync(added, { recursive: true, force: true });
  }
}

function seed(cwd: string, added: string): void {
  writeFileSync(join(cwd, "main.txt"), "main\n");
  mkdirSync(join(added, "sub"));
  writeFileSync(join(added, "x.txt"), "x\n");
  writeFileSync(join(added, "sub", "y.txt"), "y\n");
  chmodSync(join(added, "sub", "y.txt"), 0o640);
  chmodSync(join(added, "sub"), 0o750);
  mkdirSync(join(added, "keep"));
  writeFileSync(join(added, "keep", "k.txt"), "k\n");
}

/** `shiro rewind <id> --yes` in the workspace, which must succeed saying nothing on stderr. */
async function rewindQuietly(id: string): Promise<void> {
  const rewound = await e2e.shiro(["rewind", id, "--yes"]);
  expect(rewound.stderr).toBe("");
  expect(rewound.code).toBe(0);
}

async function rewindJson(cwd?: string): Promise<Record<string, any>[]> {
  const listed = await e2e.shiro(["rewind", "--json"], cwd ? { cwd } : {});
  expect(listed.code).toBe(0);
  return JSON.parse(listed.stdout);
}

describe("--add-dir folders are covered by checkpoints", () => {
  test("a turn's changes in the workspace and an added folder are listed and taken back together", async () => {
    await withAdded(async (added, state) => {
      const before = state();
      e2e.fake.script(
        {
          toolCalls: [
            { name: "write_file", input: { path: join(added, "written.txt"), content: "by the tool\n" } },
            bash(
              `echo changed > main.txt && echo agent > ${added}/x.txt && rm ${added}/sub/y.txt && rmdir ${added}/sub && ` +
                `mkdir -m 700 ${added}/made && echo m > ${added}/made/m.txt && chmod 700 ${added}/keep && chmod +x ${added}/keep/k.txt`,
            ),
          ],
        },
        { text: "done" },
      );
      const run = await e2e.shiro(["-p", "change both", "--yolo", "--json", "--add-dir", added]);
      expect(run.code).toBe(0);
      const events = parseEventLines(run.stdout);
      expect(events.filter((event) => event.type === "tool-error")).toEqual([]);
      expect(treeState(added)).not.toEqual(before.added);
      const [checkpoint, ...rest] = await rewindJson();
      expect(rest).toEqual([]);
      expect(events.find((event) => event.type === "done")!.checkpoint).toBe(checkpoint!.id);
      const paths = checkpoint!.files.map((file: { path: string; change: string }) => `${file.change} ${file.path}`);
      expect(paths).toEqual(
        expect.arrayContaining([
          "modified main.txt",
          `modified ${added}/x.txt`,
          `deleted ${added}/sub/y.txt`,
          `added ${added}/written.txt`,
          `added ${added}/made/m.txt`,
          `mode ${added}/keep/k.txt`,
          `mode ${added}/keep/`,
        ]),
      );
      await rewindQuietly(checkpoint!.id);
      expect(state()).toEqual(before);
    });
  });

  test("a hand edit in the added folder stops the rewind everywhere; --force restores both", async () => {
    await withAdded(async (added, state) => {
      const before = state();
      e2e.fake.script({ toolCalls: [bash(`echo changed > main.txt && echo agent > ${added}/x.txt`)] }, { text: "done" });
      expect((await e2e.shiro(["-p", "change both", "--yolo", "--add-dir", added])).code).toBe(0);
      writeFileSync(join(added, "x.txt"), "by hand\n");
      const edited = state();
      const [checkpoint] = await rewindJson();
      const refused = await e2e.shiro(["rewind", checkpoint!.id, "--yes"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`  ${added}/x.txt\n`);
      expect(refused.stderr).not.toContain("main.txt");
      expect(state()).toEqual(edited);
      expect((await e2e.shiro(["rewind", checkpoint!.id, "--yes", "--force"])).code).toBe(0);
      expect(state()).toEqual(before);
    });
  });

  test("an added folder the turn removed altogether comes back, with the workspace's changes", async () => {
    await withAdded(async (added, state) => {
      chmodSync(added, 0o750);
      const before = state();
      e2e.fake.script(
        {
          toolCalls: [bash(`echo changed > main.txt && rm ${added}/x.txt ${added}/sub/y.txt ${added}/keep/k.txt && rmdir ${added}/sub ${added}/keep ${added}`)],
        },
        { text: "done" },
      );
      const run = await e2e.shiro(["-p", "remove it", "--yolo", "--json", "--add-dir", added]);
      expect(run.code).toBe(0);
      expect(withoutHostNotices(parseEventLines(run.stdout)).filter((event) => event.type === "notice")).toEqual([]);
      const [checkpoint] = await rewindJson();
      expect(checkpoint!.files.map((file: { path: string; change: string }) => `${file.change} ${file.path}`)).toEqual(
        expect.arrayContaining(["modified main.txt", `deleted ${added}/x.txt`, `deleted ${added}/sub/y.txt`]),
      );
      await rewindQuietly(checkpoint!.id);
      expect(state()).toEqual(before);
    });
  });

  test("an added folder the turn did not change adds nothing to the checkpoint; one inside the workspace is the workspace's", async () => {
    await withAdded(async (added) => {
      const cwd = e2e.dirs.cwd;
      mkdirSync(join(cwd, "inner"));
      e2e.fake.script({ toolCalls: [bash("echo changed > main.txt && echo new > inner/n.txt")] }, { text: "done" });
      expect((await e2e.shiro(["-p", "main only", "--yolo", "--add-dir", added, "--add-dir", join(cwd, "inner")])).code).toBe(0);
      const [checkpoint] = await rewindJson();
      expect(checkpoint!.files.map((file: { path: string }) => file.path)).toEqual(["inner/n.txt", "main.txt"]);
    });
  });
});

describe("shiro rewind from a subfolder", () => {
  test("finds the checkpoints of the folder the turn ran in, and rewinds it", async () => {
    const cwd = e2e.dirs.cwd;
    mkdirSync(join(cwd, "src", "deep"), { recursive: true });
    writeFileSync(join(cwd, "top.txt"), "top\n");
    writeFileSync(join(cwd, "src", "deep", "file.txt"), "deep\n");
    const before = treeState(cwd);
    e2e.fake.script({ toolCalls: [bash("echo changed > top.txt && echo changed > src/deep/file.txt")] }, { text: "done" });
    expect((await e2e.shiro(["-p", "change", "--yolo"])).code).toBe(0);
    const inside = join(cwd, "src", "deep");
    const [checkpoint] = await rewindJson(inside);
    expect(checkpoint!.prompt).toBe("change");
    const listed = await e2e.shiro(["rewind"], { cwd: inside });
    expect(listed.stdout).toContain(`checkpoints of ${cwd}`);
    const rewound = await e2e.shiro(["rewind", checkpoint!.id, "--yes"], { cwd: inside });
    expect(rewound.code).toBe(0);
    expect(treeState(cwd)).toEqual(before);
  });
});
