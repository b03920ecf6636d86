/**
 * What a simple command runs, under its wrappers: leading assignments and the wrappers of
 * `_wrapperSpecs` (`env`, `sudo`, `timeout`, `xargs`, `nice`, `strace`, `chroot`, `unshare`,
 * `flock`, `su`…, with their own options and option values) are peeled, an absolute or relative
 * program path is reduced to its name, git's global options (`-C <dir>`, `-c <k=v>`,
 * `--no-pager`…) are dropped and long-option abbreviations are spelled out (options.ts).
 * `command -v` and `command -V` only look a name up, so peeling stops there.
 *
 * A wrapper that runs a command string through a shell (`flock -c '…'`, `script -qc '…'`,
 * `su -c '…'`, `watch 'a b'`, `parallel 'a {}' ::: …`, `sudo -s cmd`) peels to `sh -c <string>`,
 * and one that starts a shell when given no command (`su`, `chroot DIR`, `unshare`, `script`)
 * peels to `sh`, so the shell readers see what runs. `opaque` is set when a word the peeling
 * needed to read holds an expansion, or wrappers nest past the cap.
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
  /** Per argument: it has an unquoted glob character, so the files it matches become arguments. */
  argGlob: boolean[];
  /** The wrappers crossed, outermost first. */
  wrappers: string[];
  /** The words from the outermost `sudo`/`doas` on, program path reduced; undefined without one. */
  privileged?: string[];
  /** Names assigned for the command (leading `X=1` and `env X=1`). */
  assigned: string[];
  /** Why the peeling could not read what runs: the wrapper whose words hold an expansion. */
  opaque?: string;
}

interface _WrapperSpec {
  /** Short option letters and long names (without dashes) that take a separate value. */
  valued: ReadonlySet<string>;
  /** Positional words before the command (`timeout <duration>`). */
  positional?: number;
  /** NAME=value words before the command are the wrapper's (env, sudo). */
  assignments?: boolean;
  /** Options (letters or long names) whose value is a command string run by a shell (`flock -c`). */
  script?: ReadonlySet<string>;
  /** The command words are joined into one string a shell runs (`watch`, `parallel`). */
  joins?: boolean;
  /** Given no command, it starts a shell that reads standard input (`su`, `chroot DIR`). */
  shell?: boolean;
}

const _spec = (valued: string, { script, ...extra }: Omit<_WrapperSpec, "valued" | "script"> & { script?: string } = {}): _WrapperSpec => ({
  ...extra,
  valued: new Set([...valued.split(" "), ...(script ?? "").split(" ")].filter(Boolean)),
  ...(script ? { script: new Set(script.split(" ")) } : {}),
});

const _SUDO_VALUED = "u g h p C D R T U r t user group host prompt close-from chdir chroot command-timeout other-user role type";
let _wrappers: Record<string, _WrapperSpec> | undefined;
/** The wrapper table, built on the first command peeled (a plain answer peels none). */
const _wrapperSpecs = (): Record<string, _WrapperSpec> =>
  (_wrappers ??= {
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
    toybox: _spec(""),
    watch: _spec("n d interval differences", { joins: true }),
    ionice: _spec("c n p P u class classdata pid pgid uid"),
    taskset: _spec("", { positional: 1 }),
    chrt: _spec("T P D sched-runtime sched-period sched-deadline", { positional: 1 }),
    flock: _spec("w E timeout conflict-exit-code", { positional: 1, script: "c command" }),
    script: _spec("E I O B T t m echo log-in log-out log-io log-timing logging-format", { script: "c command", shell: true, positional: 1 }),
    su: _spec("g G s w group supp-group shell whitelist-environment", { script: "c command session-command", shell: true }),
    runuser: _spec("u g G s w user group supp-group shell whitelist-environment", { script: "c command session-command", shell: true }),
    sg: _spec("", { script: "c", positional: 1, joins: true }),
    chroot: _spec("userspec groups", { positional: 1, shell: true }),
    unshare: _spec("S G R w setuid setgid root wd", { shell: true }),
    nsenter: _spec("t S G r w target setuid setgid root wd", { shell: true }),
    setpriv: _spec(""),
    prlimit: _spec("p pid"),
    strace: _spec("a b e E I o O p P s S u X"),
    ltrace: _spec("a e l n o p s u x A D F L S"),
    valgrind: _spec(""),
    catchsegv: _spec(""),
    eatmydata: _spec(""),
    fakeroot: _spec("l s i faked"),
    nocache: _spec(""),
    unbuffer: _spec(""),
    rlwrap: _spec("a b f H i l m O p P q s S t z"),
    firejail: _spec(""),
    setarch: _spec("", { positional: 1 }),
    linux32: _spec(""),
    linux64: _spec(""),
    faketime: _spec("f m", { positional: 1 }),
    entr: _spec(""),
    "systemd-run": _spec("u p E M H G unit property setenv machine host uid gid working-directory description slice"),
    parallel: _spec("j a d E I S n L P jobs arg-file delimiter eof replace sshlogin max-args max-lines max-procs", { joins: true, shell: true }),
    sudo: _spec(_SUDO_VALUED, { assignments: true }),
    doas: _spec("u C"),
    pkexec: _spec("user"),
  });
