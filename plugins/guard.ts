/**
 * The guard plugin: refuses destructive `bash` commands before they run, even under --yolo.
 *
 * It reads the command text only. Commands are split into simple commands at `;`, `&`, `|`,
 * newlines, parentheses, braces and backticks, and each is read as whitespace-separated words
 * with surrounding quotes dropped. Anything the text hides (a decoded payload, an expanded
 * variable, a script file) passes: this is a seatbelt, not a sandbox.
 */
import type { Plugin } from "../lib/plugins.ts";

export interface GuardRule {
  why: string;
  matches(command: string): boolean;
}

type Words = string[];

const _FLAG_CLUSTER = /^-[a-zA-Z]+$/;

const _hasShortFlag = (words: Words, letters: RegExp) => words.some((word) => _FLAG_CLUSTER.test(word) && letters.test(word.slice(1)));

/** The 12 refusals, in the order they are checked. */
export const GUARD_RULES: readonly GuardRule[] = [
  {
    why: "recursive or forced delete",
    matches: (command) => _invocations(command, "rm").some((args) => {
      const flags = args.slice(0, _endOfOptions(args));
      return _hasShortFlag(flags, /[rRf]/) || flags.includes("--recursive") || flags.includes("--force");
    }),
  },
  {
    why: "discards uncommitted work",
    matches: (command) => _git(command, "reset").some((args) => args.includes("--hard")),
  },
  {
    why: "deletes untracked files",
    matches: (command) => _git(command, "clean").some((args) => _hasShortFlag(args, /f/) || args.includes("--force")),
  },
  {
    why: "rewrites remote history",
    matches: (command) => _git(command, "push").some((args) =>
      _hasShortFlag(args, /f/) || args.some((arg) => arg === "--force" || arg.startsWith("--force-with-lease") || /^\+./.test(arg))),
  },
  {
    why: "deletes a branch without a merge check",
    matches: (command) => _git(command, "branch").some((args) =>
      _hasShortFlag(args, /D/)
      || ((_hasShortFlag(args, /d/) || args.includes("--delete")) && (_hasShortFlag(args, /f/) || args.includes("--force")))),
  },
  {
    why: "destroys database data",
    matches: (command) => /\b(?:drop|truncate)\s+(?:table|database|schema)\b/i.test(command),
  },
  {
    why: "writes to a raw device",
    matches: (command) => _segments(command).some((words) => words.some((word) => /^mkfs(?:\.\w+)?$/.test(_base(word))))
      || _invocations(command, "dd").some((args) => args.some((arg) => /^of=\/dev\/(?!(?:null|zero|stdout|stderr)$)/.test(arg))),
  },
  {
    why: "writes to a raw device",
    matches: (command) => />\s*\/dev\/(?:sd|nvme|disk)/.test(command),
  },
  {
    why: "makes files world-writable",
    matches: (command) => _invocations(command, "chmod").some((args) => args.some((arg) => /^0?[0-7]?777$/.test(arg))),
  },
  {
    why: "affects the whole machine",
    matches: (command) => _segments(command).some((words) => {
      const program = words.find((word) => !/^\w+=/.test(word));
      if (program === undefined) return false;
      if (_MACHINE.has(_base(program))) return true;
      // A wrapper's own options and their values (`sudo -u root`, `timeout 5`) come before the
      // command it runs, so any later word naming one counts.
      return _WRAPPERS.has(_base(program))
        && words.slice(words.indexOf(program) + 1).some((word) => _MACHINE.has(word) || (word.startsWith("/") && _MACHINE.has(_base(word))));
    }),
  },
  {
    why: "fork bomb",
    matches: (command) => /([\w:.]+)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*\1\s*&/.test(command),
  },
  {
    why: "pipes a download straight into a shell",
    matches: (command) =>
      /\b(?:curl|wget)\b[^;&\n]*\|\s*(?:(?:[^\s|]*\/)?(?:sudo|doas|env|exec|command)\s+(?:-[^\s|]+\s+|\w+=[^\s|]*\s+)*)*(?:[^\s|]*\/)?(?:sh|bash|zsh|ksh)(?=\s|$|[;&|)])/
        .test(command),
  },
];

/** Programs that run the command named in their arguments. */
const _WRAPPERS = new Set(["sudo", "doas", "exec", "command", "nohup", "env", "time", "nice", "timeout", "xargs", "systemctl"]);
const _MACHINE = new Set(["shutdown", "reboot", "halt"]);

/** Simple commands as word lists. */
function _segments(command: string): Words[] {
  return command.split(/[;&|\n\r(){}`]/).map((segment) =>
    segment.trim().split(/\s+/).map((word) => word.replace(/^['"\\]+|['"]+$/g, "")).filter((word) => word.length > 0));
}

function _base(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

/** The arguments after every occurrence of `program` as a word. */
function _invocations(command: string, program: string): Words[] {
  const found: Words[] = [];
  for (const words of _segments(command)) {
    words.forEach((word, index) => {
      if (_base(word) === program) found.push(words.slice(index + 1));
    });
  }
  return found;
}

function _endOfOptions(args: Words): number {
  const end = args.indexOf("--");
  return end === -1 ? args.length : end;
}

/** Arguments of `git <subcommand>`, skipping git's own options (`-C <dir>`, `-c <k=v>`, `--git-dir=…`). */
function _git(command: string, subcommand: string): Words[] {
  return _invocations(command, "git").flatMap((args) => {
    let i = 0;
    while (i < args.length && args[i]!.startsWith("-")) i += args[i] === "-C" || args[i] === "-c" ? 2 : 1;
    return args[i] === subcommand ? [args.slice(i + 1)] : [];
  });
}

const _SHOWN = 120;

/** The refusal message for a command, or undefined when no rule matches. */
export function checkCommand(command: string): string | undefined {
  const rule = GUARD_RULES.find((candidate) => candidate.matches(command));
  if (!rule) return undefined;
  const flat = command.replace(/\s+/g, " ").trim();
  const shown = flat.length > _SHOWN ? `${flat.slice(0, _SHOWN - 1)}…` : flat;
  return `refusing "${shown}" (${rule.why}). Ask the user to run it themselves if it is really needed.`;
}

export function createGuardPlugin(): Plugin {
  return {
    name: "guard",
    description: "refuses destructive bash commands (rm -rf, git reset --hard, force pushes, curl | sh, …)",
    beforeToolCall({ toolName, input }) {
      if (toolName !== "bash" || input === null || typeof input !== "object") return undefined;
      const command = (input as { command?: unknown }).command;
      return typeof command === "string" ? checkCommand(command) : undefined;
    },
  };
}
