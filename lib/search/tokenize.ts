/**
 * The tokeniser of every full-text index: text in, search terms out, the same way for documents
 * and for queries.
 *
 * Contract:
 * - Terms are lower case. A run of letters, digits and `_ . / - :` is one word; a word that joins
 *   parts (`lib/auth/login.ts`, `snake_case`, `parseHttpURL`, `v1.2`) yields the whole word and
 *   each part: camelCase humps (`parse`, `http`, `url`), snake_case and kebab-case pieces, path
 *   segments and the extension. Digits stay with the letters before them (`file1`, `utf8`).
 * - A light plural fold: `tests` → `test`, `queries` → `query` (never under four letters, never
 *   `ss`, `us`, `is` endings). The same fold applies to queries, so they stay symmetric.
 * - Common English function words are dropped; a term of one character is dropped unless digit.
 * - TOKENIZER_VERSION changes whenever the terms produced for some text change: an index built
 *   with another version is out of date.
 */

export const TOKENIZER_VERSION = 1;

const _WORD = /[\p{L}\p{N}_./:-]+/gu;
const _JOINERS = /[_./:-]+/;
const _HUMPS = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+\p{N}*|\p{Lu}+\p{N}*|\p{N}+/gu;

const _STOPWORDS = new Set([
  "a",
  "an",
  "and",
  "are",
  "as",
  "at",
  "be",
  "but",
  "by",
  "did",
  "do",
  "does",
  "for",
  "from",
  "had",
  "has",
  "have",
  "how",
  "i",
  "if",
  "in",
  "into",
  "is",
  "it",
  "its",
  "me",
  "my",
  "of",
  "on",
  "or",
  "our",
  "so",
  "that",
  "the",
  "their",
  "them",
  "then",
  "there",
  "these",
  "this",
  "those",
  "to",
  "up",
  "us",
  "was",
  "we",
  "were",
  "what",
  "when",
  "where",
  "which",
  "who",
  "why",
  "will",
  "with",
  "you",
  "your",
]);

/** Every term of `text`, in order, repeats kept (term frequency counts them). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(_WORD)) {
    const word = match[0].replace(/^[_./:-]+|[_./:-]+$/g, "");
    if (!word) continue;
    _push(terms, word.toLowerCase());
    for (const part of _partsOf(word)) _push(terms, part);
  }
  return terms;
}

/** The distinct terms of a query, in first-seen order. */
export function tokenizeQuery(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** The pieces between joiners (when there are several) and the camelCase humps of each piece. */
function _partsOf(word: string): string[] {
  const parts: string[] = [];
  const pieces = word.split(_JOINERS).filter(Boolean);
  for (const piece of pieces) {
    if (pieces.length > 1) parts.push(piece.toLowerCase());
    const humps = piece.match(_HUMPS);
    if (humps && humps.length > 1) for (const hump of humps) parts.push(hump.toLowerCase());
  }
  return parts;
}

function _push(terms: string[], raw: string): void {
  if (raw.length < 2 && !/\d/.test(raw)) return;
  if (_STOPWORDS.has(raw)) return;
  terms.push(_fold(raw));
}

function _fold(term: string): string {
  if (term.length < 4 || /[^a-z]/.test(term)) return term;
  if (term.endsWith("ies")) return `${term.slice(0, -3)}y`;
  if (term.endsWith("sses")) return term.slice(0, -2);
  if (term.endsWith("s") && !/(ss|us|is)$/.test(term)) return term.slice(0, -1);
  return term;
}
