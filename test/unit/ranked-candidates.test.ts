/**
 * The order a search takes its scored documents in (search/ranked-candidates.ts), against the
 * exhaustive order (every document with a score, best first, then lower part, then lower
 * document): on generated corpora of few distinct scores (ties everywhere), with the documents
 * holding one term set aside or not, and one-term documents that sometimes outscore the rest.
 */
import { describe, expect, test } from "bun:test";
import { rankedCandidates } from "../../lib/search/ranked-candidates.ts";

type Corpus = { scores: Float64Array[]; bases: number[]; touched: Int32Array[]; matched: Uint16Array[] };

function corpus(seed: number): Corpus {
  let state = seed;
  const random = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state % n;
  };
  const parts = 1 + random(4);
  const out: Corpus = { scores: [], bases: [], touched: [], matched: [] };
  // Some corpora let a one-term document outscore most of those holding more.
  const singleBonus = random(3) === 0 ? 3 : 0;
  for (let p = 0; p < parts; p++) {
    const length = random(400);
    const base = random(50);
    const scores = new Float64Array(length);
    const matched = new Uint16Array(length);
    const touched: number[] = [];
    for (let offset = 0; offset < length; offset++) {
      if (random(3) === 0) continue;
      const terms = 1 + random(3);
      matched[offset] = terms;
      // Few distinct scores: most documents tie with many others; now and then a zero (never a candidate).
      scores[offset] = random(40) === 0 ? 0 : terms + random(4) * 0.25 + (terms === 1 ? random(2) * singleBonus : 0);
      touched.push(base + offset);
    }
    // Documents are touched term by term: not in document order.
    touched.sort((a, b) => ((a * 7919) % 101) - ((b * 7919) % 101) || a - b);
    out.scores.push(scores);
    out.bases.push(base);
    out.touched.push(Int32Array.from(touched));
    out.matched.push(matched);
  }
  return out;
}

function drain(next: () => [number, number, number] | undefined): [number, number, number][] {
  const all: [number, number, number][] = [];
  for (let hit = next(); hit; hit = next()) all.push(hit);
  return all;
}

describe("the order of a search's candidates", () => {
  test("setting one-term documents aside gives the exhaustive order, ties and all, whatever is taken first", () => {
    for (let seed = 1; seed <= 120; seed++) {
      const { scores, bases, touched, matched } = corpus(seed);
      const exhaustive: [number, number, number][] = [];
      touched.forEach((docs, p) => {
        for (const doc of docs) if (scores[p]![doc - bases[p]!]! > 0) exhaustive.push([p, doc, scores[p]![doc - bases[p]!]!]);
      });
      exhaustive.sort((a, b) => b[2] - a[2] || a[0] - b[0] || a[1] - b[1]);
      for (const first of [1, 8, 64, 337, 5000]) {
        expect(drain(rankedCandidates(scores, bases, touched, matched, first))).toEqual(exhaustive);
        expect(drain(rankedCandidates(scores, bases, touched, undefined, first))).toEqual(exhaustive);
        // What a search takes: the first few, then it stops asking.
        const next = rankedCandidates(scores, bases, touched, matched, first);
        expect(exhaustive.slice(0, 10).map(() => next())).toEqual(exhaustive.slice(0, 10).map((hit) => hit));
      }
    }
  });
});
