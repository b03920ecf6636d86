/**
 * tokenize's ASCII path (patterns without Unicode classes) gives exactly the terms the Unicode
 * patterns give: a table over ASCII prose, code, paths, numbers, apostrophes and every ASCII
 * character, seeded random ASCII strings, and text with accents, CJK and emoji (Unicode path).
 */
import { describe, expect, test } from "bun:test";
import { tokenize, tokenizeByUnicodePatterns } from "../../lib/search/tokenize.ts";

const ALL_ASCII = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join("");

const CASES: [string, string][] = [
  ["prose", "The quick brown fox jumps over the lazy dog; running, deployed, wrote."],
  ["camelCase and acronyms", "parseHttpURL HTTPServer getURLsFor IPv6Addr XMLHttpRequest ABCDef aB Ab"],
  ["snake, kebab, dunder", "snake_case_name kebab-case-name __init__ _private trailing_ -leading"],
  ["paths", "lib/auth/login.ts ./src/index.ts ../a/b.c /usr/bin/env C:/x/y.txt https://example.com/a?b=c"],
  ["versions and dates", "v1.2.3 utf8 file1 2026-03-14 12:30:45 1.0.0-beta.2 x86_64"],
  ["numbers", "10,000 1,250,000 3,14 12,3456 ,000 1,000,00 42 007"],
  ["apostrophes", "don't it's users' rock'n'roll O'Reilly 'quoted'"],
  ["punctuation and blanks", "a\tb\nc\r\nd  e...f::g--h__i//j ::: --- ___ ..."],
  ["every ASCII character", ALL_ASCII],
  ["every ASCII character, reversed", [...ALL_ASCII].reverse().join("")],
  ["single characters", "a b 1 2 x Y _ . / : -"],
  ["stop words", "the and of to I a It is WAS"],
];

const UNICODE: [string, string][] = [
  ["accents", "café naïve résumé Ärger straße Élodie"],
  ["CJK", "検索エンジン 中文分词 한국어 텍스트"],
  ["emoji", "deploy 🚀 done ✅ fix🐛bug"],
  ["mixed scripts and digits", "fooBar٣ ⅣV x² ½ ﬁle Ωmega"],
  ["one non-ASCII character at the end", "parseHttpURL lib/auth/login.ts 10,000 é"],
];

function _randomAscii(seed: number, count: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const alphabet = "aAbBzZmMxX0189_./:-,' \t\n!?()";
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(next() * 40);
    let text = "";
    for (let i = 0; i < length; i++) text += next() < 0.9 ? alphabet[Math.floor(next() * alphabet.length)] : String.fromCharCode(Math.floor(next() * 128));
    return text;
  });
}

describe("the ASCII path and the Unicode patterns give the same terms", () => {
  test.each([...CASES, ...UNICODE])("%s", (_name, text) => {
    expect(tokenize(text)).toEqual(tokenizeByUnicodePatterns(text));
  });

  test("the table's ASCII cases have terms to compare", () => {
    expect(tokenize("parseHttpURL HTTPServer IPv6Addr")).toEqual([
      "parsehttpurl",
      "pars",
      "http",
      "url",
      "httpserver",
      "http",
      "server",
      "ipv6addr",
      "pv6",
      "addr",
    ]);
    expect(tokenize("10,000 v1.2")).toEqual(["10000", "v1.2", "v1", "2"]);
  });

  test("2,000 seeded random ASCII strings", () => {
    const texts = _randomAscii(0x24f3, 2_000);
    expect(texts.filter((text) => JSON.stringify(tokenize(text)) !== JSON.stringify(tokenizeByUnicodePatterns(text)))).toEqual([]);
  });
});
