/**
 * A session's checkpoints, one turn at a time: the workspace is snapshotted lazily, just before
 * the first call of the turn whose tool declares a `write` or `exec` effect runs (a subagent's
 * calls included), and again when the turn ends; a turn that changed nothing leaves nothing.
 * A turn that never runs such a call costs nothing, and the first model request never waits.
 * The session's `--add-dir` folders are snapshotted beside the workspace, each in its own shadow
 * repository, and a turn's checkpoint holds them all.
 *
 * Failures never fail the turn: they come back as the notice `finish` returns.
 */
import { hasGit } from "../store/git-probe.ts";
import type { CaptureResult } from "../store/checkpoint-capture.ts";
import { DEFAULT_KEEP_DAYS, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_PER_PROJECT, type CheckpointSettings } from "../store/checkpoint-settings.ts";
import type { FolderCapture, TurnIdentity } from "../store/checkpoints.ts";
import { workspaceExtraDirs } from "../platform/workspace-dirs.ts";
import { resolve } from "node:path";
import type { ConfigFile } from "../config/config.ts";
import type { ShadowRepo } from "../store/checkpoint-git.ts";
import { isInside } from "../platform/path-inside.ts";

export interface CheckpointOutcome {
  /** The checkpoint recorded for the turn; absent when it changed nothing (or checkpoints are off). */
  id?: string;
  files?: number;
  notice?: string;
}

export interface TurnCheckpoints {
  /** False with `checkpoints.enabled: false` or `--no-checkpoints`. */
  readonly enabled: boolean;
  /** A new turn begins: the next change takes a fresh "before" snapshot. */
  start(): void;
  /** What a checkpoint of this turn covers (files up to the cap), or undefined when none will be taken. */
  coverage(): { maxFileBytes: number } | undefined;
  /** Called before every write or exec call runs; only the turn's first one snapshots. */
  beforeChange(): Promise<void>;
  /** The turn ended: records its checkpoint when anything changed. */
  finish(turn: TurnIdentity): Promise<CheckpointOutcome>;
}

/** The checkpoint store, loaded when a turn's first change needs it (a plain answer never does). */
const _store = () => import("../store/checkpoints.ts");

export const NO_GIT_NOTICE = "checkpoints are off: they need git on PATH (install git, or set checkpoints.enabled to false to hide this)";

/** The checkpoint settings of a config file, defaults filled in; `enabled` false when config turns them off. */
export function checkpointSettings(file: ConfigFile): CheckpointSettings & { enabled: boolean } {
  const config = file.checkpoints;
  return {
    enabled: config?.enabled !== false,
    maxFileBytes: config?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    keepDays: config?.keepDays ?? DEFAULT_KEEP_DAYS,
    maxPerProject: config?.maxPerProject ?? DEFAULT_MAX_PER_PROJECT,
  };
}

/** Where a session's checkpoint settings come from: the config file, and `off` for --no-checkpoints. */
export interface CheckpointSource {
  file: ConfigFile;
  off: boolean;
}

/** The checkpoints of a session working in `root`. */
export function openTurnCheckpoints(root: string, source: CheckpointSource): TurnCheckpoints {
  return createTurnCheckpoints({ root, enabled: !source.off, settings: checkpointSettings(source.file) });
}

/** `enabled` false: --no-checkpoints (config's `enabled` is read from `settings`). */
export function createTurnCheckpoints(options: { root: string; settings: CheckpointSettings & { enabled: boolean }; enabled: boolean }): TurnCheckpoints {
  const enabled = options.enabled && options.settings.enabled;
  let gitMissingTold = false;
  let gitWanted = false;
  let repo: Promise<ShadowRepo> | undefined;
  const folderRepos = new Map<string, Promise<ShadowRepo>>();
  let before: Promise<_Before> | undefined;
  let failure: string | undefined;
  const repoOnce = () => (repo ??= _store().then((store) => store.openCheckpointRepo(options.root)));
  const folderRepo = (dir: string) => {
    if (!folderRepos.has(dir))
      folderRepos.set(
        dir,
        _store().then((store) => store.openFolderRepo(options.root, dir)),
      );
    return folderRepos.get(dir)!;
  };
  const snapshotAll = async (): Promise<_Before> => {
    const { snapshotWorkspace } = await _store();
    const main = await snapshotWorkspace(await repoOnce(), options.settings, true);
    const folders: _Before["folders"] = [];
    for (const dir of addedFolders(options.root)) {
      const opened = await folderRepo(dir);
      folders.push({ dir, repo: opened, before: await snapshotWorkspace(opened, options.settings, true) });
    }
    return { main, folders };
  };
  return {
    enabled,
    start() {
      before = undefined;
      failure = undefined;
    },
    coverage: () => (enabled && !failure && hasGit() ? { maxFileBytes: options.settings.maxFileBytes } : undefined),
    async beforeChange() {
      if (!enabled) return;
      if (!hasGit()) {
        gitWanted = true;
        return;
      }
      before ??= snapshotAll();
      try {
        await before;
      } catch (error) {
        failure ??= error instanceof Error ? error.message : String(error);
      }
    },
    async finish(turn) {
      const taken = before;
      before = undefined;
      if (gitWanted && !gitMissingTold) {
        gitMissingTold = true;
        return { notice: NO_GIT_NOTICE };
      }
      if (!enabled || !taken) return {};
      try {
        const { recordCheckpoint, releaseSnapshots, snapshotWorkspace } = await _store();
        const opened = await repoOnce();
        const start = await taken;
        // Every snapshot held so far, with its repository: a failure before the record lets go of them all.
        const held: _Held[] = [[opened, start.main], ...start.folders.map((folder): _Held => [folder.repo, folder.before])];
        try {
          const end = await snapshotWorkspace(opened, options.settings, true);
          held.push([opened, end]);
          const folders: FolderCapture[] = [];
          for (const folder of start.folders) {
            const after = await snapshotWorkspace(folder.repo, options.settings, true);
            held.push([folder.repo, after]);
            folders.push({ ...folder, after });
          }
          const record = await recordCheckpoint(opened, turn, start.main, end, options.settings, folders);
          return record ? { id: record.id, files: record.files.length } : {};
        } catch (error) {
          for (const [repo, snapshot] of held) releaseSnapshots(repo, snapshot);
          throw error;
        }
      } catch (error) {
        return { notice: `no checkpoint for this turn: ${failure ?? (error instanceof Error ? error.message : String(error))}` };
      }
    },
  };
}

type _Held = [repo: ShadowRepo, snapshot: { hold?: string }];

interface _Before {
  main: CaptureResult & { hold?: string };
  folders: Omit<FolderCapture, "after">[];
}

/**
 * The `--add-dir` folders of `root` a checkpoint covers beside it: each once, and not one inside
 * the workspace (the workspace's snapshot holds it) or holding it (it would hold the workspace twice).
 */
export function addedFolders(root: string): string[] {
  const top = resolve(root);
  return [...new Set(workspaceExtraDirs(top))].filter((dir) => !isInside(top, dir) && !isInside(dir, top));
}
