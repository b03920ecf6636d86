/**
 * The two config passes of the safe git runner (safe-git.ts).
 *
 * `sanitizedRepositoryConfig`: the repository's own config file (which a sandboxed command, a
 * cloned repository or anything else in the workspace may have written) reduced to an allow-list
 * of keys that only describe data (object format, file modes, line endings, branch tracking, diff
 * hunk headers), written out again as config text. Everything else is dropped: commands, pagers,
 * hooks paths, drivers, includes, `core.worktree`, extensions other than the object format.
 * Dropping is the default, so a key git learns to run tomorrow is dropped today.
 *
 * `neutralizingOverrides`: for the config git will really read (system, global and their
 * includes, which the user wrote), a `GIT_CONFIG_KEY_n`/`VALUE_n` override for every key that
 * can start a program, fixed names and every driver name found alike: attributes (a committed
 * `.gitattributes`) can name any driver, and `git diff` runs a filter's `clean` on work-tree files.
 */
import { existsSync } from "node:fs";
import { childProcess } from "../platform/runtime.ts";

/** Keys of the repository config kept, as `section.key` or `section.*.key` (lower-case; `*` is any subsection). */
const _KEPT = new Set([
  "core.repositoryformatversion",
  "core.filemode",
  "core.symlinks",
  "core.ignorecase",
  "core.precomposeunicode",
  "core.protecthfs",
  "core.protectntfs",
  "core.autocrlf",
  "core.eol",
  "core.safecrlf",
  "core.checkstat",
  "core.trustctime",
  "core.abbrev",
  "extensions.objectformat",
  "extensions.compatobjectformat",
  "extensions.refstorage",
  "branch.*.remote",
  "branch.*.merge",
  "remote.*.fetch",
  "diff.*.xfuncname",
  "diff.*.funcname",
  "diff.*.binary",
  "diff.*.wordregex",
  "diff.renames",
  "diff.algorithm",
  "i18n.commitencoding",
  "i18n.logoutputencoding",
]);

/**
 * Overrides applied to every git call shiro makes, whatever any config says: the safe git runner
 * here and the checkpoint store's runner (lib/store/checkpoint-git.ts) alike. One list, so a key
 * that can start a program is switched off for both at once.
 */
export const FIXED_GIT_OVERRIDES: readonly (readonly [string, string])[] = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["core.sshCommand", "false"],
  ["core.askPass", ""],
  ["core.gitProxy", ""],
  ["core.alternateRefsCommand", ""],
  ["core.untrackedCache", "false"],
  ["core.quotePath", "false"],
  ["color.ui", "never"],
  ["diff.external", ""],
  ["diff.noprefix", "false"],
  ["diff.mnemonicPrefix", "false"],
  ["diff.relative", "false"],
  ["diff.ignoreSubmodules", "all"],
  ["status.submoduleSummary", "false"],
  ["submodule.recurse", "false"],
  ["log.showSignature", "false"],
  ["gpg.program", "false"],
  ["gpg.openpgp.program", "false"],
  ["gpg.x509.program", "false"],
  ["gpg.ssh.program", "false"],
  ["gpg.ssh.defaultKeyCommand", "false"],
  ["credential.helper", ""],
  ["protocol.allow", "never"],
  ["sequence.editor", "false"],
  ["interactive.diffFilter", ""],
];

/** Driver keys that name a program: `<section>.<driver>.<key>`. */
const _DRIVER_KEYS: Record<string, readonly string[]> = {
  filter: ["clean", "smudge", "process"],
  diff: ["textconv", "command"],
  merge: ["driver"],
};

export interface ConfigEntry {
  section: string;
  subsection?: string;
  key: string;
  /** Undefined for a key written without `=` (boolean true). */
  value?: string;
}

/** Parses `git config --list -z` output. */
export function parseConfigList(raw: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  for (const record of raw.split("\0")) {
    if (!record) continue;
    const newline = record.indexOf("\n");
    const name = newline === -1 ? record : record.slice(0, newline);
    const first = name.indexOf(".");
    const last = name.lastIndexOf(".");
    if (first <= 0 || last === name.length - 1) continue;
    entries.push({
      section: name.slice(0, first).toLowerCase(),
      ...(last > first ? { subsection: name.slice(first + 1, last) } : {}),
      key: name.slice(last + 1).toLowerCase(),
      ...(newline === -1 ? {} : { value: record.slice(newline + 1) }),
    });
  }
  return entries;
}

