/**
 * Synthetic text for the recall and search benchmarks: a deterministic generator of code-ish and
 * English words (a fixed seed gives the same corpus every run), and the queries both score.
 */

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
