/**
 * What a simple command runs, under its wrappers: leading assignments and the wrappers `env`,
 * `command`, `builtin`, `nohup`, `timeout`, `xargs`, `nice`, `time`, `stdbuf`, `setsid`,
 * `exec`, `busybox`, `watch`, `ionice`, `taskset`, `flock`, `sudo` and `doas` (with their own
 * options and option values) are peeled,
 * an absolute or relative program path is reduced to its name, git's global options
 * (`-C <dir>`, `-c <k=v>`, `--no-pager`…) are dropped and long-option abbreviations are spelled
 * out (options.ts). `command -v` and `command -V` only look a name up, so peeling stops there.
 */
import { expandLongOptions, optionKey } from "./options.ts";
import type { SimpleCommand } from "./simple-commands.ts";

export interface PeeledCommand {
  /** The program's name; `""` when the program word holds an expansion or nothing is run. */
  program: string;
  /** The program word had an unquoted glob (`/bin/r?`): `program` is that pattern's last segment. */
  programGlob: boolean;
  /** Its arguments (git: after the global options), long options spelled out. */
  args: string[];
  /** Per argument: false when it holds an expansion (see words.ts). */
  argKnown: boolean[];
  /** The wrappers crossed, outermost first. */
  wrappers: string[];
  /** The words from the outermost `sudo`/`doas` on, program path reduced; undefined without one. */
  privileged?: string[];
}

interface _WrapperSpec {
  /** Short option letters and long names (without dashes) that take a separate value. */
  valued: ReadonlySet<string>;
  /** Positional words before the command (`timeout <duration>`). */
  positional?: number;
  /** NAME=value words before the command are the wrapper's (env, sudo). */
  assignments?: boolean;
}

const _spec = (valued: string, extra: Omit<_WrapperSpec, "valued"> = {}): _WrapperSpec => ({ valued: new Set(valued.split(" ").filter(Boolean)), ...extra });

const _WRAPPERS: Record<string, _WrapperSpec> = {
  env: _spec("u C S P unset chdir split-string", { assignments: true }),
  command: _spec(""),
  builtin: _spec(""),
  nohup: _spec(""),
  timeout: _spec("s k signal kill-after", { positional: 1 }),
  xargs: _spec("a d E I L n P s arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var"),
  nice: _spec("n adjustment"),
  time: _spec("o f output format"),
  stdbuf: _spec("i o e input output error"),
  setsid: _spec(""),
  exec: _spec("a"),
  busybox: _spec(""),
  watch: _spec("n interval"),
  ionice: _spec("c n p P u class classdata pid pgid uid"),
  taskset: _spec("", { positional: 1 }),
  flock: _spec("w E timeout conflict-exit-code", { positional: 1 }),
  sudo: _spec("u g h p C D R T U r t user group host prompt close-from chdir chroot command-timeout other-user role type", { assignments: true }),
  doas: _spec("u C"),
};
const _PRIVILEGED = new Set(["sudo", "doas"]);
const _GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--attr-source", "--exec-path"]);
const _ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const _MAX_WRAPPERS = 16;

/** The base name of a program word: `/usr/bin/git` → `git`. */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

export function peelCommand(command: SimpleCommand): PeeledCommand {
  let words = command.words.map((word, i) => ({ word, known: command.known[i] ?? false, glob: command.glob[i] ?? false }));
  words = _dropAssignments(words);
  const wrappers: string[] = [];
  let privileged: string[] | undefined;
  while (words.length > 0 && words[0]!.known && wrappers.length < _MAX_WRAPPERS) {
    const name = programName(words[0]!.word);
    const spec = _WRAPPERS[name];
    if (!spec) break;
    const rest = words.slice(1);
    if (name === "command" && rest.some((w) => /^-[a-zA-Z]*[vV]/.test(w.word))) break;
    if (_PRIVILEGED.has(name) && !privileged) privileged = [name, ...rest.map((w) => w.word)];
    let start = _skipOptions(
      rest.map((w) => w.word),
      spec,
    );
    const split = name === "env" ? _splitStringValue(rest.map((w) => w.word)) : undefined;
    let inner = rest.slice(start);
    if (split) inner = [...split.map((word) => ({ word, known: true, glob: false })), ...inner];
    if (spec.assignments) inner = _dropAssignments(inner);
    start = Math.min(spec.positional ?? 0, inner.length);
    inner = inner.slice(start);
    if (inner.length === 0) break;
    wrappers.push(name);
    words = inner;
  }
  const head = words[0];
  if (!head) return { program: "", programGlob: false, args: [], argKnown: [], wrappers, ...(privileged ? { privileged } : {}) };
  const program = head.known ? programName(head.word) : "";
  let rest = words.slice(1);
  if (program === "git") rest = rest.slice(_skipGitGlobals(rest.map((w) => w.word)));
  const args = rest.map((w) => w.word);
  return {
    program,
    programGlob: head.glob,
    args: expandLongOptions(optionKey(program, args), args),
    argKnown: rest.map((w) => w.known),
    wrappers,
    ...(privileged ? { privileged } : {}),
  };
}

function _dropAssignments<T extends { word: string; known: boolean }>(words: T[]): T[] {
  let i = 0;
  while (i < words.length && _ASSIGNMENT.test(words[i]!.word)) i++;
  return words.slice(i);
}

/** Index of the first word after the wrapper's options (and after `--`). */
function _skipOptions(args: readonly string[], spec: _WrapperSpec): number {
  let i = 0;
  while (i < args.length) {
    const arg = args[i]!;
    if (arg === "--") return i + 1;
    if (!arg.startsWith("-") || arg === "-") return i;
    if (arg.startsWith("--")) {
      i += !arg.includes("=") && spec.valued.has(arg.slice(2)) ? 2 : 1;
      continue;
    }
    const letters = arg.slice(1);
    const valuedAt = [...letters].findIndex((letter) => spec.valued.has(letter));
    i += valuedAt === letters.length - 1 ? 2 : 1;
  }
  return i;
}

/** `env -S 'cmd args'` / `--split-string=…`: the words the string splits into. */
function _splitStringValue(args: readonly string[]): string[] | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-")) return undefined;
    let value: string | undefined;
    if (arg === "-S" || arg === "--split-string") value = args[i + 1];
    else if (arg.startsWith("--split-string=")) value = arg.slice("--split-string=".length);
    else if (/^-[^-]*S./.test(arg)) value = arg.slice(arg.indexOf("S") + 1);
    if (value !== undefined) return value.trim().split(/\s+/).filter(Boolean);
  }
  return undefined;
}

function _skipGitGlobals(args: readonly string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") i += _GIT_VALUED.has(args[i]!) ? 2 : 1;
  return i;
}
