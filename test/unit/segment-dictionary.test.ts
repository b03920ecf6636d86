/**
 * A segment's term dictionary finds a term by comparing its UTF-8 bytes with the keys' bytes
 * (lib/search/segment-dictionary.ts): for every term the writer sorted in JavaScript string order
 * — ASCII, accented and CJK letters, characters at U+E000 and above, astral ones, keys that are
 * prefixes of others, across many dictionary blocks — the lookup gives the term's own frequency
 * and postings, and a word between two keys gives none. A key that is not UTF-8 is still found
 * corrupt when a lookup compares it. How many of some documents hold a term (a tombstoned
 * segment's live frequency) is what its postings say.
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

test("how many of some documents hold a term is what its postings say, long gaps and frequencies included; an absent term holds none", () => {
  let state = 7;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const docs = 5000;
  const postings = new Map<string, number[]>();
  for (const term of ["common", "rare", "spread"]) {
    const pairs: number[] = [];
    const share = term === "common" ? 0.6 : term === "rare" ? 0.002 : 0.05;
    // Frequencies past a byte, gaps past a byte.
    for (let doc = 0; doc < docs; doc++) if (next() < share) pairs.push(doc, 1 + Math.floor(next() * 300));
    postings.set(term, pairs);
  }
  const content: SegmentContent = {
    sources: [{ name: "s", stamp: "", firstDoc: 0, count: docs }],
    docs: Array.from({ length: docs }, (_, i) => ({ source: 0, id: `d${i}`, stamp: "", len: 3 })),
    postings,
  };
  const reader = openSegment(bufferSource(encodeSegment(content, TOKENIZER_VERSION)));
  for (const wanted of [[], [0], [docs - 1], [3, 17, 2000], Array.from({ length: 400 }, (_, i) => i * 12 + 5), [4999]]) {
    const set = Uint32Array.from(wanted);
    for (const term of ["common", "rare", "spread"]) {
      const held = new Set(reader.postings(term)!.docs);
      expect(reader.holding(term, set)).toBe(wanted.filter((doc) => held.has(doc)).length);
    }
    expect(reader.holding("absent", set)).toBe(0);
  }
});

test("a lookup walks the term index only past its term: words asked in any order, before and after a full walk, are found as in a reader that walked it all", () => {
  const terms = [..._ODD, ...Array.from({ length: TERM_BLOCK * 300 }, (_, i) => `w${i.toString(36).padStart(4, "0")}`)];
  const content = _content(terms, 11);
  const bytes = encodeSegment(content, TOKENIZER_VERSION);
  const expected = (term: string): [string, number] => [term, (content.postings.get(term)?.length ?? 0) / 2];
  const sorted = [...terms].sort();
  const asks = [
    sorted[40]!,
    sorted[5000]!,
    sorted[39]!,
    "w0000x",
    sorted.at(-1)!,
    sorted[2047]!,
    sorted[2048]!,
    sorted[2049]!,
    "a",
    "\uE000x",
    "zz",
    ...sorted.filter((_, i) => i % 97 === 0).reverse(),
  ];
  for (const order of [asks, [...asks].reverse(), [sorted[6000]!, sorted[3]!, sorted[9000]!, sorted[6001]!]]) {
    const reader = openSegment(bufferSource(bytes));
    expect(order.map((term) => [term, reader.frequency(term)])).toEqual(order.map(expected));
    expect(order.map((term) => [...(reader.postings(term)?.docs ?? [])])).toEqual(
      order.map((term) => content.postings.get(term)?.filter((_, i) => i % 2 === 0) ?? []),
    );
  }
  // A merge's walk of every term, after a lookup walked part of the index.
  const reader = openSegment(bufferSource(bytes), true);
  expect(reader.frequency(sorted[100]!)).toBe(expected(sorted[100]!)[1]);
  expect([...reader.content().postings.keys()]).toEqual(sorted);
});
