/**
 * Folded output: a tool's result or the model's reasoning is shown as a short head with
 * `+N lines`, and kept here (in memory, this REPL only) so Ctrl-O shows the last fold whole and
 * `/expand n` any of them. Folds are numbered from 1 in the order they were shown.
 */

/** How many lines of a fold are shown before `+N lines`. */
export const FOLD_HEAD_LINES = 3;
/** Folds kept; older ones are forgotten (their number then says so). */
const _KEPT = 200;

export interface Fold {
  readonly n: number;
  readonly title: string;
  readonly text: string;
}

export interface Folds {
  /** Keeps `text`, returns its number. */
  add(title: string, text: string): number;
  /** Fold `n`, or the last one when `n` is undefined. */
  get(n?: number): Fold | undefined;
  /** How many were added in all. */
  count(): number;
}

export function createFolds(): Folds {
  const kept: Fold[] = [];
  let added = 0;
  return {
    add(title, text) {
      added += 1;
      kept.push({ n: added, title, text });
      if (kept.length > _KEPT) kept.shift();
      return added;
    },
    get(n) {
      return n === undefined ? kept.at(-1) : kept.find((fold) => fold.n === n);
    },
    count: () => added,
  };
}

/** The lines of a fold's text (a final newline adds none). */
export function foldLines(text: string): string[] {
  return text.replace(/\n+$/, "").split("\n");
}
