/**
 * A segment's term dictionary finds a term by comparing its UTF-8 bytes with the keys' bytes
 * (lib/search/segment-dictionary.ts): for every term the writer sorted in JavaScript string order
 * — ASCII, accented and CJK letters, characters at U+E000 and above, astral ones, keys that are
 * prefixes of others, across many dictionary blocks — the lookup gives the term's own frequency
 * and postings, and a word between two keys gives none. A key that is not UTF-8 is still found
 * corrupt when a lookup compares it.
 */
import { expect, test } from "bun:test";
import { SECTION, TERM_BLOCK, bufferSource, u32At } from "../../lib/search/segment-layout.ts";
import { openSegment } from "../../lib/search/segment-read.ts";
import { encodeSegment, type SegmentContent } from "../../lib/search/segment-write.ts";
import { TOKENIZER_VERSION } from "../../lib/search/tokenize.ts";

const _ODD = ["é", "ß", "中文", "ｱ", "\uE000x", "\uFFFDz", "𠀀", "😀", "a\uE001", "a𝐀", "ab", "abc", "abd", "b", "z"];

/** One source of `docs` documents; term i is in documents i % docs and (i + 1) % docs. */
function _content(terms: readonly string[], docs: number): SegmentContent {
  const postings = new Map<string, number[]>();
  terms.forEach((term, i) => {
    const pair = [i % docs, (i + 1) % docs].sort((a, b) => a - b);
    postings.set(term, pair[0] === pair[1] ? [pair[0]!, 2] : [pair[0]!, 1, pair[1]!, 1]);
  });
  return {
    sources: [{ name: "s", stamp: "", firstDoc: 0, count: docs }],
    docs: Array.from({ length: docs }, (_, i) => ({ source: 0, id: `d${i}`, stamp: "", len: 3 })),
    postings,
  };
}

test("every term is found by its bytes, whatever its characters; a word between two keys is not", () => {
  const terms = [..._ODD, ...Array.from({ length: TERM_BLOCK * 6 }, (_, i) => `t${i.toString(36)}`)];
  const content = _content(terms, 7);
  const reader = openSegment(bufferSource(encodeSegment(content, TOKENIZER_VERSION)));
  const found = terms.map((term) => [term, reader.frequency(term), [...(reader.postings(term)?.docs ?? [])]]);
  expect(found).toEqual(terms.map((term) => [term, content.postings.get(term)!.length / 2, content.postings.get(term)!.filter((_, i) => i % 2 === 0)]));
  const between = ["", "a", "aa", "abb", "ac", "t", "t00", "\uE000", "\uE000y", "𠀁", "😁", "中", "zz", "\uFFFF"];
  expect(between.map((word) => reader.frequency(word))).toEqual(between.map(() => 0));
});

test("a key that is not UTF-8 is found corrupt by a lookup that compares it", () => {
  const bytes = encodeSegment(_content(["aé", "b"], 2), TOKENIZER_VERSION);
  // The first term block's first key, `aé` (0x61 0xC3 0xA9): its second byte made a lone continuation byte.
  const blocks = u32At(bytes, 32 + SECTION.termBlocks * 4);
  expect([...bytes.subarray(blocks + 1, blocks + 4)]).toEqual([0x61, 0xc3, 0xa9]);
  bytes[blocks + 2] = 0xa9;
  expect(() => openSegment(bufferSource(bytes)).frequency("b")).toThrow("not UTF-8");
});
