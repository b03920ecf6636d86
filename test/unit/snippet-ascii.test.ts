/**
 * buildSnippet's ASCII path (an ASCII query over ASCII text, matched by patterns without Unicode
 * classes) gives exactly the snippet and marks the Unicode patterns give: a table of prose, code,
 * paths and every ASCII character, seeded random texts and queries, and queries or texts beyond
 * ASCII (which take the Unicode path: `ſ` and `K` fold to ASCII letters there).
 */
import { describe, expect, test } from "bun:test";
import { buildSnippet, buildSnippetByUnicodePatterns } from "../../lib/find/snippet.ts";

const ALL_ASCII = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join("");

const CASES: [string, string, string][] = [
  ["a word and its longer forms", "hi there, about hi: hiking and this, hi5 and xhi", "hi"],
  ["several terms, longest first", "the login redirect loops; redirects to /auth/callback log in", "login redirect"],
  ["code and paths", "fix parseHttpURL in lib/auth/login.ts (v1.2) and utf8 decode", "lib/auth/login.ts parseHttpURL"],
  ["case", "ECONNREFUSED when Login fails, econnrefused again", "econnrefused login"],
  ["a window far into the text", `${"lorem ipsum ".repeat(60)}the needle is here ${"dolor sit ".repeat(60)}`, "needle"],
  ["no match", "nothing to see here", "absent"],
  ["no terms", "the and of", "the of"],
  ["every ASCII character", ALL_ASCII, "abc xyz 0123"],
  ["regex characters in the query", "a.b* (c) [d] {e} ^f$ g|h \\i? j+", "a.b c d e f g.h"],
];

const BEYOND: [string, string, string][] = [
  ["a long s in the query", "stop the sync, Stop it", "ſtop"],
  ["a Kelvin sign in the text", "keep the \u212Aey in kernel", "key kernel"],
  ["accents in the text", "café login naïve login", "login"],
  ["an accented query", "resume the résumé", "résumé"],
];

function _random(seed: number, count: number, length: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const alphabet = "aAbBhHiIzZ019_./:-, \t\n";
  return Array.from({ length: count }, () => {
    let text = "";
    for (let i = 0, n = 1 + Math.floor(next() * length); i < n; i++)
      text += next() < 0.95 ? alphabet[Math.floor(next() * alphabet.length)] : String.fromCharCode(Math.floor(next() * 128));
    return text;
  });
}

describe("the ASCII path and the Unicode patterns give the same snippet", () => {
  test.each([...CASES, ...BEYOND])("%s", (_name, text, query) => {
    for (const width of [20, 160, 240]) expect(buildSnippet(text, query, width)).toEqual(buildSnippetByUnicodePatterns(text, query, width));
  });

  test("the table's cases mark what they should", () => {
    expect(buildSnippet("hi there, about hi: hiking and this, hi5", "hi").marks).toEqual([
      [0, 2],
      [16, 18],
      [20, 26],
      [37, 40],
    ]);
    expect(buildSnippet("stop the sync", "ſtop").marks).toEqual([[0, 4]]);
  });

  test("1,000 seeded random texts and queries", () => {
    const texts = _random(0x5a1e, 1_000, 120);
    const queries = _random(0x0b0e, 1_000, 12);
    const differ = texts.filter(
      (text, i) => JSON.stringify(buildSnippet(text, queries[i]!, 40)) !== JSON.stringify(buildSnippetByUnicodePatterns(text, queries[i]!, 40)),
    );
    expect(differ).toEqual([]);
  });
});
