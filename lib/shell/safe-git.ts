/**
 * The one way shiro runs git itself, outside the sandbox (the git tools, note provenance): with
 * nothing the repository controls able to start a program.
 *
 * - **Where git looks is pinned by shiro**, not discovered by git: shiro finds the `.git` above
 *   the workspace (a folder, or a `gitdir:` file) and its `commondir`, and passes `GIT_DIR`,
 *   `GIT_WORK_TREE` and `GIT_OBJECT_DIRECTORY`. Git's data may live in the workspace's own `.git`
 *   folder or outside the workspace (a linked worktree, a submodule checkout, a workspace that is
 *   a subfolder of its repository); a `gitdir:` or `commondir` that leads anywhere else inside the
 *   workspace, or a `commondir` in the workspace's own `.git`, is refused with `GitRefusal`.
 * - **The repository's config is never read by git.** `GIT_COMMON_DIR` is a private folder made
 *   for the call: its `config` is the repository's reduced to an allow-list of data keys
 *   (git-config.ts), and `refs`, `packed-refs`, `info`, `logs`, `shallow` and `objects` lead to the
 *   real ones. It has no `hooks`, so no hook exists; `config.worktree`, includes and
 *   `core.worktree` are never followed.
 * - **Programs the user's own config names are neutralised** for the call (fixed keys and every
 *   filter/diff/merge driver found), and each subcommand gets `--no-textconv --no-ext-diff` or
 *   `--ignore-submodules=all` where it has them. Only the read-only subcommands below may run.
 * - The environment is shiro's minus every `GIT_*` variable (but the user's `GIT_CONFIG_GLOBAL`,
 *   `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_NOSYSTEM`, `GIT_EXEC_PATH`) and minus provider keys.
 *
 * The private folder lives under the OS temp folder (0700) and is removed by `dispose()`.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { childEnv } from "../secrets/child-env.ts";
import { neutralizingOverrides, programKeys, readConfigFile, sanitizedRepositoryConfig } from "./git-config.ts";
import { isInside } from "../platform/path-inside.ts";
import { nodeOs, childProcess } from "../platform/runtime.ts";

/** Thrown when the workspace's git pointers lead where shiro will not follow; the message is one line for the user. */
export class GitRefusal extends Error {}

/** Flags each allowed subcommand gets before the caller's arguments. */
const _SUBCOMMAND_FLAGS: Record<string, readonly string[]> = {
  status: ["--ignore-submodules=all"],
  diff: ["--no-textconv", "--no-ext-diff", "--ignore-submodules=all"],
  show: ["--no-textconv", "--no-ext-diff", "--no-show-signature"],
  log: ["--no-textconv", "--no-ext-diff", "--no-show-signature"],
  blame: ["--no-textconv"],
  branch: [],
  "rev-parse": [],
};

const _KEPT_GIT_ENV = new Set(["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_EXEC_PATH"]);
const _SHARED = ["refs", "packed-refs", "info", "logs", "shallow", "objects"];

/** Where git's data is, as shiro resolved it. */
export interface GitLocation {
  /** The folder holding `.git`: the top of the work tree. */
  workTree: string;
  gitDir: string;
  commonDir: string;
}

/** A prepared call: spawn `git` with `args` and `env` in `cwd`, then call `dispose()`. */
export interface GitInvocation {
  args: string[];
  env: Record<string, string>;
  cwd: string;
  dispose(): void;
}

/**
 * Finds the repository `root` belongs to, as git would (the nearest `.git` at or above it), or
 * undefined when there is none. Throws `GitRefusal` for a pointer into the workspace (see above).
 */
export function locateRepository(root: string): GitLocation | undefined {
  const workspace = _real(root);
  for (let dir = workspace; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    const found = _stat(dotGit);
    if (found) return _checked(workspace, dir, dotGit, found.isDirectory() ? _real(dotGit) : _readGitFile(dotGit));
    if (dirname(dir) === dir) return undefined;
  }
}

