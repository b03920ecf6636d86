/**
 * The tokeniser of every full-text index: text in, search terms out, the same way for documents
 * and for queries.
 *
 * Contract:
 * - Terms are lower case. A run of letters, digits and `_ . / - :` is one word; a word that joins
 *   parts (`lib/auth/login.ts`, `snake_case`, `parseHttpURL`, `v1.2`) yields the whole word and
 *   each part: camelCase humps (`parse`, `http`, `url`), snake_case and kebab-case pieces, path
 *   segments and the extension. Digits stay with the letters before them (`file1`, `utf8`).
 * - A word of letters only is stemmed (Porter, the `stemmer` package; a short table maps common
 *   irregular past forms first): `running`/`runs`/`ran` → `run`, `deployment`/`deployed` →
 *   `deploy`. Terms holding a digit or a joiner are kept whole, so numbers, versions, dates
 *   (`2026-03-14` and its parts) and paths stay exact; `10,000` is the one number `10000`. The
 *   same fold applies to queries, so they stay symmetric.
 * - Common English function words are dropped; a term of one character is dropped unless digit.
 * - TOKENIZER_VERSION changes whenever the terms produced for some text change: an index built
 *   with another version is out of date.
 */
import { stemmer } from "stemmer";

export const TOKENIZER_VERSION = 2;

const _WORD = /[\p{L}\p{N}_./:-]+/gu;
// The same two patterns over ASCII text, where \p{L} is A-Za-z and \p{N} is 0-9: compiling the
// Unicode classes costs a process's first tokenize more than an ASCII prompt's whole work.
const _WORD_ASCII = /[A-Za-z0-9_./:-]+/g;
const _NOT_ASCII = /[^\x00-\x7f]/;
// `10,000` and `1,250,000` are one number each.
const _THOUSANDS = /(\d),(?=\d{3}(?!\d))/g;
const _JOINERS = /[_./:-]+/;
const _HUMPS = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+\p{N}*|\p{Lu}+\p{N}*|\p{N}+/gu;
const _HUMPS_ASCII = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+/g;

const _STOPWORDS = new Set(
  "a about all am an and any are as at be because been being between both but by can could did do does doing during each few for from had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of on once only or other ought our ours ourselves own she should so some such than that the their theirs them themselves then there these they this those through to too until up us very was we were what when where which while who whom why will with would you your yours yourself yourselves also let lets got".split(
    " ",
  ),
);

/** Every term of `text`, in order, repeats kept (term frequency counts them). */
export function tokenize(text: string): string[] {
  return _NOT_ASCII.test(text) ? _tokenize(text, _WORD, _HUMPS) : _tokenize(text, _WORD_ASCII, _HUMPS_ASCII);
}

/** `tokenize` by the Unicode patterns whatever the text: the reference its ASCII path is tested against. */
export function tokenizeByUnicodePatterns(text: string): string[] {
  return _tokenize(text, _WORD, _HUMPS);
}

// The patterns' matches are walked with exec, not matchAll or match: a first request's ranking
// would be those builtins' first calls (each compiled then, about 0.1 ms apiece). The patterns are
// global and shared, so each walk starts from lastIndex 0; none matches an empty string.
function _tokenize(text: string, wordPattern: RegExp, humpPattern: RegExp): string[] {
  const terms: string[] = [];
  const source = text.includes(",") ? text.replace(_THOUSANDS, "$1") : text;
  wordPattern.lastIndex = 0;
  for (let match = wordPattern.exec(source); match !== null; match = wordPattern.exec(source)) {
    const word = match[0].replace(/^[_./:-]+|[_./:-]+$/g, "");
    if (!word) continue;
    _push(terms, word.toLowerCase());
    for (const part of _partsOf(word, humpPattern)) _push(terms, part);
  }
  return terms;
}

/** The distinct terms of a query, in first-seen order. */
export function tokenizeQuery(query: string): string[] {
  return [...new Set(tokenize(query))];
}

/** The pieces between joiners (when there are several) and the camelCase humps of each piece. */
function _partsOf(word: string, humpPattern: RegExp): string[] {
  const parts: string[] = [];
  const pieces = word.split(_JOINERS).filter(Boolean);
  for (const piece of pieces) {
    if (pieces.length > 1) parts.push(piece.toLowerCase());
    const humps: string[] = [];
    humpPattern.lastIndex = 0;
    for (let hump = humpPattern.exec(piece); hump !== null; hump = humpPattern.exec(piece)) humps.push(hump[0]);
    if (humps.length > 1) for (const hump of humps) parts.push(hump.toLowerCase());
  }
  return parts;
}

function _push(terms: string[], raw: string): void {
  if (raw.length < 2 && !/\d/.test(raw)) return;
  if (_STOPWORDS.has(raw)) return;
  terms.push(_fold(raw));
}

/** A word of letters only, to its Porter stem (irregular past forms first); anything with a digit or joiner stays as it is. */
function _fold(term: string): string {
  if (term.length < 3 || /[^a-z]/.test(term)) return term;
  let stem = _stems.get(term);
  if (stem === undefined) {
    stem = stemmer(_IRREGULAR.get(term) ?? term);
    // Porter turns a final y into i after a vowel-bearing stem but leaves `deployment` → `deploy`: one spelling for both.
    if (stem.endsWith("y")) stem = `${stem.slice(0, -1)}i`;
    if (_stems.size >= _STEM_CACHE) _stems.clear();
    _stems.set(term, stem);
  }
  return stem;
}

const _STEM_CACHE = 50_000;
const _stems = new Map<string, string>();

// The irregular forms people use for work done; Porter's rules leave them alone.
const _IRREGULAR = new Map(
  "ran:run went:go gone:go wrote:write written:write built:build broke:break broken:break chose:choose chosen:choose made:make found:find paid:pay sent:send spent:spend told:tell thought:think bought:buy brought:bring caught:catch fought:fight kept:keep left:leave lost:lose meant:mean met:meet said:say sold:sell taught:teach understood:understand began:begin begun:begin drove:drive driven:drive fell:fall fallen:fall flew:fly flown:fly forgot:forget forgotten:forget froze:freeze frozen:freeze gave:give given:give grew:grow grown:grow knew:know known:know rode:ride rose:rise saw:see seen:see shook:shake spoke:speak spoken:speak stole:steal stolen:steal swam:swim took:take taken:take threw:throw thrown:throw woke:wake wore:wear won:win"
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);
