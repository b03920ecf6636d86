/**
 * The shadow git repository a project's checkpoints live in, and the one way shiro runs git on
 * it. The repository is `checkpoints/<hash16>/git` in the state folder (0700), its index
 * `checkpoints/<hash16>/index`, and its work tree the workspace: the user's `.git` (HEAD, index,
 * refs, stash, config) is never opened, and a folder that is not a repository works the same.
 *
 * The workspace may be hostile, so git runs with none of the user's or the machine's
 * configuration (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`, every inherited `GIT_*`
 * variable dropped), the program-starting keys every git call of shiro's switches off
 * (`FIXED_GIT_OVERRIDES`, shared with the safe git runner: hooks, fsmonitor, credential helpers,
 * signing programs, pagers, …), no excludes or attributes file of the user's, and an
 * `info/attributes` that unsets `text`, `filter`, `ident` and `working-tree-encoding` for every
 * path, so no clean filter, textconv or line-ending conversion can run or change bytes on the way
 * in. Objects are never packed or pruned by git itself (`gc.auto=0`); checkpoints.ts prunes.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, writeFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { FIXED_GIT_OVERRIDES } from "../shell/git-config.ts";
import { shadowGitEnv } from "./git-probe.ts";

export interface ShadowRepo {
  /** The workspace root (the work tree). */
  root: string;
  /** checkpoints/<hash16>/ */
  dir: string;
  gitDir: string;
  indexFile: string;
}

/** Thrown when git exits non-zero: its argv and stderr. */
export class ShadowGitError extends Error {}

/** The shadow repository's own settings, after the overrides every git call of shiro's gets (git-config.ts). */
const _SAFE_CONFIG = [
  ...FIXED_GIT_OVERRIDES.map(([key, value]) => `${key}=${value}`),
  "core.excludesFile=/dev/null",
  "core.attributesFile=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.fileMode=true",
  "core.trustctime=true",
  "core.checkStat=default",
  "index.version=2",
  "core.ignoreCase=false",
  "core.precomposeUnicode=false",
  "core.sparseCheckout=false",
  "core.splitIndex=false",
  "commit.gpgSign=false",
  "gc.auto=0",
  "maintenance.auto=false",
].flatMap((setting) => ["-c", setting]);

const _ATTRIBUTES = "* -text -filter -ident -working-tree-encoding !eol !diff\n";

/** The shadow repository of `root` under `dir`, created (mode 0700) on first use. */
export async function openShadowRepo(root: string, dir: string): Promise<ShadowRepo> {
  const repo: ShadowRepo = { root, dir, gitDir: join(dir, "git"), indexFile: join(dir, "index") };
  if (!existsSync(join(repo.gitDir, "HEAD"))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    await runGit(repo, ["init", "--quiet", "--template="]);
    mkdirSync(join(repo.gitDir, "info"), { recursive: true, mode: 0o700 });
  }
  const attributes = join(repo.gitDir, "info", "attributes");
  if (!existsSync(attributes)) writeFileSync(attributes, _ATTRIBUTES, { mode: 0o600 });
  return repo;
}

/** Runs git on the shadow repository; resolves with stdout, rejects with ShadowGitError. */
export function runGit(repo: ShadowRepo, args: readonly string[], input?: string | Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A work tree that is gone (an added folder a turn removed) still lets git read the object store.
    const cwd = existsSync(repo.root) ? repo.root : repo.dir;
    const child = spawn("git", [..._SAFE_CONFIG, ...args], { cwd, env: shadowGitEnv(repo), stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error) => reject(new ShadowGitError(`git could not start: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new ShadowGitError(`git ${args[0]} failed: ${Buffer.concat(err).toString("utf8").trim() || `exit ${code}`}`));
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(input ?? "");
  });
}

/** NUL-separated output as a list, without the empty tail. */
export function splitNul(output: Buffer): string[] {
  const text = output.toString("utf8");
  if (text === "") return [];
  const parts = text.split("\0");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** `lstat` of a workspace path, undefined when it cannot be read (gone, or a file on the way). */
export function lstatIfAny(abs: string): Stats | undefined {
  try {
    return lstatSync(abs);
  } catch {
    return undefined;
  }
}