const _PRIVILEGED = new Set(["sudo", "doas"]);
const _GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--attr-source", "--exec-path"]);
const _ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const _MAX_WRAPPERS = 16;

/** The base name of a program word: `/usr/bin/git` → `git`. */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

type _Word = { word: string; known: boolean; glob: boolean };

const _word = (word: string, known = true): _Word => ({ word, known, glob: false });

export function peelCommand(command: SimpleCommand): PeeledCommand {
  let words: _Word[] = command.words.map((word, i) => ({ word, known: command.known[i] ?? false, glob: command.glob[i] ?? false }));
  const assigned: string[] = [];
  words = _dropAssignments(words, assigned);
  const wrappers: string[] = [];
  let privileged: string[] | undefined;
  let opaque: string | undefined;
  while (words.length > 0 && words[0]!.known) {
    const name = programName(words[0]!.word);
    const spec = _wrapperSpecs()[name];
    if (!spec) break;
    if (wrappers.length >= _MAX_WRAPPERS) {
      opaque ??= `more than ${_MAX_WRAPPERS} wrappers`;
      break;
    }
    const rest = words.slice(1);
    if (name === "command" && rest.some((w) => /^-[a-zA-Z]*[vV]/.test(w.word))) break;
    if (_PRIVILEGED.has(name) && !privileged) privileged = [name, ...rest.map((w) => w.word)];
    const script = spec.script ? _scriptOption(rest, spec.script) : undefined;
    if (script) {
      if (!script.known) opaque ??= name;
      wrappers.push(name);
      words = [_word("sh"), _word("-c"), script];
      break;
    }
    let start = _skipOptions(
      rest.map((w) => w.word),
      spec,
    );
    if (rest.slice(0, start).some((w) => !w.known)) opaque ??= name;
    const split = name === "env" ? _splitStringValue(rest) : undefined;
    let inner = rest.slice(start);
    if (split) inner = [...split, ...inner];
    if (spec.assignments) inner = _dropAssignments(inner, assigned);
    if (name === "su" && inner[0]?.word === "-") inner = inner.slice(1);
    const userGiven = name === "runuser" && rest.slice(0, start).some((w) => w.word === "-u" || w.word.startsWith("--user"));
    start = userGiven ? 0 : Math.min(spec.positional ?? 0, inner.length);
    if (inner.slice(0, start).some((w) => !w.known)) opaque ??= name;
    inner = inner.slice(start);
    const shellAsked =
      name === "sudo" &&
      rest
        .slice(
          0,
          _skipOptions(
            rest.map((w) => w.word),
            spec,
          ),
        )
        .some((w) => /^-[a-zA-Z]*[si]|^--(?:shell|login)$/.test(w.word));
    wrappers.push(name);
    if (inner.length === 0) {
      if (spec.shell || shellAsked) words = [_word("sh")];
      else wrappers.pop();
      break;
    }
    const direct =
      name === "watch" &&
      rest
        .slice(
          0,
          _skipOptions(
            rest.map((w) => w.word),
            spec,
          ),
        )
        .some((w) => /^-[a-zA-Z]*x|^--exec$/.test(w.word));
    if ((spec.joins && !direct) || shellAsked) {
      const end = name === "parallel" ? _indexOrEnd(inner, (w) => /^:::+\+?$/.test(w.word)) : inner.length;
      const joined = inner.slice(0, end);
      words = [
        _word("sh"),
        _word("-c"),
        _word(
          joined.map((w) => w.word).join(" "),
          joined.every((w) => w.known),
        ),
      ];
      break;
    }
    if ((name === "su" || (name === "runuser" && !userGiven)) && inner.length > 0) {
      words = [_word("sh"), ...inner];
      break;
    }
    words = inner;
  }
  const head = words[0];
  const extra = { ...(privileged ? { privileged } : {}), ...(opaque ? { opaque } : {}) };
  if (!head) return { program: "", programGlob: false, args: [], argKnown: [], argGlob: [], wrappers, assigned, ...extra };
  const program = head.known ? programName(head.word) : "";
  let rest = words.slice(1);
  if (program === "git") rest = rest.slice(_skipGitGlobals(rest.map((w) => w.word)));
  const args = rest.map((w) => w.word);
  return {
    program,
    programGlob: head.glob,
    args: expandLongOptions(optionKey(program, args), args),
    argKnown: rest.map((w) => w.known),
    argGlob: rest.map((w) => w.glob),
    wrappers,
    assigned,
    ...extra,
  };
}

