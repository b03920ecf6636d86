/**
 * The guard plugin: refuses destructive `bash` commands before they run, even under --yolo.
 *
 * It reads the command the way bash will (lib/shell/): every simple command of a list, pipeline,
 * subshell, function body or command substitution; quotes, escapes, `$'…'` and brace lists
 * resolved (`r''m -r"f"`, `\rm`, `{rm,-rf,x}`); assignments and wrappers (`env`, `sudo`,
 * `timeout`, `xargs`…) peeled; program paths reduced to names; long options read as GNU and git
 * read abbreviations (`--recur`, `--har`, `--force-w`); and the literal scripts of `bash -c`,
 * `eval`, here-documents fed to a shell, git `!` aliases and `find -exec` read as commands too.
 * A line bash syntax cannot parse (bash would refuse it too) or that nests shells deeper than
 * the reader follows is refused.
 *
 * It fails closed: a line no rule refuses but whose program, flags or script the text does not
 * determine (an expansion as the program or in a refused program's flags, an alias or a function
 * the line defines, `eval` of a substitution, a shell fed by a process substitution, a wrapper's
 * command string it cannot read; guard-unreadable.ts) is a finding too, with `action: "ask"`:
 * the gate asks the user, and refuses where nobody can answer. What runs from a file (a script,
 * a Makefile, a git alias in the config) is not read. This is a seatbelt, not a sandbox.
 */
import type { ToolCallInfo, ToolCallVerdict } from "../lib/extension-api/plugin-api.ts";
import { loadShellParser } from "../lib/shell/parser.ts";
import { peelCommand } from "../lib/shell/peel.ts";
import {
  SHELLS,
  STDIN_PATHS,
  listFindExecs,
  readCommand,
  readShellInvocation,
  toSimpleCommand,
  type CommandReading,
  type ReadCommand,
} from "../lib/shell/read.ts";
import { startsOption } from "../lib/shell/options.ts";
import { findUnreadable, type UnreadableClass } from "./guard-unreadable.ts";

export interface GuardRule {
  why: string;
  /** True when the command line, read as bash reads it, does what the rule refuses. */
  matches(line: GuardLine): boolean;
}

export interface GuardLine {
  source: string;
  reading: CommandReading;
}

const _SHORT_CLUSTER = /^-[a-zA-Z]+$/;

