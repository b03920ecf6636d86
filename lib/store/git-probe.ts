/**
 * Whether git runs on this machine, and the environment every shadow-repository git call runs
 * with (lib/store/checkpoint-git.ts). Apart from the checkpoint store so that asking costs a turn
 * only this module: the turn asks before its first tool call whether a checkpoint would cover it.
 */
import { childEnv } from "../secrets/child-env.ts";
import { childProcess } from "../platform/runtime.ts";

/** Where a shadow repository's git finds its repository, index and work tree. */
export interface ShadowGitPaths {
  root: string;
  gitDir: string;
  indexFile: string;
}

let _gitChecked: boolean | undefined;

/** True when a `git` runs on this machine (asked once per process). */
export function hasGit(): boolean {
  if (_gitChecked === undefined) {
    const probe = childProcess().spawnSync("git", ["--version"], { env: shadowGitEnv(undefined), stdio: "ignore" });
    _gitChecked = probe.status === 0;
  }
  return _gitChecked;
}

/** None of the user's or the machine's git configuration: every inherited `GIT_*` variable dropped, and `repo`'s paths when given. */
export function shadowGitEnv(repo: ShadowGitPaths | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(childEnv([], process.env))) if (!key.startsWith("GIT_")) env[key] = value;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_AUTHOR_NAME: "shiro",
    GIT_AUTHOR_EMAIL: "shiro@localhost",
    GIT_COMMITTER_NAME: "shiro",
    GIT_COMMITTER_EMAIL: "shiro@localhost",
    LC_ALL: "C",
  });
  if (repo) Object.assign(env, { GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.root, GIT_INDEX_FILE: repo.indexFile });
  return env;
}
