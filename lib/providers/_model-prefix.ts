/**
 * Tables keyed by model-id prefix (prices, output limits): a model finds the longest key its
 * lower-cased id starts with, after any `vendor/` path in front is dropped, so
 * `anthropic/claude-sonnet-4.5` finds `claude-sonnet-4`.
 */
export function lookupByModelPrefix<T>(table: Readonly<Record<string, T>>, model: string): T | undefined {
  const id = model.toLowerCase().slice(model.lastIndexOf("/") + 1);
  let best: string | undefined;
  for (const prefix of Object.keys(table)) {
    if (id.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? undefined : table[best];
}
