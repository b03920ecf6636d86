/**
 * Synthetic text for the recall and search benchmarks: a deterministic generator of code-ish and
 * English words (a fixed seed gives the same corpus every run), the queries both score, the linear
 * scan the indexes are measured against, and the timing loop.
 */
import { tokenize, tokenizeQuery } from "../../lib/search/tokenize.ts";
import { median } from "./baseline.ts";

export const BENCH_QUERIES = [
  "login redirect broken",
  "database migration seed",
  "parseHttpUrl timeout",
  "src/auth/session.ts",
  "flaky test retry",
  "docker compose port",
];

const STEMS = [
  "auth",
  "login",
  "session",
  "redirect",
  "token",
  "cache",
  "query",
  "parser",
  "config",
  "route",
  "handler",
  "worker",
  "queue",
  "schema",
  "migration",
  "seed",
  "database",
  "docker",
  "compose",
  "port",
  "timeout",
  "retry",
  "flaky",
  "test",
  "build",
  "deploy",
  "lint",
  "format",
  "render",
  "layout",
];

/** Words are a stem 30% of the time, else one of `fillerSize` distinct filler terms. */
export function createWordGenerator(seed: number, fillerSize: number) {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const filler = Array.from({ length: fillerSize }, (_, i) => `term${i.toString(36)}`);
  const word = () => (next() < 0.3 ? STEMS[Math.floor(next() * STEMS.length)]! : filler[Math.floor(next() * filler.length)]!);
  const sentence = (n: number) => Array.from({ length: n }, word).join(" ");
  const path = () => `src/${word()}/${word()}${next() < 0.5 ? "Handler" : "_util"}.ts`;
  return { next, sentence, path };
}

/** The linear-scan baseline: tokenises every text, scores it for `query` with BM25 (k1 1.2, b 0.75), and counts the hits up to `limit`. */
export function scanHits(texts: string[], query: string, limit: number): number {
  const docs = texts.map((text) => {
    const counts = new Map<string, number>();
    const terms = tokenize(text);
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    return { counts, len: terms.length };
  });
  const average = docs.reduce((sum, doc) => sum + doc.len, 0) / docs.length;
  const scores = new Float64Array(docs.length);
  for (const term of tokenizeQuery(query)) {
    const df = docs.filter((doc) => doc.counts.has(term)).length;
    const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
    docs.forEach((doc, i) => {
      const tf = doc.counts.get(term) ?? 0;
      if (tf > 0) scores[i]! += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.len) / average));
    });
  }
  return [...scores]
    .filter((score) => score > 0)
    .sort((a, b) => b - a)
    .slice(0, limit).length;
}

/** Median milliseconds of `runs` calls of `run` (each awaited), cycling through BENCH_QUERIES. */
export async function timeQueries(run: (query: string) => number | Promise<number>, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run(BENCH_QUERIES[i % BENCH_QUERIES.length]!);
    samples.push(performance.now() - start);
  }
  return median(samples);
}
