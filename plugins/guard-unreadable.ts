/**
 * What the guard cannot read: the parts of a command line whose program, flags or script the
 * text alone does not determine. The guard (guard.ts) checks its refusal rules first; a line no
 * rule refuses but that holds one of these is unknown, and unknown asks (refused headless),
 * never passes as harmless.
 *
 * The classes, in the order they are checked per simple command:
 * - `program`: the program word holds an expansion (`$X -rf v`, `"$@"`), is a glob
 *   (`/bin/r*`), or a wrapper's own words do (`env $OPTS …`, `timeout "$T" …`).
 * - `definition`: it runs an alias, or a function the same line declares with arguments
 *   (`f(){ "$@"; }; f rm -rf v`).
 * - `script`: a shell, `eval`, `source`, `trap` or a command-string wrapper (`flock -c`,
 *   `su -c`, `watch`…) runs text the line builds (`eval $(…)`, `sh -c "$x"`, `bash "$f"`), or a
 *   shell reads its script from a process substitution, a descriptor or a here-string or
 *   here-document holding an expansion (`bash < <(curl …)`, `sh <<< "$x"`).
 * - `flags`: a program the refusal rules read (`rm`, `find`, `chmod`, `git push`…) has an
 *   argument holding an expansion where a flag may stand (`rm -rf$EMPTY v`, `git push $F`), or
 *   takes more arguments from standard input (`… | xargs rm`); a git setting that runs a
 *   command is set from an expansion, a file or the environment.
 *
 * An expansion as an argument of any other program is fine (`cat "$f"`, `echo $HOME`): only
 * what runs and how the refused programs are told to run matter.
 */
import { SHELLS, STDIN_PATHS, readShellInvocation, trapScriptIndex, type CommandReading, type ReadCommand } from "../lib/shell/read.ts";

export type UnreadableClass = "program" | "definition" | "script" | "flags";

export interface UnreadablePart {
  class: UnreadableClass;
  /** What could not be read, for the question: "the program is an expansion ($X)". */
  why: string;
}

/** Programs whose arguments the refusal rules read, so an unreadable argument could be a refused flag. */
const _READ_ARGS = new Set(["rm", "find", "chmod", "dd", "kill", "killall5", "systemctl", "init", "telinit", "shred", "unlink", "rmdir"]);
/** Git subcommands the refusal rules read. */
const _GIT_READ = new Set(["reset", "checkout", "restore", "switch", "clean", "push", "branch"]);
/** find predicates that take the next word as a value (an expansion there is a value, not an action). */
const _FIND_VALUED = new Set(
  "-name -iname -path -ipath -wholename -iwholename -regex -iregex -lname -ilname -type -xtype -user -group -uid -gid -perm -size -newer -anewer -cnewer -mtime -atime -ctime -mmin -amin -cmin -maxdepth -mindepth -links -inum -samefile -fstype -used -printf -fprintf -fprint -fprint0 -fls -context -regextype".split(
    " ",
  ),
);
/** Environment variables whose value git runs as a command. */
const _GIT_COMMAND_ENV =
  /^(?:GIT_(?:EXTERNAL_DIFF|PAGER|EDITOR|SEQUENCE_EDITOR|SSH|SSH_COMMAND|ASKPASS|PROXY_COMMAND|CONFIG|CONFIG_GLOBAL|CONFIG_SYSTEM|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|DIR|EXEC_PATH|TEMPLATE_DIR)|PAGER|EDITOR|VISUAL)$/;
const _GIT_FILE_SETTING = /^(?:include\.path|includeif\..+\.path|core\.hookspath)$/i;

export function findUnreadable(reading: CommandReading): UnreadablePart | undefined {
  const aliases = new Set(reading.commands.flatMap(({ peeled }) => (peeled.program === "alias" ? peeled.args.map(_aliasName) : [])).filter(Boolean));
  const functions = new Set(reading.functions);
  const gitEnv = _lineAssignments(reading).some(_setsGitCommand);
  for (const command of reading.commands) {
    if (gitEnv && command.peeled.program === "git")
      return { class: "flags", why: "the command sets a variable git runs as a command or reads its configuration from" };
    const found = _program(command) ?? _definition(command, aliases, functions) ?? _script(command) ?? _flags(command);
    if (found) return found;
  }
  return undefined;
}

function _program({ simple, peeled }: ReadCommand): UnreadablePart | undefined {
  if (peeled.opaque) return { class: "program", why: `the words of ${peeled.opaque} hold an expansion, so what it runs is unknown` };
  if (peeled.program === "" && simple.words.length > 0) return { class: "program", why: "the program is an expansion" };
  if (peeled.programGlob) return { class: "program", why: `the program is a glob pattern (${peeled.program})` };
  return undefined;
}

function _definition({ peeled }: ReadCommand, aliases: ReadonlySet<string>, functions: ReadonlySet<string>): UnreadablePart | undefined {
  if (aliases.has(peeled.program)) return { class: "definition", why: `it runs ${peeled.program}, an alias the command defines` };
  if (functions.has(peeled.program) && peeled.args.length > 0)
    return { class: "definition", why: `it passes arguments to ${peeled.program}, a function the command defines` };
  return undefined;
}

