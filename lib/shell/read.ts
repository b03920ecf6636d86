/**
 * A bash command line read the way bash will run it: every simple command (simple-commands.ts),
 * peeled (peel.ts), plus the commands it hands to another shell where their text is literal:
 * `bash -c '…'` / `sh -c`, `eval …`, a here-document or here-string fed to a shell,
 * `git -c alias.x='!…'` and `find … -exec cmd … ;`. Nesting is followed six levels deep.
 *
 * `listRuleSubjects` is what bash permission rules match: one line per simple command, the
 * peeled program and its arguments with whitespace collapsed and redirections after them, plus
 * the line from `sudo`/`doas` on when one was crossed. Requires the parser to be loaded.
 */
import { peelCommand, programName, type PeeledCommand } from "./peel.ts";
import { readSimpleCommands, type SimpleCommand } from "./simple-commands.ts";

export interface ReadCommand {
  simple: SimpleCommand;
  peeled: PeeledCommand;
  /** 0 for the command line itself, 1 for a command inside its `bash -c '…'`, and so on. */
  depth: number;
}

export interface CommandReading {
  commands: ReadCommand[];
  /** False when some text (the line or a nested script) did not parse as bash, or scripts nest deeper than MAX_NESTING. */
  parsed: boolean;
  /** Functions declared anywhere in the line or its nested scripts. */
  functions: string[];
  /** Assignments exported or declared anywhere in the line or its nested scripts, as written (`X=1`). */
  declared: string[];
}

/** Shells: programs that run a script from `-c`, a file, or standard input. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "ksh", "mksh", "dash", "ash", "fish", "csh", "tcsh", "yash", "posh"]);
/** Script paths that are standard input. */
export const STDIN_PATHS: ReadonlySet<string> = new Set(["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]);
/** How deep `bash -c "sh -c '…'"` nesting is followed. */
export const MAX_NESTING = 6;
const _FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const _FD_EXEC = new Set(["-x", "--exec", "-X", "--exec-batch"]);

const _recent = new Map<string, CommandReading>();
const _RECENT_MAX = 16;

/** Reads a command line; the guard and the rules read the same line, so recent readings are kept (treat them as read-only). */
export function readCommand(source: string): CommandReading {
  const cached = _recent.get(source);
  if (cached) return cached;
  const reading: CommandReading = { commands: [], parsed: true, functions: [], declared: [] };
  _readInto(reading, source, 0);
  if (_recent.size >= _RECENT_MAX) _recent.delete(_recent.keys().next().value!);
  _recent.set(source, reading);
  return reading;
}

function _readInto(reading: CommandReading, source: string, depth: number): void {
  const { commands, parsed, functions, declared } = readSimpleCommands(source);
  if (!parsed) reading.parsed = false;
  reading.functions.push(...functions);
  reading.declared.push(...declared);
  for (const simple of commands) _add(reading, simple, depth);
}

function _add(reading: CommandReading, simple: SimpleCommand, depth: number): void {
  const peeled = peelCommand(simple);
  reading.commands.push({ simple, peeled, depth });
  const script = nestedScript(simple, peeled);
  const execs = listFindExecs(peeled);
  if (depth >= MAX_NESTING) {
    if (script !== undefined || execs.length > 0) reading.parsed = false;
    return;
  }
  if (script !== undefined) _readInto(reading, script, depth + 1);
  for (const words of execs) _add(reading, toSimpleCommand(words), depth + 1);
}

/** The shell script a command runs from its own text: `sh -c '…'`, `eval …`, `bash <<EOF`, `trap '…' EXIT`. */
export function nestedScript(simple: SimpleCommand, peeled: PeeledCommand): string | undefined {
  if (peeled.program === "eval") return peeled.argKnown.every(Boolean) ? peeled.args.join(" ") : undefined;
  if (peeled.program === "trap") {
    const at = trapScriptIndex(peeled.args);
    return at !== undefined && peeled.argKnown[at] ? peeled.args[at] : undefined;
  }
  if (peeled.program === "git") return _gitShellAlias(simple.words);
  if (!SHELLS.has(peeled.program)) return undefined;
  const shell = readShellInvocation(peeled.args);
  if (shell.command !== undefined) return peeled.argKnown[shell.commandIndex!] ? shell.command : undefined;
  if (shell.readsStdin && !simple.piped) return simple.stdinText;
  return undefined;
}

/**
 * `git -c alias.x='!cmd' x`, `git -c core.fsmonitor='cmd' status`…: the shell commands git
 * settings given on the command line run, joined as one script.
 */
function _gitShellAlias(words: readonly string[]): string | undefined {
  const scripts: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const value = words[i] === "-c" ? words[i + 1] : /^-c[a-zA-Z]/.test(words[i]!) ? words[i]!.slice(2) : undefined;
    const alias = value === undefined ? null : /^alias\.[^=]+=\s*!(.*)$/s.exec(value);
    if (alias) scripts.push(alias[1]!);
    const setting = value === undefined ? null : /^([^=]+)=(.*)$/s.exec(value);
    if (setting && _GIT_COMMAND_SETTING.test(setting[1]!)) scripts.push(setting[2]!.replace(/^\s*!/, ""));
  }
  return scripts.length > 0 ? scripts.join("\n") : undefined;
}

/** Git settings whose value is a command git runs (or a file or folder it runs them from). */
const _GIT_COMMAND_SETTING =
  /^(?:core\.(?:pager|editor|fsmonitor|sshcommand|askpass|hookspath)|sequence\.editor|diff\.external|diff\..+\.(?:textconv|command)|filter\..+\.(?:clean|smudge|process)|merge\..+\.driver|pager\..+|gpg\.(?:.+\.)?program|credential\.(?:.+\.)?helper|uploadpack\.packobjectshook|remote\..+\.(?:uploadpack|receivepack|proxy)|core\.gitproxy|include\.path|includeif\..+\.path|sendemail\..*(?:cmd|smtpserver)|interactive\.difffilter|mergetool\..+\.cmd|difftool\..+\.cmd)$/i;

/** Where `trap`'s action is among its arguments (`trap [-p|-l] [--] action signal…`); undefined when it sets none. */
export function trapScriptIndex(args: readonly string[]): number | undefined {
  let i = 0;
  while (i < args.length && /^-[lpP]$/.test(args[i]!)) i++;
  if (args[i] === "--") i++;
  return i < args.length - 1 ? i : undefined;
}

export interface ShellInvocation {
  /** The `-c` script, when given. */
  command?: string;
  commandIndex?: number;
  /** True when the script comes from standard input (no `-c`, no script file, or `-s`). */
  readsStdin: boolean;
}

/** How a shell's arguments say where its script comes from. */
export function readShellInvocation(args: readonly string[]): ShellInvocation {
  let dashC = false;
  let dashS = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--" || arg === "-") {
      i++;
      break;
    }
    if (/^[-+]o$/.test(arg) || arg === "-O" || arg === "+O" || arg === "--rcfile" || arg === "--init-file") {
      i++;
      continue;
    }
    if (arg.startsWith("--")) continue;
    if (!/^[-+]/.test(arg)) break;
    if (arg.startsWith("-") && arg.includes("c")) dashC = true;
    if (arg.startsWith("-") && arg.includes("s")) dashS = true;
    if (/^[-+][a-zA-Z]*[oO]$/.test(arg)) i++;
  }
  if (dashC) return i < args.length ? { command: args[i], commandIndex: i, readsStdin: false } : { readsStdin: false };
  return { readsStdin: dashS || i >= args.length || STDIN_PATHS.has(args[i]!) };
}

