/**
 * A command line as the list of simple commands bash will run: every `cmd args…` of a list,
 * pipeline, subshell, group, loop, function body, command substitution, process substitution
 * or assignment value, in source order. Requires the parser to be loaded (see parser.ts).
 *
 * When bash syntax does not parse the text (an unclosed quote…), the text is split at `;`, `&`,
 * `|`, newlines, parentheses, braces and backquotes into whitespace-separated words with every
 * quote and backslash dropped, and `parsed` is false.
 */
import { parseShell, type ShNode, type ShSyntax } from "./parser.ts";
import { createSourceText, evaluateWord, type SourceText } from "./words.ts";

export interface SimpleCommand {
  /** The words after the leading assignments, as the program receives them (see words.ts). */
  words: string[];
  /** Per word: false when it holds an expansion, so `words[i]` is only its source text. */
  known: boolean[];
  /** Per word: an unquoted glob character. */
  glob: boolean[];
  /** Leading assignments as written (`X=1`), whitespace collapsed. */
  assigns: string[];
  /** Redirections as written (`2>&1`, `>out`), whitespace collapsed. */
  redirects: string[];
  /** Its standard input comes from a pipe (`… | cmd`). */
  piped: boolean;
  /** The text of a here-document or here-string fed to it, when the text is literal. */
  stdinText?: string;
  /**
   * True when standard input is redirected from something the text does not show: a process
   * substitution or expansion as the file (`< <(curl …)`, `< $f`), a descriptor (`<&3`), or a
   * here-document or here-string holding an expansion.
   */
  stdinUnknown?: boolean;
}

export interface ShellReading {
  commands: SimpleCommand[];
  /** False when bash syntax did not parse the text and the fallback split was used. */
  parsed: boolean;
  /** Names of the functions the text declares (`f() { … }`, `function f { … }`). */
  functions: string[];
  /** What `export`, `declare`, `local`, `readonly` or `typeset` set, as written (`X=1`, `X` for `declare -x X`), whitespace collapsed. */
  declared: string[];
}

const _PIPE_OPS = new Set([12, 13]);
const _HEREDOC_OPS = new Set([61, 62]);
const _HERESTRING_OP = 63;
/** `<`, `<>`, `<&`: redirections that can feed a descriptor from a file or another descriptor. */
const _INPUT_OPS = new Set([56, 57, 58]);

export function readSimpleCommands(source: string): ShellReading {
  const parsed = parseShell(source);
  if (!parsed) return { commands: _splitFallback(source), parsed: false, functions: [], declared: [] };
  const { syntax, file } = parsed;
  const text = createSourceText(source);
  const pipedRanges: [number, number][] = [];
  const commands: SimpleCommand[] = [];
  const functions: string[] = [];
  const declared: string[] = [];
  syntax.Walk(file, (node) => {
    if (!node) return true;
    const type = syntax.NodeType(node);
    if (type === "FuncDecl" && typeof node.Name?.Value === "string") functions.push(node.Name.Value);
    if (type === "DeclClause") for (const arg of node.Args ?? []) if (arg.Name) declared.push(_collapse(text.slice(arg)));
    if (type === "BinaryCmd" && _PIPE_OPS.has(node.Op)) pipedRanges.push([node.Y.Pos().Offset(), node.Y.End().Offset()]);
    if (type === "Stmt" && node.Cmd && syntax.NodeType(node.Cmd) === "CallExpr") {
      const start = node.Pos().Offset();
      const piped = pipedRanges.some(([from, to]) => start >= from && start < to);
      commands.push(_readCall(syntax, node, text, piped));
    }
    return true;
  });
  return { commands, parsed: true, functions, declared };
}

function _readCall(syntax: ShSyntax, stmt: ShNode, text: SourceText, piped: boolean): SimpleCommand {
  const call = stmt.Cmd as ShNode;
  const command: SimpleCommand = {
    words: [],
    known: [],
    glob: [],
    piped,
    assigns: (call.Assigns ?? []).map((assign: ShNode) => _collapse(text.slice(assign))),
    redirects: [],
  };
  for (const word of call.Args ?? []) {
    for (const value of evaluateWord(syntax, word, text)) {
      command.words.push(value.text);
      command.known.push(value.known);
      command.glob.push(value.glob);
    }
  }
  for (const redirect of stmt.Redirs ?? []) {
    const op = redirect.Op as number;
    const body = _HEREDOC_OPS.has(op) ? redirect.Hdoc : op === _HERESTRING_OP ? redirect.Word : undefined;
    const fd = redirect.N?.Value as string | undefined;
    if (body) {
      const values = evaluateWord(syntax, body, text);
      if (values.length === 1 && values[0]!.known) command.stdinText = values[0]!.text;
      else if (fd === undefined || fd === "0") command.stdinUnknown = true;
      command.redirects.push(_collapse(text.slice(redirect).split("\n")[0]!));
    } else {
      if (_INPUT_OPS.has(op) && (fd === undefined || fd === "0") && redirect.Word) {
        const values = evaluateWord(syntax, redirect.Word, text);
        if (op === 58 || values.length !== 1 || !values[0]!.known) command.stdinUnknown = true;
      }
      command.redirects.push(_collapse(text.slice(redirect)));
    }
  }
  return command;
}

function _collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function _splitFallback(source: string): SimpleCommand[] {
  const pieces = source.split(/([;&|\n\r(){}`]+)/);
  const commands: SimpleCommand[] = [];
  let piped = false;
  for (let i = 0; i < pieces.length; i += 2) {
    const words = pieces[i]!.trim()
      .split(/\s+/)
      .map((word) => word.replace(/['"\\]/g, ""))
      .filter((word) => word.length > 0);
    if (words.length > 0) {
      commands.push({ words, known: words.map(() => true), glob: words.map((word) => /[*?[]/.test(word)), assigns: [], redirects: [], piped });
    }
    const separator = pieces[i + 1] ?? "";
    piped = /\|/.test(separator) && !/\|\|/.test(separator);
  }
  return commands;
}