function _script({ simple, peeled }: ReadCommand): UnreadablePart | undefined {
  const { program, args, argKnown } = peeled;
  const built = { class: "script" as const, why: `${program} runs text the command builds` };
  if (program === "eval" && argKnown.some((known) => !known)) return built;
  if ((program === "source" || program === ".") && argKnown[0] === false) return built;
  if (program === "trap") {
    const at = trapScriptIndex(args);
    if (at !== undefined && !argKnown[at]) return built;
  }
  if (!SHELLS.has(program) && program !== "source" && program !== ".") return undefined;
  if (program !== "source" && program !== ".") {
    const shell = readShellInvocation(args);
    const end = shell.commandIndex ?? args.findIndex((arg, i) => !arg.startsWith("-") && !arg.startsWith("+") && argKnown[i]);
    const scriptAt = end === -1 ? args.length : end;
    if (argKnown.slice(0, scriptAt + 1).some((known) => !known)) return built;
    const readsStdin = shell.readsStdin || STDIN_PATHS.has(args[scriptAt] ?? "");
    if (readsStdin && !simple.piped && simple.stdinUnknown)
      return { class: "script", why: `${program} reads its script from a process substitution, descriptor or here-string the text does not show` };
  } else if (STDIN_PATHS.has(args[0] ?? "") && simple.stdinUnknown) {
    return { class: "script", why: `${program} reads a script from input the text does not show` };
  }
  return undefined;
}

function _flags({ simple, peeled }: ReadCommand): UnreadablePart | undefined {
  const { program, args, argKnown } = peeled;
  const flags = { class: "flags" as const, why: `an argument of ${program} holds an expansion where a flag may stand` };
  if (program === "git") {
    const globals = _gitGlobals(simple);
    if (globals) return globals;
    if (simple.assigns.some(_setsGitCommand) || peeled.assigned.some((name) => _GIT_COMMAND_ENV.test(name) && !/PAGER$/.test(name)))
      return { class: "flags", why: "git is given a command or configuration through the environment" };
    if (argKnown[0] === false) return { class: "flags", why: "the git subcommand is an expansion" };
    if (!_GIT_READ.has(args[0] ?? "")) return undefined;
    if (_unknownBeforeDashDash(argKnown, args)) return { ...flags, why: `an argument of git ${args[0]} holds an expansion where a flag may stand` };
    if (peeled.wrappers.includes("xargs")) return { class: "flags", why: `xargs gives git ${args[0]} arguments the text does not show` };
    return undefined;
  }
  if (!_READ_ARGS.has(program) && !/^mkfs(?:\.\w+)?$/.test(program)) return undefined;
  if (peeled.wrappers.includes("xargs")) return { class: "flags", why: `xargs gives ${program} arguments the text does not show` };
  if (program === "find") {
    for (let i = 0; i < args.length; i++) if (!argKnown[i] && !_FIND_VALUED.has(args[i - 1] ?? "")) return flags;
    return undefined;
  }
  if (_unknownBeforeDashDash(argKnown, args)) return flags;
  // `touch ./-rf; rm *`: a glob that can match a name starting with `-` hands the program a flag.
  const end = args.indexOf("--");
  if (args.slice(0, end === -1 ? args.length : end).some((arg, i) => peeled.argGlob[i] && /^[*?[]/.test(arg)))
    return { class: "flags", why: `a glob among the arguments of ${program} may match a file named like a flag` };
  return undefined;
}

/** git's own options before the subcommand: `-c <setting>` that runs a command, set from an expansion, a file or the environment. */
function _gitGlobals(simple: SimpleCommandLike): UnreadablePart | undefined {
  const { words, known } = simple;
  const at = words.findIndex((word, i) => known[i] && (word === "git" || word.endsWith("/git")));
  for (let i = at + 1; i < words.length && words[i]!.startsWith("-"); i++) {
    const word = words[i]!;
    if (_GIT_VALUED.has(word)) {
      i++;
      continue;
    }
    if (word.startsWith("--config-env")) return { class: "flags", why: "a git setting comes from the environment" };
    if (!known[i]) return { class: "flags", why: "a git option holds an expansion" };
    const valueAt = word === "-c" ? i + 1 : /^-c./.test(word) ? i : -1;
    if (valueAt === -1) continue;
    if (!known[valueAt]) return { class: "flags", why: "a git setting holds an expansion" };
    const key = (valueAt === i ? word.slice(2) : (words[valueAt] ?? "")).split("=")[0]!;
    if (_GIT_FILE_SETTING.test(key)) return { class: "flags", why: `git reads ${key} from a file the text does not show` };
    i = valueAt;
  }
  return undefined;
}

const _GIT_VALUED = new Set(["-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--attr-source"]);

/** What the line assigns or exports on its own (`X=1;`, `export X=1`, `declare -x X`), as written: later commands of the line see it. */
function _lineAssignments(reading: CommandReading): string[] {
  return [...reading.declared, ...reading.commands.flatMap(({ simple }) => (simple.words.length === 0 ? simple.assigns : []))];
}

/** An assignment (`NAME=value` as written) of a variable git runs or reads configuration from; a plain pager (`cat`, `less -R`) is fine. */
function _setsGitCommand(assign: string): boolean {
  const at = assign.search(/\+?=|$/);
  if (!_GIT_COMMAND_ENV.test(assign.slice(0, at))) return false;
  const value = assign
    .slice(at)
    .replace(/^\+?=/, "")
    .replace(/^(["'])(.*)\1$/, "$2");
  return !/PAGER$/.test(assign.slice(0, at)) || !/^(?:cat|more|less(?: -[A-Za-z]+)*|)$/.test(value);
}

interface SimpleCommandLike {
  words: string[];
  known: boolean[];
}

function _unknownBeforeDashDash(argKnown: readonly boolean[], args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return argKnown.slice(0, end === -1 ? args.length : end).some((known) => !known);
}

function _aliasName(arg: string): string {
  const at = arg.indexOf("=");
  return at > 0 ? arg.slice(0, at) : "";
}
