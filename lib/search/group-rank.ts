/**
 * One ranking over everything remembered: scored items (notes, episodes, transcript passages,
 * all BM25 on one collection's statistics) are gathered into groups (one per note, one per
 * session, one per monthly digest) and the groups ranked. Pure: knows nothing of stores or files.
 *
 * Contract:
 * - A group's score is its best item's score plus `tail` times the next best ones, each weighted
 *   `tail` again (best + t·second + t²·third …, at most `depth` items): the session-scoring rule.
 *   `tail: 0` is plain max; `tail: 1` with `depth: k` is the sum of the top k.
 * - With a time window, a group any of whose items falls inside it is multiplied by `1 + boost`.
 * - Groups come best first; equal scores (to 1e-9) go to the newer group, then by key.
 * - With `limit`, only the best `limit` groups come, in that same order: a time is read only to
 *   order groups tied (to 1e-9) with one of them, not for ties among the groups left out.
 * - A group's items are kept best first; `at` is the newest time among them, read from them when
 *   first asked for (a tie, a window, a caller): an item's `at` may be costly (an index entry read).
 */
import type { TimeWindow } from "./time-query.ts";

export interface ScoredItem {
  /** The group it belongs to (`note:<id>`, `session:<id>`, `digest:<month>`). */
  group: string;
  score: number;
  /** ISO time it was said or recorded. */
  at: string;
}

export interface GroupRule {
  tail: number;
  depth: number;
}

/** Measured in test/bench/memory.ts against max, sum of the top 2 and 3, and other tails (docs/memory.md). */
export const DEFAULT_GROUP_RULE: GroupRule = { tail: 0.7, depth: 3 };

export interface RankedGroup<T extends ScoredItem> {
  key: string;
  score: number;
  at: string;
  items: T[];
}

export interface GroupRankOptions {
  rule?: GroupRule;
  window?: TimeWindow;
  /** How much a group inside the window gains (default 1: its score doubles). */
  boost?: number;
  /** How many of the best groups are wanted (default: all). */
  limit?: number;
}

export function rankGroups<T extends ScoredItem>(items: readonly T[], options: GroupRankOptions = {}): RankedGroup<T>[] {
  const rule = options.rule ?? DEFAULT_GROUP_RULE;
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const list = byKey.get(item.group);
    if (list) list.push(item);
    else byKey.set(item.group, [item]);
  }
  const window = options.window;
  const boost = options.boost ?? 1;
  const groups: RankedGroup<T>[] = [];
  const depth = Math.max(1, rule.depth);
  for (const [key, list] of byKey) {
    if (list.length > 1) list.sort((a, b) => b.score - a.score);
    let score = 0;
    let weight = 1;
    for (let i = 0; i < list.length && i < depth; i++) {
      score += weight * list[i]!.score;
      weight *= rule.tail;
    }
    if (window && list.some((item) => item.at >= window.from && item.at < window.to)) score *= 1 + boost;
    groups.push(new _Group(key, score, list));
  }
  const limit = options.limit ?? groups.length;
  return limit < groups.length ? _best(groups, limit) : groups.sort(_order);
}

/** A group; its time read from its items when first asked for. A class: a ranking makes hundreds, and a literal's getter is a new closure each. */
class _Group<T extends ScoredItem> implements RankedGroup<T> {
  #at: string | undefined;

  constructor(
    readonly key: string,
    readonly score: number,
    readonly items: T[],
  ) {}

  get at(): string {
    if (this.#at === undefined) {
      let latest = "";
      for (const item of this.items) if (item.at > latest) latest = item.at;
      this.#at = latest;
    }
    return this.#at;
  }
}

const _TIE = 1e-9;

function _order(a: RankedGroup<ScoredItem>, b: RankedGroup<ScoredItem>): number {
  return Math.abs(b.score - a.score) > _TIE ? b.score - a.score : a.at < b.at ? 1 : a.at > b.at ? -1 : a.key < b.key ? -1 : 1;
}

/**
 * The first `limit` of `groups.sort(_order)`, sorting by `_order` only the groups of the runs of
 * tied scores that reach into them. When every run of scores each within 1e-9 of the next spans
 * at most 1e-9, "tied" is an equivalence and `_order` a total order, so its first `limit` are
 * these; otherwise (a chain of near ties) the whole list is sorted as it always was. The scores
 * are ordered by a native sort of numbers: no comparator runs for the groups left out.
 */
function _best<T extends ScoredItem>(groups: RankedGroup<T>[], limit: number): RankedGroup<T>[] {
  const scores = new Float64Array(groups.length);
  for (let i = 0; i < groups.length; i++) scores[i] = groups[i]!.score;
  scores.sort();
  // A NaN score ties with every other under `_order` (no total order to cut): the whole list sorted, as without a limit.
  if (Number.isNaN(scores[scores.length - 1])) return groups.sort(_order).slice(0, limit);
  // Ascending (a NaN would sort last), scores[at] is the (n - at)-th best: runs are walked from the best down.
  let runTop = scores.length - 1;
  let cutoff = Number.NaN;
  for (let i = scores.length - 2; i >= -1; i--) {
    if (i >= 0 && scores[i + 1]! - scores[i]! <= _TIE) continue;
    if (scores[runTop]! - scores[i + 1]! > _TIE) return groups.sort(_order).slice(0, limit);
    if (Number.isNaN(cutoff) && scores.length - 1 - i >= limit) cutoff = scores[i + 1]!;
    runTop = i;
  }
  return groups
    .filter((group) => group.score >= cutoff)
    .sort(_order)
    .slice(0, limit);
}
