/**
 * The bubblewrap command line for one sandboxed command (Linux).
 *
 * The sandbox sees the whole host file system read-only (`--ro-bind / /`), a fresh /dev and
 * /proc, a private empty /tmp (tmpfs, gone when the command ends) and the workspace: writable in
 * `workspace-write`, read-only in `read-only`. In `workspace-write` the workspace's git dirs are
 * mount points with their config, hooks and pointers read-only (git-mounts.ts), so a command
 * cannot plant code that git later runs outside the sandbox. Without `network` the command gets
 * its own network namespace (loopback only,
 * nothing listening). It runs in new PID and session namespaces and dies with shiro; as root it
 * also gets a user namespace with every capability dropped, so it cannot remount anything. With
 * a seccomp filter it cannot create Unix sockets either (seccomp.ts). Every path of `hide`
 * (hidden-paths.ts) reads as an empty folder (a read-only tmpfs) or an empty file (/dev/null).
 */
import { realpathSync, statSync } from "node:fs";
import { gitProtectionArgs, type WorkspaceGit } from "./git-mounts.ts";

export interface BwrapPolicy {
  mode: "workspace-write" | "read-only";
  network: boolean;
  /** A compiled seccomp filter (seccomp.ts) to load; bwrap reads it from fd 3, which a `sh` in front opens. */
  seccompFile?: string;
  /** Real, existing paths to hide from reads (resolveHiddenPaths). */
  hide?: readonly string[];
  /** The workspace's git dirs found at session start (git-mounts.ts); its `.git` is looked at anew either way. */
  git?: WorkspaceGit;
  /** Folders beside the workspace (`--add-dir`), bound like it: writable in `workspace-write`, their `.git` protected the same way. */
  extraDirs?: readonly string[];
}

/**
 * The argv that runs `command` (an argv, looked up on PATH inside the sandbox) in `root` under
 * `bwrap`. `euid` is the effective user id of shiro (root gets a user namespace and no caps).
 */
export function buildBwrapArgv(bwrap: string, policy: BwrapPolicy, root: string, command: readonly string[], euid = process.geteuid?.() ?? -1): string[] {
  const args = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid"];
  if (euid === 0) args.push("--unshare-user", "--cap-drop", "ALL");
  if (!policy.network) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
  const bind = policy.mode === "workspace-write" ? "--bind" : "--ro-bind";
  const real = _realpath(root);
  args.push(bind, real, real);
  if (real !== root) args.push(bind, real, root);
  const extra = (policy.extraDirs ?? []).map(_realpath);
  for (const dir of extra) args.push(bind, dir, dir);
  args.push(..._hideArgs(policy.hide ?? []));
  if (policy.mode === "workspace-write") {
    args.push(...gitProtectionArgs(real, real === root ? [real] : [real, root], policy.git));
    for (const dir of extra) args.push(...gitProtectionArgs(dir, [dir]));
  }
  if (policy.seccompFile) args.push("--seccomp", "3");
  args.push("--setenv", "TMPDIR", "/tmp", "--chdir", root, "--", ...command);
  // exec keeps the pid: the process shiro spawned (and kills) is bwrap itself.
  return policy.seccompFile ? ["/bin/sh", "-c", 'exec "$@" 3<"$0"', policy.seccompFile, ...args] : args;
}

function _hideArgs(hide: readonly string[]): string[] {
  const args: string[] = [];
  for (const path of hide) {
    const folder = statSync(path, { throwIfNoEntry: false })?.isDirectory();
    if (folder === undefined) continue;
    args.push(...(folder ? ["--tmpfs", path, "--remount-ro", path] : ["--ro-bind", "/dev/null", path]));
  }
  return args;
}

function _realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