function _indexOrEnd<T>(items: readonly T[], test: (item: T) => boolean): number {
  const i = items.findIndex(test);
  return i === -1 ? items.length : i;
}

/** The value of a command-string option anywhere among a wrapper's words (`-c cmd`, `-qc cmd`, `--command=cmd`). */
function _scriptOption(words: readonly _Word[], options: ReadonlySet<string>): _Word | undefined {
  for (let i = 0; i < words.length; i++) {
    const { word } = words[i]!;
    if (word === "--") break;
    if (word.startsWith("--")) {
      const [name, ...value] = word.slice(2).split("=");
      if (!options.has(name!)) continue;
      return value.length > 0 ? { ...words[i]!, word: value.join("=") } : words[i + 1];
    }
    if (!/^-[a-zA-Z]/.test(word)) continue;
    const letters = word.slice(1);
    const at = [...letters].findIndex((letter) => options.has(letter));
    if (at === -1) continue;
    return at === letters.length - 1 ? words[i + 1] : { ...words[i]!, word: letters.slice(at + 1) };
  }
  return undefined;
}

function _dropAssignments<T extends { word: string; known: boolean }>(words: T[], names: string[]): T[] {
  let i = 0;
  for (; i < words.length && _ASSIGNMENT.test(words[i]!.word); i++) names.push(words[i]!.word.slice(0, words[i]!.word.search(/\+?=/)));
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

/** `env -S 'cmd args'` / `--split-string=…`: the words the string splits into (one unknown word when it holds an expansion). */
function _splitStringValue(words: readonly _Word[]): _Word[] | undefined {
  for (let i = 0; i < words.length; i++) {
    const { word: arg, known } = words[i]!;
    if (!arg.startsWith("-")) return undefined;
    let value: _Word | undefined;
    if (arg === "-S" || arg === "--split-string") value = words[i + 1];
    else if (arg.startsWith("--split-string=")) value = _word(arg.slice("--split-string=".length), known);
    else if (/^-[^-]*S./.test(arg)) value = _word(arg.slice(arg.indexOf("S") + 1), known);
    if (value === undefined) continue;
    if (!value.known) return [value];
    return value.word
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((word) => _word(word));
  }
  return undefined;
}

function _skipGitGlobals(args: readonly string[]): number {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-") && args[i] !== "--") i += _GIT_VALUED.has(args[i]!) ? 2 : 1;
  return i;
}
