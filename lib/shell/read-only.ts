/**
 * Read-only command lines: what `ls`, `git status`, `git diff`, `cat README.md`… recognised by the
 * shell parser, so the gate may run them without asking (config `readOnlyCommands`). A line is
 * read-only only when every simple command in it is: a program from the list below with literal
 * words (no expansions, assignments, wrappers such as sudo or env, or nested scripts), no
 * redirection that writes (only `2>&1`, `>&2` and `> /dev/null`), no option that writes or runs
 * something (`find -delete`, `git diff --output`, `rg --pre`), and every path it reads inside the
 * workspace. Anything else is not read-only: the question is asked as before. Requires the parser
 * to be loaded (loadShellParser).
 */
import { resolve } from "node:path";
import { readCommand, type ReadCommand } from "./read.ts";
import { isInside } from "../platform/path-inside.ts";

/** Programs whose every non-option argument is a path they read. */
const _PATH_READERS = new Set(["ls", "cat", "head", "tail", "wc", "stat", "file", "tree", "du", "nl"]);
/** Programs that read nothing named by their arguments. */
const _PLAIN = new Set(["pwd", "echo", "whoami", "uname", "date", "which", "basename", "dirname", "true"]);
/** Programs whose first non-option argument is a pattern, and the rest paths. */
const _SEARCHERS = new Set(["grep", "rg"]);
const _GIT_READS = new Set(["status", "diff", "log", "show", "blame", "ls-files", "rev-parse", "describe", "shortlog"]);
const _FIND_WRITES = new Set(["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"]);
const _SAFE_REDIRECTS = new Set(["2>&1", ">&2", "1>&2", ">/dev/null", "2>/dev/null", "&>/dev/null", "> /dev/null", "2> /dev/null", "&> /dev/null"]);

export function isReadOnlyCommand(source: string, root: string): boolean {
  const reading = readCommand(source);
  if (!reading.parsed || reading.commands.length === 0) return false;
  return reading.commands.every((command) => _readOnly(command, root));
}

function _readOnly({ simple, peeled, depth }: ReadCommand, root: string): boolean {
  if (depth > 0 || simple.assigns.length > 0 || peeled.wrappers.length > 0 || peeled.privileged) return false;
  if (!simple.known.every(Boolean) || peeled.programGlob) return false;
  if (!simple.redirects.every((redirect) => _SAFE_REDIRECTS.has(redirect) || redirect.startsWith("<"))) return false;
  if (simple.redirects.some((redirect) => redirect.startsWith("<") && !_inside(redirect.replace(/^<\s*/, ""), root))) return false;
  const { program, args } = peeled;
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (_PLAIN.has(program)) return true;
  if (_PATH_READERS.has(program)) return operands.every((path) => _inside(path, root));
  if (_SEARCHERS.has(program)) {
    if (args.some((arg) => arg.startsWith("--pre"))) return false;
    return operands.slice(1).every((path) => _inside(path, root));
  }
  if (program === "find") {
    if (args.some((arg) => _FIND_WRITES.has(arg))) return false;
    const paths = args
      .slice(
        0,
        Math.max(
          0,
          args.findIndex((arg) => arg.startsWith("-")),
        ),
      )
      .concat(args.every((arg) => !arg.startsWith("-")) ? args : []);
    return paths.every((path) => _inside(path, root));
  }
  if (program === "git") {
    const sub = args[0];
    if (sub === undefined) return false;
    if (args.some((arg) => arg.startsWith("--output") || arg === "--ext-diff" || arg.startsWith("--exec"))) return false;
    if (sub === "branch") return args.slice(1).every((arg) => ["--list", "-a", "-r", "-v", "-vv", "--all", "--remotes", "--show-current"].includes(arg));
    return _GIT_READS.has(sub);
  }
  return false;
}

function _inside(path: string, root: string): boolean {
  if (path === "" || path.startsWith("~")) return false;
  return isInside(root, resolve(root, path));
}
