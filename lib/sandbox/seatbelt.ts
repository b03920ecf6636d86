/**
 * The macOS `sandbox-exec` (Seatbelt) profile and command line for one sandboxed command.
 * Untested on real macOS by this project's CI (it runs on Linux); the profile follows the same
 * rules as the bubblewrap one: reads anywhere, writes only in the workspace (`workspace-write`)
 * and a private temp folder, the workspace's `.git` itself (no rename) and its control entries
 * (lib/shell/git-layout.ts; `commondir` not even created) read-only, no network unless `network`, and no reads of the `hide` paths
 * (hidden-paths.ts). Paths reach the profile as `-D` parameters, never spliced into it,
 * so no path can change the profile's meaning.
 */
import { realpathSync } from "node:fs";
import { GIT_CONTROL_ENTRIES, GIT_DIR_NAME } from "../shell/git-layout.ts";

export interface SeatbeltPolicy {
  mode: "workspace-write" | "read-only";
  network: boolean;
  /** Paths to deny reads of; they reach the profile as `HIDE<n>` parameters. */
  hide?: readonly string[];
  /** Folders beside the workspace (`--add-dir`), writable like it; they reach the profile as `EXTRA<n>` parameters. */
  extraDirs?: readonly string[];
}

/** What a writable workspace keeps: `.git` itself (no rename or removal) and its control entries. */
const _GIT_DENIED: readonly (readonly ["literal" | "subpath", string])[] = [
  ["literal", `/${GIT_DIR_NAME}`],
  ...GIT_CONTROL_ENTRIES.map((entry) => [entry.kind === "folder" ? "subpath" : "literal", `/${GIT_DIR_NAME}/${entry.name}`] as const),
];

/** The profile text; `ROOT` and `TMP` are `-D` parameters of sandbox-exec. */
export function buildSeatbeltProfile(policy: SeatbeltPolicy): string {
  const writable = [
    ...(policy.mode === "workspace-write" ? ['(subpath (param "ROOT"))', ...(policy.extraDirs ?? []).map((_, at) => `(subpath (param "EXTRA${at}"))`)] : []),
    '(subpath (param "TMP"))',
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/tty")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/fd/")',
  ];
  const lines = ["(version 1)", "(allow default)", "(deny file-write*)", `(allow file-write* ${writable.join(" ")})`];
  if (policy.mode === "workspace-write") {
    const denied = _GIT_DENIED.map(([kind, path]) => `(${kind} (string-append (param "ROOT") "${path}"))`);
    lines.push(`(deny file-write* ${denied.join(" ")})`);
  }
  const hidden = (policy.hide ?? []).map((_, at) => `(subpath (param "HIDE${at}"))`);
  if (hidden.length > 0) lines.push(`(deny file-read* ${hidden.join(" ")})`);
  if (!policy.network) lines.push("(deny network*)");
  return `${lines.join("\n")}\n`;
}

/** The argv that runs `command` in `root` under sandbox-exec, with `tmp` as its private temp folder. */
export function buildSeatbeltArgv(sandboxExec: string, policy: SeatbeltPolicy, root: string, tmp: string, command: readonly string[]): string[] {
  const privateTmp = _realpath(tmp);
  return [
    sandboxExec,
    "-p",
    buildSeatbeltProfile(policy),
    "-D",
    `ROOT=${_realpath(root)}`,
    "-D",
    `TMP=${privateTmp}`,
    ...(policy.hide ?? []).flatMap((path, at) => ["-D", `HIDE${at}=${path}`]),
    ...(policy.extraDirs ?? []).flatMap((path, at) => ["-D", `EXTRA${at}=${_realpath(path)}`]),
    "/usr/bin/env",
    `TMPDIR=${privateTmp}`,
    ...command,
  ];
}

function _realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
