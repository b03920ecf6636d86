/**
 * A search result's snippet: one line of the matched text around the first query term found,
 * with every occurrence of a query term in it marked. Rendering (bold, `**…**`, plain) is the
 * caller's: marks are [start, end) offsets into `text`.
 */
import { tokenizeQuery } from "../search/tokenize.ts";

export interface Snippet {
  text: string;
  marks: [number, number][];
}

/** About `width` characters of `text` on one line, around the first term of `query` it holds. */
export function buildSnippet(text: string, query: string, width = 160): Snippet {
  return _buildSnippet(text, query, width, false);
}

/** `buildSnippet` by the Unicode patterns whatever the text: the reference its ASCII path is tested against. */
export function buildSnippetByUnicodePatterns(text: string, query: string, width = 160): Snippet {
  return _buildSnippet(text, query, width, true);
}

function _buildSnippet(text: string, query: string, width: number, unicode: boolean): Snippet {
  const flat = text.replace(/\s+/g, " ").trim();
  const pattern = _termPattern(query, unicode || _NOT_ASCII.test(flat) || _NOT_ASCII.test(query));
  const first = pattern ? flat.search(pattern) : -1;
  // Around the first match, but never a window shorter than the text allows.
  const start = first < 0 ? 0 : Math.max(0, Math.min(first - Math.floor(width / 3), flat.length - width));
  const end = Math.min(flat.length, start + width);
  const head = start > 0 ? "…" : "";
  const body = flat.slice(start, end);
  const out = `${head}${body}${end < flat.length ? "…" : ""}`;
  const marks: [number, number][] = [];
  if (pattern) for (const match of body.matchAll(pattern)) marks.push([head.length + match.index!, head.length + match.index! + match[0].length]);
  return { text: out, marks };
}

/**
 * The snippet with its marks wrapped in `open` and `close` (ANSI bold, `**`, or nothing), each
 * piece of its text passed through `text` first (a terminal's sanitiser), so the marks stay
 * where the matches are and are never treated themselves.
 */
export function renderSnippet(snippet: Snippet, open: string, close: string, text: (value: string) => string = (value) => value): string {
  if (!open && !close) return text(snippet.text);
  let out = "";
  let at = 0;
  for (const [from, to] of snippet.marks) {
    out += text(snippet.text.slice(at, from)) + open + text(snippet.text.slice(from, to)) + close;
    at = to;
  }
  return out + text(snippet.text.slice(at));
}

const _NOT_ASCII = /[^\x00-\x7f]/;

/**
 * A word-start pattern of the query's terms (longest first), case-insensitive; undefined for no
 * terms. For an ASCII query over ASCII text (`unicode` false) the same pattern in ASCII classes:
 * there a letter or digit is `[A-Za-z0-9]` and no character folds to another's case outside ASCII
 * (`ſ`, `K` need a query or text beyond it), so the matches are the same, without compiling the
 * Unicode classes (which a first request's snippets paid otherwise).
 */
function _termPattern(query: string, unicode: boolean): RegExp | undefined {
  // The snippets of one answer share their query: its pattern is made once (search and matchAll leave a RegExp as it was).
  const last = _lastPattern;
  if (last && last.query === query && last.unicode === unicode) return last.pattern;
  const pattern = _makePattern(query, unicode);
  _lastPattern = { query, unicode, pattern };
  return pattern;
}

let _lastPattern: { query: string; unicode: boolean; pattern: RegExp | undefined } | undefined;

function _makePattern(query: string, unicode: boolean): RegExp | undefined {
  const terms = tokenizeQuery(query).sort((a, b) => b.length - a.length);
  if (terms.length === 0) return undefined;
  const escaped = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  return unicode ? new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped})[\\p{L}\\p{N}]*`, "giu") : new RegExp(`(?<![A-Za-z0-9])(?:${escaped})[A-Za-z0-9]*`, "gi");
}