/** The rules, in the order they are checked. */
export const GUARD_RULES: readonly GuardRule[] = [
  {
    why: "recursive or forced delete",
    matches: (line) =>
      _runs(line, "shred").length > 0 ||
      _runs(line, "rm").some(({ peeled }) => {
        const options = _beforeDashDash(peeled.args);
        return _hasShort(options, /[rRf]/) || options.some((arg) => startsOption(arg, "--recursive") || startsOption(arg, "--force"));
      }),
  },
  {
    why: "deletes files found by find",
    matches: (line) =>
      line.reading.commands.some(
        ({ peeled }) =>
          (peeled.program === "find" && peeled.args.includes("-delete")) ||
          listFindExecs(peeled).some((words) => _DELETERS.has(peelCommand(toSimpleCommand(words)).program)),
      ),
  },
  {
    why: "discards uncommitted work",
    matches: (line) =>
      _git(line, "reset").some((args) => args.some((arg) => startsOption(arg, "--hard"))) ||
      _git(line, "checkout").some(
        (args) => _hasShort(_beforeDashDash(args), /f/) || args.some((arg) => startsOption(arg, "--force")) || _pathspecs(args, true).some(_isWholeTree),
      ) ||
      _git(line, "restore").some((args) => _pathspecs(args, false).some(_isWholeTree) && _restoresWorktree(args)) ||
      _git(line, "switch").some((args) => _hasShort(args, /f/) || args.some((arg) => startsOption(arg, "--force") || startsOption(arg, "--discard-changes"))) ||
      _git(line, "rm").some((args) => _hasShort(_beforeDashDash(args), /f/) || _beforeDashDash(args).some((arg) => startsOption(arg, "--force"))) ||
      _git(line, "checkout-index").some((args) => _hasShort(args, /f/) || args.some((arg) => startsOption(arg, "--force"))) ||
      _git(line, "read-tree").some((args) => args.includes("-u") && args.some((arg) => arg === "--reset" || arg === "-m")),
  },
  {
    why: "deletes untracked files",
    matches: (line) => _git(line, "clean").some((args) => _hasShort(args, /f/) || args.some((arg) => startsOption(arg, "--force"))),
  },
  {
    why: "rewrites or deletes remote history",
    matches: (line) =>
      _git(line, "push").some(
        (args) =>
          _hasShort(_beforeDashDash(args), /f/) ||
          _hasShort(_beforeDashDash(args), /d/) ||
          args.some(
            (arg) =>
              startsOption(arg, "--force") ||
              startsOption(arg, "--force-with-lease") ||
              startsOption(arg, "--mirror") ||
              startsOption(arg, "--delete") ||
              startsOption(arg, "--prune") ||
              /^[+:]./.test(arg),
          ),
      ),
  },
  {
    why: "deletes a branch without a merge check",
    matches: (line) =>
      _git(line, "branch").some(
        (args) =>
          _hasShort(args, /D/) ||
          ((_hasShort(args, /d/) || args.some((arg) => startsOption(arg, "--delete"))) &&
            (_hasShort(args, /f/) || args.some((arg) => startsOption(arg, "--force")))),
      ),
  },
  {
    why: "destroys database data",
    matches: (line) => /\b(?:drop|truncate)\s+(?:table|database|schema)\b/i.test(line.source),
  },
  {
    why: "writes to a raw device",
    matches: (line) =>
      line.reading.commands.some(
        ({ peeled, simple }) =>
          /^mkfs(?:\.\w+)?$/.test(peeled.program) ||
          (peeled.program === "dd" && peeled.args.some((arg) => /^of=\/dev\/(?!(?:null|zero|stdout|stderr|tty)$)/.test(arg))) ||
          simple.redirects.some((redirect) => _RAW_DEVICE.test(redirect)),
      ) || _RAW_DEVICE.test(line.source),
  },
  {
    why: "makes files world-writable",
    matches: (line) => _runs(line, "chmod").some(({ peeled }) => peeled.args.some(_grantsWorldWrite)),
  },
  {
    why: "affects the whole machine",
    matches: (line) =>
      line.reading.commands.some(
        ({ peeled }) =>
          _MACHINE.has(peeled.program) ||
          (peeled.program === "systemctl" && peeled.args.some((arg) => _MACHINE.has(arg) || arg === "kexec")) ||
          ((peeled.program === "init" || peeled.program === "telinit") && ["0", "6"].includes(peeled.args[0] ?? "")),
      ),
  },
  {
    why: "kills every process",
    matches: (line) =>
      _runs(line, "kill").some(({ peeled }) => _killTargets(peeled.args).includes("-1")) ||
      line.reading.commands.some(({ peeled }) => peeled.program === "killall5"),
  },
  {
    why: "fork bomb",
    matches: (line) => /([\w:.]+)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*\1\s*&/.test(line.source),
  },
  {
    why: "pipes text into a shell",
    matches: (line) =>
      line.reading.commands.some(({ peeled, simple }) => {
        const sourcing = peeled.program === "source" || peeled.program === ".";
        if (SHELLS.has(peeled.program) || sourcing) {
          const shell = readShellInvocation(peeled.args);
          if (simple.piped && (sourcing ? STDIN_PATHS.has(peeled.args[0] ?? "") : shell.readsStdin)) return true;
          // `… | xargs sh -c`: xargs hands the piped text to the shell as its script or arguments.
          if (simple.piped && peeled.wrappers.includes("xargs")) return true;
          // `sh -c "$(curl …)"`, `bash <(curl …)`, `source <(curl …)`: code the line itself produces.
          return peeled.args.some((arg, i) => !peeled.argKnown[i] && /^(?:<\(|\$\(|`)|^"\$\(/.test(arg));
        }
        return (
          simple.piped &&
          _INTERPRETERS.test(peeled.program) &&
          _readsScriptFromStdin(peeled.args) &&
          line.reading.commands.some((other) => _DOWNLOADERS.has(other.peeled.program))
        );
      }),
  },
  {
    // Checked last, so a line that also matches a rule above names that rule (its fallback words).
    why: "does not parse as bash, or nests shells too deep, so the guard cannot read it",
    matches: (line) => !line.reading.parsed,
  },
];

const _DELETERS = new Set(["rm", "unlink", "shred", "rmdir"]);
const _MACHINE = new Set(["shutdown", "reboot", "halt", "poweroff"]);
const _DOWNLOADERS = new Set(["curl", "wget", "fetch", "http", "https"]);
const _INTERPRETERS = /^(?:python[\d.]*|perl|ruby|node|nodejs|php|deno|bun|lua)$/;
const _RAW_DEVICE = />\s*\/dev\/(?:sd|nvme|disk|hd|vd|xvd|mmcblk)/;
const _WHOLE_TREE = /^(?:\.{1,2}(?:\/\.{0,2})*\/?|\*|:.*)$/;

/** An interpreter with no inline code (`-c`, `-e`, `-m`, `-r`, `-p`, `--eval`…) and no script file, or the script `-`. */
function _readsScriptFromStdin(args: readonly string[]): boolean {
  for (const arg of args) {
    if (STDIN_PATHS.has(arg)) return true;
    if (/^-[a-zA-Z]*[ceEmrp]/.test(arg) || /^--(?:eval|print|command)/.test(arg)) return false;
    if (!arg.startsWith("-")) return false;
  }
  return true;
}

/** Commands whose program is `name` (a program glob such as `/bin/r?` counts when it fits). */
function _runs(line: GuardLine, name: string): ReadCommand[] {
  return line.reading.commands.filter(({ peeled }) => peeled.program === name || (peeled.programGlob && _globMatches(peeled.program, name)));
}

function _globMatches(pattern: string, name: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".")
    .replace(/\[!/g, "[^");
  try {
    return new RegExp(`^${source}$`).test(name);
  } catch {
    return false;
  }
}

/** Arguments of every `git <subcommand>` (global options already dropped). */
function _git(line: GuardLine, subcommand: string): string[][] {
  return _runs(line, "git")
    .filter(({ peeled }) => peeled.args[0] === subcommand)
    .map(({ peeled }) => peeled.args.slice(1));
}

function _hasShort(args: readonly string[], letters: RegExp): boolean {
  return args.some((arg) => _SHORT_CLUSTER.test(arg) && letters.test(arg.slice(1)));
}

function _beforeDashDash(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  return end === -1 ? [...args] : args.slice(0, end);
}

/** Pathspec arguments: after `--`, or (without one) the non-option words, minus a leading tree-ish for checkout. */
function _pathspecs(args: readonly string[], checkout: boolean): string[] {
  const end = args.indexOf("--");
  if (end !== -1) return args.slice(end + 1);
  const words = args.filter((arg) => !arg.startsWith("-"));
  return checkout ? words.filter(_isWholeTree) : words;
}

function _isWholeTree(pathspec: string): boolean {
  return _WHOLE_TREE.test(pathspec);
}

/** `git restore` touches the work tree unless only --staged is given. */
function _restoresWorktree(args: readonly string[]): boolean {
  const options = _beforeDashDash(args);
  const staged = options.some((arg) => startsOption(arg, "--staged")) || _hasShort(options, /S/);
  const worktree = options.some((arg) => startsOption(arg, "--worktree")) || _hasShort(options, /W/);
  return !staged || worktree;
}

/** A chmod mode giving others write permission: octal `…2`/`…3`/`…6`/`…7`, or `o+w`, `a=rwx`, `o=u`… */
function _grantsWorldWrite(arg: string): boolean {
  if (/^[0-7]{1,5}$/.test(arg)) return arg.length >= 3 && (Number(arg.at(-1)) & 2) !== 0;
  return arg.split(",").some((clause) => {
    const match = /^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$/.exec(clause);
    if (!match || !/[oa]/.test(match[1]!)) return false;
    return [...match[2]!.matchAll(/([-+=])([rwxXstugo]*)/g)].some(([, op, perms]) => op !== "-" && /[wug]/.test(perms!));
  });
}

/** The process ids `kill` is given: after its signal option, `-s SIG`, or `--`. */
function _killTargets(args: readonly string[]): string[] {
  let i = 0;
  if (args[0] === "-s" || args[0] === "-n" || args[0] === "--signal") i = 2;
  else if (args[0] === "-l" || args[0] === "-L" || args[0]?.startsWith("--list")) return [];
  else if (args[0] !== undefined && args[0] !== "--" && args[0].startsWith("-")) i = 1;
  if (args[i] === "--") i++;
  return args.slice(i);
}

const _SHOWN = 120;

/**
 * What the guard found in a command. `refuse`: a rule matched (`rule` is its `why`); the call
 * never runs. `ask`: the guard cannot read what the line runs (`unreadable` names the class);
 * the gate asks, and refuses where nobody can answer. `message` is what the model reads.
 */
export type GuardFinding = { action: "refuse"; rule: string; message: string } | { action: "ask"; unreadable: UnreadableClass; why: string; message: string };

/** The finding for a command, or undefined when it passes. Synchronous: call `loadShellParser()` first (the plugin hook does). */
export function inspectCommand(command: string): GuardFinding | undefined {
  const line: GuardLine = { source: command, reading: readCommand(command) };
  const shown = _shown(command);
  const rule = GUARD_RULES.find((candidate) => candidate.matches(line));
  if (rule)
    return { action: "refuse", rule: rule.why, message: `refusing "${shown}" (${rule.why}). Ask the user to run it themselves if it is really needed.` };
  const unreadable = findUnreadable(line.reading);
  if (!unreadable) return undefined;
  return {
    action: "ask",
    unreadable: unreadable.class,
    why: unreadable.why,
    message: `cannot tell what "${shown}" runs (${unreadable.why}). Write the command out literally, or ask the user to run it.`,
  };
}

/** The finding's message, or undefined when the command passes. */
export function checkCommand(command: string): string | undefined {
  return inspectCommand(command)?.message;
}

function _shown(command: string): string {
  const flat = command.replace(/\s+/g, " ").trim();
  return flat.length > _SHOWN ? `${flat.slice(0, _SHOWN - 1)}…` : flat;
}

/**
 * The guard plugin's answer (guard-plugin.ts) for a call whose tool declares a shell command:
 * the refusal, a question, or undefined when the command passes.
 */
export async function judgeCommand(command: string, { cwd, checkpoint }: Pick<ToolCallInfo, "cwd" | "checkpoint">): Promise<ToolCallVerdict | undefined> {
  await loadShellParser();
  const finding = inspectCommand(command);
  if (!finding) return undefined;
  // What stays in covered workspace files, a checkpoint can take back: a question instead (guard-rewind.ts).
  // Loaded only for a refusal under a checkpoint: the rewind check walks the tree, ignore files included.
  if (
    finding.action === "refuse" &&
    checkpoint &&
    (await import("./guard-rewind.ts")).isRewindable(command, GUARD_RULES, { root: cwd, maxFileBytes: checkpoint.maxFileBytes })
  )
    return { ask: `this would be refused (${finding.rule}), but a checkpoint covers it: /undo or shiro rewind takes it back` };
  return finding.action === "refuse" ? finding.message : { ask: finding.message };
}