/** Keys that name a program outside the drivers, as `section.key` or `section.*.key`; for reporting only (the runner keeps an allow-list). */
const _PROGRAM_KEYS = new Set([
  "core.fsmonitor",
  "core.hookspath",
  "core.pager",
  "core.editor",
  "core.sshcommand",
  "core.askpass",
  "core.gitproxy",
  "core.alternaterefscommand",
  "diff.external",
  "sequence.editor",
  "interactive.difffilter",
  "credential.helper",
  "credential.*.helper",
  "gpg.program",
  "gpg.*.program",
  "gpg.ssh.defaultkeycommand",
  "pager.*",
  "include.path",
  "includeif.*.path",
  "remote.*.uploadpack",
  "remote.*.receivepack",
  "difftool.*.cmd",
  "mergetool.*.cmd",
]);

/** The names of the keys among `entries` that can start a program (`core.fsmonitor`, `filter.x.clean`, an alias starting with `!`). */
export function programKeys(entries: readonly ConfigEntry[]): string[] {
  const names: string[] = [];
  for (const entry of entries) {
    const name = entry.subsection === undefined ? `${entry.section}.${entry.key}` : `${entry.section}.${entry.subsection}.${entry.key}`;
    const pattern = entry.subsection === undefined ? name : `${entry.section}.*.${entry.key}`;
    const driver = entry.subsection !== undefined && _DRIVER_KEYS[entry.section]?.includes(entry.key);
    const pager = entry.section === "pager";
    const alias = entry.section === "alias" && (entry.value ?? "").trimStart().startsWith("!");
    if (driver || pager || alias || _PROGRAM_KEYS.has(pattern)) names.push(name);
  }
  return [...new Set(names)];
}

/** Reads one config file as entries, without its includes. */
export function readConfigFile(path: string, env: NodeJS.ProcessEnv, cwd: string): ConfigEntry[] {
  return existsSync(path) ? parseConfigList(_gitConfig(["config", "--no-includes", "--file", path, "--list", "-z"], env, cwd)) : [];
}

/** True when the allow-list keeps `entry`. */
export function keepsEntry(entry: ConfigEntry): boolean {
  return _KEPT.has(entry.subsection === undefined ? `${entry.section}.${entry.key}` : `${entry.section}.*.${entry.key}`);
}

/** The kept entries as config text, one section header per entry (git merges them). */
export function serializeConfig(entries: readonly ConfigEntry[]): string {
  const lines: string[] = [];
  for (const entry of entries) {
    if (entry.subsection !== undefined && /[\n\0]/.test(entry.subsection)) continue;
    const header = entry.subsection === undefined ? `[${entry.section}]` : `[${entry.section} "${_escape(entry.subsection)}"]`;
    lines.push(header, entry.value === undefined ? `\t${entry.key}` : `\t${entry.key} = "${_escape(entry.value)}"`);
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}

/** The repository config file at `path` reduced to the allow-list, as config text ("" when there is none). */
export function sanitizedRepositoryConfig(path: string, env: NodeJS.ProcessEnv, cwd: string): string {
  return serializeConfig(readConfigFile(path, env, cwd).filter(keepsEntry));
}

/** The overrides for the config `env` makes git read: the fixed ones, then every program-naming driver key found. */
export function neutralizingOverrides(env: NodeJS.ProcessEnv, cwd: string): [string, string][] {
  const overrides: [string, string][] = FIXED_GIT_OVERRIDES.map(([key, value]) => [key, value]);
  const seen = new Set<string>();
  for (const entry of parseConfigList(_gitConfig(["config", "--includes", "--list", "-z"], env, cwd))) {
    const keys = _DRIVER_KEYS[entry.section];
    if (!keys || entry.subsection === undefined) continue;
    const id = `${entry.section}\0${entry.subsection}`;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const key of keys) overrides.push([`${entry.section}.${entry.subsection}.${key}`, ""]);
    if (entry.section === "filter") overrides.push([`filter.${entry.subsection}.required`, "false"]);
  }
  return overrides;
}

function _escape(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}

function _gitConfig(args: string[], env: NodeJS.ProcessEnv, cwd: string): string {
  try {
    return childProcess().execFileSync("git", args, {
      cwd,
      env,
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { status?: number | null; stderr?: string };
    if (failure.code === "ENOENT") throw new Error("git is not installed or not on PATH.");
    const why =
      String(failure.stderr ?? "")
        .trim()
        .split("\n")[0] || failure.message;
    throw new Error(`Refusing to run git: its config cannot be read (${why}).`);
  }
}
