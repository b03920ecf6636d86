/**
 * The bash parser, loaded on first use. mvdan-sh is mvdan/sh's syntax package compiled to
 * JavaScript: the full syntax tree (every simple command, word part and redirection), parsed
 * synchronously once loaded. Loading it costs about as much as a small process start (see
 * test/bench/shell-parser.ts), so nothing imports it up front: whoever reads a bash command
 * first awaits `loadShellParser()`, and `parseShell` is synchronous from then on. A plain answer
 * with no bash call never loads it.
 */
import type { ShNode, ShParser, ShSyntax } from "mvdan-sh";

export type { ShNode, ShSyntax };

let _syntax: ShSyntax | undefined;
let _parser: ShParser | undefined;
let _loading: Promise<void> | undefined;

/** Loads the parser once; later calls return at once. */
export function loadShellParser(): Promise<void> {
  // GopherJS sets Error.stackTraceLimit to Infinity on load, which would slow every later throw.
  const stackTraceLimit = Error.stackTraceLimit;
  _loading ??= import("mvdan-sh").then((module) => {
    Error.stackTraceLimit = stackTraceLimit;
    const exported = ((module as { default?: unknown }).default ?? module) as { syntax: ShSyntax };
    _syntax = exported.syntax;
    _parser = _syntax.NewParser(_syntax.Variant(_syntax.LangBash));
  });
  return _loading;
}

export function isShellParserLoaded(): boolean {
  return _parser !== undefined;
}

export interface ParsedShell {
  syntax: ShSyntax;
  file: ShNode;
}

/**
 * The syntax tree of `source` as bash reads it, or undefined when it does not parse. Throws
 * when called before `loadShellParser()` has resolved: that is a bug in the caller.
 */
export function parseShell(source: string): ParsedShell | undefined {
  if (!_syntax || !_parser) throw new Error("the shell parser is not loaded: await loadShellParser() before reading a command");
  try {
    return { syntax: _syntax, file: _parser.Parse(source, "") };
  } catch {
    return undefined;
  }
}
