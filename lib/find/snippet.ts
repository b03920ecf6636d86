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
  const flat = text.replace(/\s+/g, " ").trim();
  const pattern = _termPattern(query);
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

/** A word-start pattern of the query's terms (longest first), case-insensitive; undefined for no terms. */
function _termPattern(query: string): RegExp | undefined {
  const terms = tokenizeQuery(query).sort((a, b) => b.length - a.length);
  if (terms.length === 0) return undefined;
  const escaped = terms.map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join("|")})[\\p{L}\\p{N}]*`, "giu");
}
