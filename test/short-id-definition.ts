/**
 * What a short id is, spelled out for tests to compare lib/store/short-ids.ts with: grow the
 * prefix from `min` characters until no other id of `accepted` starts with it, skipping a prefix
 * that ends in a dash; the whole id when none is unique.
 */
export function shortIdByDefinition(id: string, accepted: readonly string[], min = 8): string {
  for (let length = min; length <= id.length; length++) {
    const prefix = id.slice(0, length);
    if (prefix.endsWith("-")) continue;
    if (!accepted.some((other) => other !== id && other.startsWith(prefix))) return prefix;
  }
  return id;
}
