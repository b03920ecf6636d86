/**
 * The value of one shell word as bash would pass it to a program: quotes dropped, backslash
 * escapes and `$'…'` escapes resolved, unquoted brace lists expanded (`{rm,-rf,x}` is three
 * words). A word holding an expansion (`$VAR`, `$(…)`, backquotes, `$((…))`, `<(…)`) has no
 * value the text can tell: it comes back `known: false` with its source text. Globbing is not
 * done; `glob` says the word has an unquoted `*`, `?` or `[`.
 */
import type { ShNode, ShSyntax } from "./parser.ts";

export interface WordValue {
  /** The literal value, or the word's source text when it is not known. */
  text: string;
  known: boolean;
  glob: boolean;
}

interface _Segment {
  text: string;
  quoted: boolean;
}

/** Reads `source` byte ranges: the parser's positions are UTF-8 byte offsets. */
export interface SourceText {
  slice(node: ShNode): string;
}

export function createSourceText(source: string): SourceText {
  const bytes = new TextEncoder().encode(source);
  const decoder = new TextDecoder();
  return { slice: (node) => decoder.decode(bytes.subarray(node.Pos().Offset(), node.End().Offset())) };
}

const _MAX_BRACE_WORDS = 64;

/** The words one syntax-tree word becomes: one, or several after brace expansion. */
export function evaluateWord(syntax: ShSyntax, word: ShNode, source: SourceText): WordValue[] {
  const segments: _Segment[] = [];
  let known = true;
  const visit = (part: ShNode, quoted: boolean): void => {
    const type = syntax.NodeType(part);
    if (type === "Lit") segments.push({ text: quoted ? _unescapeDouble(part.Value) : _unescapeBare(part.Value), quoted });
    else if (type === "SglQuoted") segments.push({ text: part.Dollar ? decodeAnsiC(part.Value) : part.Value, quoted: true });
    else if (type === "DblQuoted") for (const inner of part.Parts ?? []) visit(inner, true);
    else {
      known = false;
      segments.push({ text: source.slice(part), quoted });
    }
  };
  for (const part of word.Parts ?? []) visit(part, false);
  if (!known) return [{ text: source.slice(word).replace(/\s+/g, " "), known: false, glob: false }];
  const text = segments.map((segment) => segment.text).join("");
  const bare = segments
    .filter((segment) => !segment.quoted)
    .map((segment) => segment.text)
    .join("");
  const glob = /[*?[]/.test(bare);
  if (!/\{[^}]*(?:,|\.\.)[^}]*\}/.test(bare)) return [{ text, known, glob }];
  return expandBraces(text).map((expanded) => ({ text: expanded, known, glob }));
}

function _unescapeBare(raw: string): string {
  return raw.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
}

function _unescapeDouble(raw: string): string {
  return raw.replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
}

const _ANSI: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** Resolves the escapes of a `$'…'` string (`\x72` → `r`, `\162` → `r`, `\u0072` → `r`). */
export function decodeAnsiC(raw: string): string {
  return raw.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (match, code: string) => {
    const head = code[0]!;
    if (head === "x" || head === "u" || head === "U") return String.fromCodePoint(Number.parseInt(code.slice(1), 16));
    if (/[0-7]/.test(head)) return String.fromCharCode(Number.parseInt(code, 8) & 0xff);
    if (head === "c" && code.length === 2) return String.fromCharCode(code.charCodeAt(1) & 0x1f);
    return _ANSI[code] ?? match;
  });
}

/** Bash brace expansion of one word (`a{b,c}d` → `abd acd`, `{1..3}`), capped at 64 words. */
export function expandBraces(word: string): string[] {
  const open = _findBraceList(word);
  if (!open) return [word];
  const { start, end, items } = open;
  const out: string[] = [];
  for (const item of items) {
    for (const expanded of expandBraces(word.slice(0, start) + item + word.slice(end + 1))) {
      out.push(expanded);
      if (out.length >= _MAX_BRACE_WORDS) return out;
    }
  }
  return out;
}

function _findBraceList(word: string): { start: number; end: number; items: string[] } | undefined {
  for (let start = word.indexOf("{"); start !== -1; start = word.indexOf("{", start + 1)) {
    let depth = 0;
    const commas: number[] = [];
    for (let i = start; i < word.length; i++) {
      const ch = word[i];
      if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) {
        const inner = word.slice(start + 1, i);
        if (commas.length > 0) {
          const cuts = [start, ...commas, i];
          return { start, end: i, items: cuts.slice(0, -1).map((cut, k) => word.slice(cut + 1, cuts[k + 1])) };
        }
        const range = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])$/.exec(inner);
        if (range) return { start, end: i, items: _expandRange(range[1]!, range[2]!) };
        break;
      } else if (ch === "," && depth === 1) commas.push(i);
    }
  }
  return undefined;
}

function _expandRange(from: string, to: string): string[] {
  const numeric = /\d/.test(from);
  const a = numeric ? Number(from) : from.charCodeAt(0);
  const b = numeric ? Number(to) : to.charCodeAt(0);
  const step = a <= b ? 1 : -1;
  const items: string[] = [];
  for (let n = a; items.length < _MAX_BRACE_WORDS; n += step) {
    items.push(numeric ? String(n) : String.fromCharCode(n));
    if (n === b) break;
  }
  return items;
}
