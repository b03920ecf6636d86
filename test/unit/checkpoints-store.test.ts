/**
 * The checkpoint store in-process: records, the shadow repository's layout and modes, pruning by
 * age and by count with the objects only pruned checkpoints held, and the turn checkpointer's
 * laziness (no snapshot before the first change, nothing kept for a turn that changed nothing).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useTempHome } from "./temp-home.ts";
import { listCheckpoints, openCheckpointRepo, pruneCheckpoints, recordCheckpoint, snapshotWorkspace } from "../../lib/store/checkpoints.ts";
import { paths } from "../../lib/platform/paths.ts";
import { createTurnCheckpoints } from "../../lib/agent/turn-checkpoint.ts";

useTempHome("shiro-checkpoints-");
let root = "";
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "shiro-ws-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const SETTINGS = { maxFileBytes: 1_000_000, keepDays: 30, maxPerProject: 100, enabled: true };
const turn = (prompt: string) => ({ sessionId: "s1", runId: `r-${prompt}`, prompt, messageIndex: 0 });

async function checkpointOf(change: () => void, prompt: string) {
  const repo = await openCheckpointRepo(root);
  const before = await snapshotWorkspace(repo, SETTINGS);
  change();
  const after = await snapshotWorkspace(repo, SETTINGS);
  return recordCheckpoint(repo, turn(prompt), before, after, SETTINGS);
}

function objectCount(): number {
  const out = spawnSync("git", ["count-objects", "-v"], { env: { ...process.env, GIT_DIR: join(paths.checkpointsDir(root), "git") }, encoding: "utf8" }).stdout;
  return Number(/count: (\d+)/.exec(out)![1]) + Number(/in-pack: (\d+)/.exec(out)![1]);
}

describe("the checkpoint store", () => {
  test("lives under the state folder, 0700, and records one checkpoint per changing turn with +/- lines", async () => {
    writeFileSync(join(root, "a.txt"), "one\ntwo\n");
    const record = await checkpointOf(() => writeFileSync(join(root, "a.txt"), "one\nTWO\nthree\n"), "edit a");
    expect(record!.files).toEqual([{ path: "a.txt", change: "modified", added: 2, removed: 1 }]);
    expect(statSync(paths.checkpointsDir(root)).mode & 0o777).toBe(0o700);
    expect(listCheckpoints(root).map((entry) => entry.prompt)).toEqual(["edit a"]);
    expect(await checkpointOf(() => undefined, "nothing")).toBeUndefined();
    expect(listCheckpoints(root)).toHaveLength(1);
  });

  test("pruning by count and by age drops the records and the objects only they held, and keeps what the others and a hold name", async () => {
    writeFileSync(join(root, "base.txt"), "base\n");
    for (let i = 0; i < 4; i++) await checkpointOf(() => writeFileSync(join(root, `f${i}.txt`), `unique content ${i}\n`.repeat(50)), `turn ${i}`);
    const objects = objectCount();
    const repo = await openCheckpointRepo(root);
    // A turn in flight: its "before" snapshot is held, so pruning keeps its objects.
    writeFileSync(join(root, "pending.txt"), "held by a turn in flight\n");
    const held = await snapshotWorkspace(repo, SETTINGS, true);
    const dropped = await pruneCheckpoints(repo, { keepDays: 30, maxPerProject: 2 });
    expect(dropped).toHaveLength(2);
    expect(listCheckpoints(root).map((entry) => entry.prompt)).toEqual(["turn 2", "turn 3"]);
    // No ref holds anything: the records and the holds are what a prune keeps.
    expect(spawnSync("git", ["for-each-ref"], { env: { ...process.env, GIT_DIR: repo.gitDir }, encoding: "utf8" }).stdout).toBe("");
    const named = listCheckpoints(root).flatMap((entry) => [entry.before.tree, entry.before.meta, entry.after.tree, entry.after.meta]);
    const present = (oid: string) => spawnSync("git", ["cat-file", "-e", oid], { env: { ...process.env, GIT_DIR: repo.gitDir } }).status === 0;
    expect(named.filter((oid) => !present(oid))).toEqual([]);
    expect(readFileSync(join(repo.dir, "holds", held.hold!), "utf8")).toBe(`${held.snapshot.tree} ${held.snapshot.meta}\n`);
    expect(objectCount()).toBeLessThan(objects + 3);
    const catFile = (oid: string) => spawnSync("git", ["cat-file", "-e", oid], { env: { ...process.env, GIT_DIR: repo.gitDir } }).status;
    expect(catFile(held.snapshot.tree)).toBe(0);
    expect(catFile(held.snapshot.meta)).toBe(0);
    const later = Date.now() + 31 * 86_400_000;
    expect(await pruneCheckpoints(repo, { keepDays: 30, maxPerProject: 100 }, later)).toHaveLength(2);
    // A hold older than keepDays is a turn that never ended: it goes, and so do the objects only it named.
    expect(readdirSync(join(repo.dir, "holds"))).toEqual([]);
    expect(catFile(held.snapshot.meta)).not.toBe(0);
    expect(listCheckpoints(root)).toEqual([]);
  });
});

describe("the turn checkpointer", () => {
  test("takes no snapshot until the first change, and none at all when disabled", async () => {
    const checkpoints = createTurnCheckpoints({ root, settings: SETTINGS, enabled: true });
    checkpoints.start();
    expect(await checkpoints.finish(turn("read only"))).toEqual({});
    expect(listCheckpoints(root)).toEqual([]);
    checkpoints.start();
    await checkpoints.beforeChange();
    writeFileSync(join(root, "new.txt"), "new\n");
    await checkpoints.beforeChange();
    const outcome = await checkpoints.finish(turn("write"));
    expect(outcome.files).toBe(1);
    expect(listCheckpoints(root).map((entry) => entry.id)).toEqual([outcome.id!]);
    const off = createTurnCheckpoints({ root, settings: SETTINGS, enabled: false });
    off.start();
    await off.beforeChange();
    writeFileSync(join(root, "other.txt"), "x\n");
    expect(await off.finish(turn("off"))).toEqual({});
    expect(off.coverage()).toBeUndefined();
  });
});

describe("a rewind plan", () => {
  test("is checked again when applied: a file edited after the plan was shown stops it, and nothing changes", async () => {
    const { planUndo, HandEditError } = await import("../../lib/store/checkpoint-restore.ts");
    writeFileSync(join(root, "a.txt"), "one\n");
    writeFileSync(join(root, "b.txt"), "two\n");
    const record = await checkpointOf(() => {
      writeFileSync(join(root, "a.txt"), "ONE\n");
      writeFileSync(join(root, "b.txt"), "TWO\n");
    }, "edit both");
    const plan = await planUndo(await openCheckpointRepo(root), record!, SETTINGS.maxFileBytes);
    expect(plan.handEdited).toEqual([]);
    expect(plan.steps).toEqual([
      { path: "a.txt", action: "restore" },
      { path: "b.txt", action: "restore" },
    ]);
    writeFileSync(join(root, "b.txt"), "edited while asked\n");
    await expect(plan.apply(false)).rejects.toBeInstanceOf(HandEditError);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("ONE\n");
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("edited while asked\n");
    await plan.apply(true);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("two\n");
    expect(listCheckpoints(root)[0]!.undone).toBeString();
  });
});

describe("empty folders", () => {
  // Workspaces whose empty folders sit inside folders the store has not seen yet (no file of theirs
  // is in the shadow index): the first snapshot must see them as a later one does.
  const WORKSPACES: { name: string; files: string[]; dirs: string[]; empty: string[] }[] = [
    { name: "nested in an untracked folder", files: ["untracked/f.txt"], dirs: ["untracked/a/b/c"], empty: ["untracked/a"] },
    {
      name: "beside files at several depths",
      files: ["x/f", "x/a2/n/file", "z/g", "top"],
      dirs: ["x/a/b/c", "z/k", "e", "y/p/q"],
      empty: ["e", "x/a", "y", "z/k"],
    },
    {
      name: "under a folder holding only folders with files",
      files: ["deep/one/two/f"],
      dirs: ["deep/one/two/e", "deep/one/e2"],
      empty: ["deep/one/e2", "deep/one/two/e"],
    },
    { name: "with spaces and non-ASCII letters", files: ["dir é/f ü.txt"], dirs: ["dir é/a b/c"], empty: ["dir é/a b"] },
  ];
  for (const workspace of WORKSPACES)
    test(`${workspace.name}: the first snapshot records them, the turn's checkpoint does not add them, and its rewind keeps them`, async () => {
      const { mkdirSync, existsSync } = await import("node:fs");
      for (const file of workspace.files) {
        mkdirSync(join(root, file, ".."), { recursive: true });
        writeFileSync(join(root, file), `${file}\n`);
      }
      for (const dir of workspace.dirs) mkdirSync(join(root, dir), { recursive: true });
      const repo = await openCheckpointRepo(root);
      const first = await snapshotWorkspace(repo, SETTINGS);
      const again = await snapshotWorkspace(repo, SETTINGS);
      expect([first.meta.dirs, first.snapshot]).toEqual([workspace.empty, again.snapshot]);
      const record = await checkpointOf(() => writeFileSync(join(root, "unrelated.txt"), "u\n"), "unrelated");
      expect(record!.files).toEqual([{ path: "unrelated.txt", change: "added", added: 1, removed: 0 }]);
      const { planUndo } = await import("../../lib/store/checkpoint-restore.ts");
      await (await planUndo(repo, record!, SETTINGS.maxFileBytes)).apply(false);
      expect(workspace.dirs.map((dir) => [dir, existsSync(join(root, dir))])).toEqual(workspace.dirs.map((dir) => [dir, true]));
      expect(existsSync(join(root, "unrelated.txt"))).toBe(false);
    });

  test("an ignored folder and a repository of its own beside them are not empty folders, in the first snapshot as in a later one", async () => {
    const { mkdirSync } = await import("node:fs");
    mkdirSync(join(root, "w/skip/e"), { recursive: true });
    mkdirSync(join(root, "w/keep/e2"), { recursive: true });
    mkdirSync(join(root, "w/sub"), { recursive: true });
    writeFileSync(join(root, "w/.gitignore"), "skip/\n");
    writeFileSync(join(root, "w/f.txt"), "f\n");
    spawnSync("git", ["init", "-q"], { cwd: join(root, "w/sub") });
    const repo = await openCheckpointRepo(root);
    const first = await snapshotWorkspace(repo, SETTINGS);
    const again = await snapshotWorkspace(repo, SETTINGS);
    expect([first.meta.dirs, first.notCovered, first.snapshot]).toEqual([["w/keep"], [{ path: "w/sub", why: "repository" }], again.snapshot]);
    expect(again.meta.dirs).toEqual(["w/keep"]);
  });

  test("a turn that makes a folder with a file and an empty folder inside lists both as added, and its rewind removes both", async () => {
    const { mkdirSync, existsSync } = await import("node:fs");
    writeFileSync(join(root, "base.txt"), "base\n");
    const repo = await openCheckpointRepo(root);
    await snapshotWorkspace(repo, SETTINGS);
    const record = await checkpointOf(() => {
      mkdirSync(join(root, "made/empty/deeper"), { recursive: true });
      writeFileSync(join(root, "made/f.txt"), "f\n");
    }, "make");
    expect(record!.files.map((file) => [file.path, file.change])).toEqual([
      ["made/empty/", "added"],
      ["made/f.txt", "added"],
    ]);
    expect((await snapshotWorkspace(repo, SETTINGS)).snapshot).toEqual(record!.after);
    await (await (await import("../../lib/store/checkpoint-restore.ts")).planUndo(repo, record!, SETTINGS.maxFileBytes)).apply(false);
    expect([existsSync(join(root, "made")), existsSync(join(root, "base.txt"))]).toEqual([false, true]);
  });
});

describe("the permission scan", () => {
  test("a chmod in the same second as the last snapshot is seen, and so is one on a file settled long before", async () => {
    const { chmodSync, utimesSync } = await import("node:fs");
    writeFileSync(join(root, "p.txt"), "p\n");
    writeFileSync(join(root, "old.txt"), "o\n");
    chmodSync(join(root, "p.txt"), 0o640);
    const quick = await checkpointOf(() => chmodSync(join(root, "p.txt"), 0o600), "chmod at once");
    expect(quick!.files).toEqual([{ path: "p.txt", change: "mode" }]);
    utimesSync(join(root, "old.txt"), new Date(2020, 0, 1), new Date(2020, 0, 1));
    await Bun.sleep(1100);
    const settled = await checkpointOf(() => chmodSync(join(root, "old.txt"), 0o604), "chmod later");
    expect(settled!.files).toEqual([{ path: "old.txt", change: "mode" }]);
  });
});

describe("the last snapshot's record (last.json)", () => {
  const lastFile = () => join(paths.checkpointsDir(root), "last.json");

  test("an unchanged workspace gives the same tree and meta blob; a record of another index is ignored", async () => {
    const { chmodSync, existsSync } = await import("node:fs");
    writeFileSync(join(root, "a.txt"), "a\n");
    writeFileSync(join(root, "b.txt"), "b\n");
    chmodSync(join(root, "b.txt"), 0o600);
    const repo = await openCheckpointRepo(root);
    const first = await snapshotWorkspace(repo, SETTINGS);
    const again = await snapshotWorkspace(repo, SETTINGS);
    expect(again.snapshot).toEqual(first.snapshot);
    expect(again.meta.modes).toEqual({ "b.txt": 0o600 });
    const last = JSON.parse(readFileSync(lastFile(), "utf8"));
    expect({ tree: last.tree, meta: last.meta }).toEqual(first.snapshot);
    // A record that does not describe this index (another checksum) is not believed.
    const forged = { ...last, at: 4_000_000_000, metaJson: JSON.stringify({ dirs: [], modes: {}, base: { file: 0o777, exec: 0o777 } }) };
    writeFileSync(lastFile(), JSON.stringify({ ...forged, index: "0".repeat(40) }));
    const ignored = await snapshotWorkspace(repo, SETTINGS);
    expect(ignored.meta.base.file).toBe(0o644);
    // The same record for this very index is believed (a cache the store alone writes): the proof the check above is what ignored it.
    writeFileSync(lastFile(), JSON.stringify(forged));
    expect((await snapshotWorkspace(repo, SETTINGS)).meta.base.file).toBe(0o777);
    writeFileSync(
      lastFile(),
      JSON.stringify({ ...last, index: "0".repeat(40), metaJson: JSON.stringify({ dirs: [], modes: {}, base: { file: 0o777, exec: 0o777 } }) }),
    );
    const believed = await snapshotWorkspace(repo, SETTINGS);
    expect(believed.meta.base.file).toBe(0o644);
    expect(believed.meta.modes).toEqual({ "b.txt": 0o600 });
    // Without an index at all the snapshot starts over and comes out the same.
    rmSync(repo.indexFile);
    expect((await snapshotWorkspace(repo, SETTINGS)).snapshot).toEqual(first.snapshot);
    expect(existsSync(lastFile())).toBe(true);
  });

  test("pruning forgets it, so no later snapshot names a blob git has dropped", async () => {
    const { existsSync } = await import("node:fs");
    writeFileSync(join(root, "base.txt"), "base\n");
    for (let i = 0; i < 3; i++) await checkpointOf(() => writeFileSync(join(root, `f${i}.txt`), `${i}\n`), `turn ${i}`);
    const repo = await openCheckpointRepo(root);
    expect(existsSync(lastFile())).toBe(true);
    expect(await pruneCheckpoints(repo, { keepDays: 30, maxPerProject: 1 })).toHaveLength(2);
    expect(existsSync(lastFile())).toBe(false);
    const next = await snapshotWorkspace(repo, SETTINGS);
    const catFile = (oid: string) => spawnSync("git", ["cat-file", "-e", oid], { env: { ...process.env, GIT_DIR: repo.gitDir } }).status;
    expect([catFile(next.snapshot.tree), catFile(next.snapshot.meta)]).toEqual([0, 0]);
  });
});

describe("an added folder's shadow repository", () => {
  test("lives in the workspace's store, keeps the objects the record names, and is pruned with the record", async () => {
    const { openFolderRepo } = await import("../../lib/store/checkpoints.ts");
    const extra = mkdtempSync(join(tmpdir(), "shiro-extra-"));
    try {
      writeFileSync(join(root, "main.txt"), "main\n");
      writeFileSync(join(extra, "x.txt"), "x\n");
      const repo = await openCheckpointRepo(root);
      const folder = await openFolderRepo(root, extra);
      expect(folder.dir.startsWith(join(paths.checkpointsDir(root), "dirs"))).toBe(true);
      const present = (gitDir: string, oid: string) => spawnSync("git", ["cat-file", "-e", oid], { env: { ...process.env, GIT_DIR: gitDir } }).status === 0;
      const turnIn = async (prompt: string, change: () => void) => {
        const before = await snapshotWorkspace(repo, SETTINGS, true);
        const folderBefore = await snapshotWorkspace(folder, SETTINGS, true);
        change();
        const after = await snapshotWorkspace(repo, SETTINGS);
        const folderAfter = await snapshotWorkspace(folder, SETTINGS);
        return recordCheckpoint(repo, turn(prompt), before, after, SETTINGS, [{ dir: extra, repo: folder, before: folderBefore, after: folderAfter }]);
      };
      const first = await turnIn("extra only", () => writeFileSync(join(extra, "x.txt"), "changed\n"));
      expect(first!.files).toEqual([{ path: `${extra}/x.txt`, change: "modified", added: 1, removed: 1 }]);
      expect(first!.dirs!.map((entry) => entry.dir)).toEqual([extra]);
      const firstFolder = first!.dirs![0]!;
      expect([firstFolder.before.meta, firstFolder.after.meta].map((oid) => present(folder.gitDir, oid))).toEqual([true, true]);
      const second = await turnIn("main only", () => writeFileSync(join(root, "main.txt"), "changed\n"));
      expect(second!.dirs).toBeUndefined();
      expect(await pruneCheckpoints(repo, { keepDays: 30, maxPerProject: 1 })).toEqual([first!.id]);
      // The folder's objects only the pruned record named are gone; the kept record's are there.
      expect(present(folder.gitDir, firstFolder.after.meta)).toBe(false);
      expect([second!.before.meta, second!.after.meta, second!.after.tree].map((oid) => present(repo.gitDir, oid))).toEqual([true, true, true]);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });
});