/** A simple command of literal words (what `find -exec` runs). */
export function toSimpleCommand(words: string[]): SimpleCommand {
  return { words, known: words.map(() => true), glob: words.map(() => false), assigns: [], redirects: [], piped: false };
}

/** The commands of `find … -exec cmd … ;` (and `-execdir`, `-ok`, `-okdir`, ending `+`), and of `fd … -x cmd …` / `-X`. */
export function listFindExecs(peeled: PeeledCommand): string[][] {
  if (peeled.program === "fd" || peeled.program === "fdfind") {
    const at = peeled.args.findIndex((arg) => _FD_EXEC.has(arg));
    if (at === -1) return [];
    const end = peeled.args.indexOf(";", at + 1);
    const words = peeled.args.slice(at + 1, end === -1 ? undefined : end);
    return words.length > 0 ? [words] : [];
  }
  if (peeled.program !== "find") return [];
  const found: string[][] = [];
  for (let i = 0; i < peeled.args.length; i++) {
    if (!_FIND_EXEC.has(peeled.args[i]!)) continue;
    let end = i + 1;
    while (end < peeled.args.length && peeled.args[end] !== ";" && peeled.args[end] !== "+") end++;
    if (end > i + 1) found.push(peeled.args.slice(i + 1, end));
    i = end;
  }
  return found;
}

/** The lines bash permission rules are matched against, in order, without repeats. */
export function listRuleSubjects(source: string): string[] {
  const subjects: string[] = [];
  const add = (line: string) => {
    if (line && !subjects.includes(line)) subjects.push(line);
  };
  for (const { simple, peeled } of readCommand(source).commands) {
    const redirects = simple.redirects.join(" ");
    if (peeled.privileged) add([programName(peeled.privileged[0]!), ...peeled.privileged.slice(1), redirects].filter(Boolean).join(" "));
    if (peeled.program || peeled.args.length > 0 || simple.words.length > 0) {
      const program = peeled.program || (simple.words.length > 0 ? _innermostWord(simple, peeled) : "");
      add([program, ...peeled.args, redirects].filter(Boolean).join(" ").replace(/\s+/g, " ").trim());
    } else {
      add([...simple.assigns, redirects].filter(Boolean).join(" "));
    }
  }
  if (subjects.length === 0) add(source.replace(/\s+/g, " ").trim());
  return subjects;
}

/** The program word as written when it holds an expansion (`$CMD`). */
function _innermostWord(simple: SimpleCommand, peeled: PeeledCommand): string {
  return simple.words[simple.words.length - peeled.args.length - 1] ?? simple.words[0]!;
}
