/**
 * What the sandbox hides from reads: the usual credential locations of the home folder, shiro's
 * own state folder (config.json may hold the provider key; sessions, memory and approvals are the
 * user's) and config `sandbox.hidePaths`. A sandboxed command sees a hidden folder empty and a
 * hidden file as an empty file (bwrap mounts a tmpfs or /dev/null over it; Seatbelt denies reads).
 *
 * `hidePaths` entries are absolute, or start with `~/` (the home folder); a relative entry is
 * resolved against the workspace when the command runs. A path that does not exist is skipped,
 * and so is one that holds the workspace itself (hiding it would hide the work).
 */
import { existsSync, realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { STATE_DIR_NAME, stateDir } from "../platform/paths.ts";
import { nodeOs } from "../platform/runtime.ts";

/** Relative to the home folder: hidden from every sandboxed command. */
export const HIDDEN_HOME_PATHS = [
  ".ssh",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".config/gh",
  ".docker",
  ".kube",
  ".gnupg",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".pgpass",
  ".vault-token",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".terraform.d/credentials.tfrc.json",
  ".m2/settings.xml",
  ".my.cnf",
  ".s3cfg",
] as const;

/** The hide list as configured: default home paths, the state folders, then config `sandbox.hidePaths`, unresolved. */
export function hiddenPathList(configured: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || nodeOs().homedir();
  return [...new Set([...HIDDEN_HOME_PATHS.map((path) => join(home, path)), join(home, STATE_DIR_NAME), stateDir(env), ...configured])];
}

/** The paths to hide for a command in `root`: expanded, real, existing, and not holding the workspace. */
export function resolveHiddenPaths(list: readonly string[], root: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const home = env.HOME || nodeOs().homedir();
  const workspace = _real(root);
  const out: string[] = [];
  for (const entry of list) {
    const spelled = entry === "~" ? home : entry.startsWith("~/") ? join(home, entry.slice(2)) : isAbsolute(entry) ? entry : resolve(root, entry);
    if (!existsSync(spelled)) continue;
    const real = _real(spelled);
    const inside = relative(real, workspace);
    if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))) continue;
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

function _real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
