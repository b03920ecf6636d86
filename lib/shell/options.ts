/**
 * Long-option abbreviations, the way GNU getopt_long and git's parse-options read them: a
 * `--name` that is an exact option, or the prefix of exactly one, means that option
 * (`rm --recur` is `rm --recursive`, `git reset --har` is `git reset --hard`).
 *
 * The tables list what git 2.39 and GNU coreutils 9 accept for the commands the guard and rules
 * care about. A prefix of several options is left as written (the program refuses it as
 * ambiguous); `startsOption` answers "could this word be that option" for the guard, which must
 * not depend on the tables being complete.
 */

const _GIT_PUSH =
  "verbose quiet repo all mirror delete tags dry-run porcelain force force-with-lease force-if-includes recurse-submodules thin receive-pack exec set-upstream progress prune no-verify follow-tags signed atomic push-option ipv4 ipv6 verify";
const _GIT_RESET = "quiet no-refresh mixed soft hard merge keep recurse-submodules patch intent-to-add pathspec-from-file pathspec-file-nul refresh";
const _GIT_CLEAN = "quiet dry-run force interactive exclude";
const _GIT_BRANCH =
  "verbose quiet track set-upstream set-upstream-to unset-upstream color remotes contains no-contains with without abbrev all delete move copy list show-current create-reflog edit-description force merged no-merged column sort points-at ignore-case recurse-submodules format";
const _GIT_CHECKOUT =
  "guess overlay quiet recurse-submodules progress merge conflict detach track force orphan overwrite-ignore ignore-other-worktrees ours theirs patch ignore-skip-worktree-bits pathspec-from-file pathspec-file-nul";
const _GIT_RESTORE =
  "source staged worktree ignore-unmerged overlay quiet recurse-submodules progress merge conflict ours theirs patch ignore-skip-worktree-bits pathspec-from-file pathspec-file-nul";
const _GIT_SWITCH =
  "create force-create guess discard-changes quiet recurse-submodules progress merge conflict detach track force orphan overwrite-ignore ignore-other-worktrees";

let _longOptions: Record<string, readonly string[]> | undefined;

/** Long options (without `--`) by command key: a program name, or `git <subcommand>`; built on the first lookup. */
const _longOptionTable = (): Record<string, readonly string[]> =>
  (_longOptions ??= {
    rm: _words("force interactive one-file-system no-preserve-root preserve-root recursive dir verbose help version"),
    chmod: _words("changes silent quiet verbose no-preserve-root preserve-root reference recursive help version"),
    chown: _words("changes silent quiet verbose dereference no-dereference from no-preserve-root preserve-root reference recursive help version"),
    kill: _words("signal list table help version"),
    "git push": _withNegations(_GIT_PUSH),
    "git reset": _withNegations(_GIT_RESET),
    "git clean": _withNegations(_GIT_CLEAN),
    "git branch": _withNegations(_GIT_BRANCH),
    "git checkout": _withNegations(_GIT_CHECKOUT),
    "git restore": _withNegations(_GIT_RESTORE),
    "git switch": _withNegations(_GIT_SWITCH),
  });

function _words(list: string): string[] {
  return list.split(" ");
}

/** Git accepts `--no-<name>` for every option that does not already start with `no-`. */
function _withNegations(list: string): string[] {
  const names = _words(list);
  return [...names, ...names.filter((name) => !name.startsWith("no-")).map((name) => `no-${name}`)];
}

/** The option table key of a command: `git push` for git, the program name otherwise. */
export function optionKey(program: string, args: readonly string[]): string {
  return program === "git" && args[0] !== undefined ? `git ${args[0]}` : program;
}

/**
 * `args` with every unambiguous long-option abbreviation before `--` spelled out in full
 * (`--recur` → `--recursive`, `--force-w=x` → `--force-with-lease=x`). Commands without a table
 * come back unchanged.
 */
export function expandLongOptions(key: string, args: readonly string[]): string[] {
  const table = _longOptionTable()[key];
  if (!table) return [...args];
  let ended = false;
  return args.map((arg) => {
    if (ended || arg === "--") {
      ended = true;
      return arg;
    }
    if (!arg.startsWith("--") || arg.length < 3) return arg;
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (table.includes(name)) return arg;
    const candidates = table.filter((option) => option.startsWith(name));
    return candidates.length === 1 ? `--${candidates[0]}${eq === -1 ? "" : arg.slice(eq)}` : arg;
  });
}

/**
 * True when `arg` could be the long option `--option`: the option itself (with or without
 * `=value`) or any abbreviation of it. Ambiguous abbreviations count, since a newer or older
 * program may read them as this option.
 */
export function startsOption(arg: string, option: string): boolean {
  if (!arg.startsWith("--") || arg.length < 3) return false;
  const eq = arg.indexOf("=");
  const name = arg.slice(0, eq === -1 ? undefined : eq);
  return option.startsWith(name);
}
