/**
 * The repeat guard: an identical call (same tool, same arguments) asks from its third time in one
 * turn, even where the rules allow it (lib/extensions/gate.ts). Counts live in memory for one turn.
 */
/** The identical call that asks even when allowed: the third in one turn, and every one after. */
export const REPEAT_ASK_AT = 3;

/** Counts identical calls (tool + canonical JSON of the input) within one turn. */
export interface RepeatGuard {
  /** Counts this call and returns how many identical calls this turn has seen, itself included. */
  record(tool: string, input: unknown): number;
  reset(): void;
}

export function createRepeatGuard(): RepeatGuard {
  const counts = new Map<string, number>();
  return {
    record(tool, input) {
      const key = `${tool}\u0000${canonicalJson(input)}`;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return count;
    },
    reset() {
      counts.clear();
    },
  };
}

/** JSON with object keys sorted at every depth, so equal inputs give equal text. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
      return Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }) ?? "undefined"
  );
}