/** Prepares `git <subcommand> …args` at `root`. Throws `GitRefusal`, `<root> is not a git repository.` or the missing-git message. */
export function prepareGit(root: string, subcommand: string, args: readonly string[]): GitInvocation {
  const flags = _SUBCOMMAND_FLAGS[subcommand];
  if (!flags) throw new Error(`shiro does not run git ${subcommand}.`);
  const location = locateRepository(root);
  if (!location) throw new Error(`${root} is not a git repository.`);
  const shadow = mkdtempSync(join(nodeOs().tmpdir(), "shiro-git-"));
  try {
    const base = _baseEnv();
    writeFileSync(join(shadow, "config"), sanitizedRepositoryConfig(join(location.commonDir, "config"), base, shadow), { mode: 0o600 });
    for (const name of _SHARED) _share(join(location.commonDir, name), join(shadow, name));
    const pinned: Record<string, string> = {
      ...base,
      GIT_DIR: location.gitDir,
      GIT_COMMON_DIR: shadow,
      GIT_WORK_TREE: location.workTree,
      GIT_OBJECT_DIRECTORY: join(location.commonDir, "objects"),
    };
    const overrides = neutralizingOverrides(pinned, shadow);
    const env: Record<string, string> = { ...pinned, GIT_CONFIG_COUNT: String(overrides.length) };
    overrides.forEach(([key, value], index) => {
      env[`GIT_CONFIG_KEY_${index}`] = key;
      env[`GIT_CONFIG_VALUE_${index}`] = value;
    });
    return { args: ["--no-pager", "--literal-pathspecs", subcommand, ...flags, ...args], env, cwd: _real(root), dispose: () => _remove(shadow) };
  } catch (error) {
    _remove(shadow);
    throw error;
  }
}

/** Runs a prepared call synchronously and returns stdout; throws on a non-zero exit (stderr's first line). For short calls only. */
export function runGitSync(root: string, subcommand: string, args: readonly string[], timeoutMs: number): string {
  const call = prepareGit(root, subcommand, args);
  try {
    return childProcess().execFileSync("git", call.args, {
      cwd: call.cwd,
      env: call.env,
      encoding: "utf8",
      timeout: timeoutMs,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error("git is not installed or not on PATH.");
    const stderr = String((error as { stderr?: string }).stderr ?? "").trim();
    throw new Error(stderr.split("\n")[0] || `git ${subcommand} failed`);
  } finally {
    call.dispose();
  }
}

/** The keys of the config file at `path` that can start a program (none when it is missing or unreadable). */
export function configProgramKeys(path: string): string[] {
  try {
    return programKeys(readConfigFile(path, _baseEnv(), nodeOs().tmpdir()));
  } catch {
    return [];
  }
}

function _checked(workspace: string, top: string, dotGit: string, gitDir: string): GitLocation {
  const own = join(workspace, ".git");
  const inside = (path: string) => isInside(workspace, path);
  if (inside(gitDir) && gitDir !== own) {
    throw new GitRefusal(
      `Refusing to run git: ${dotGit} points at ${gitDir}, a folder inside the workspace that commands can write; remove it or restore .git.`,
    );
  }
  const commonFile = join(gitDir, "commondir");
  if (!existsSync(commonFile)) return { workTree: top, gitDir, commonDir: gitDir };
  const commonDir = _real(resolve(gitDir, readFileSync(commonFile, "utf8").trim()));
  if (inside(gitDir) || inside(commonDir)) {
    throw new GitRefusal(
      `Refusing to run git: ${commonFile} sends git to ${commonDir}; a repository's own .git has no commondir. Remove it if you did not make it.`,
    );
  }
  return { workTree: top, gitDir, commonDir };
}

function _readGitFile(path: string): string {
  const text = readFileSync(path, "utf8");
  const match = /^gitdir: (.+)$/m.exec(text);
  if (!match) throw new GitRefusal(`Refusing to run git: ${path} is neither a folder nor a "gitdir:" file.`);
  return _real(resolve(dirname(path), match[1]!.trim()));
}

function _baseEnv(): Record<string, string> {
  const env = childEnv();
  for (const name of Object.keys(env)) if (name.startsWith("GIT_") && !_KEPT_GIT_ENV.has(name)) delete env[name];
  return { ...env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", GIT_NO_REPLACE_OBJECTS: "1", GIT_PAGER: "cat", PAGER: "cat", LC_ALL: "C" };
}

function _share(from: string, to: string): void {
  const stat = _stat(from);
  if (!stat) return;
  if (process.platform !== "win32") symlinkSync(from, to);
  else if (stat.isDirectory()) symlinkSync(from, to, "junction");
  else copyFileSync(from, to);
}

function _stat(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function _real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return isAbsolute(path) ? path : resolve(path);
  }
}

function _remove(path: string): void {
  rmSync(path, { recursive: true, force: true });
}
