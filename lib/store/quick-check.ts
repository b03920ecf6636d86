/**
 * Hand checks of the shapes read on hot paths (episode lines: episode-schema.ts `parseEpisode`;
 * notes files: memory-file.ts), run before valibot, whose first pass over a few hundred records
 * costs a cold process milliseconds. A hand check passes only what its schema passes and leaves
 * every doubt to the schema, which gives the verdict and the reason. It is used only while the
 * schema's fields are the ones it knows (`sameFields`): a field added to the schema turns it off
 * rather than letting it pass what the schema would refuse.
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function isStringArray(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== "string") return false;
  return true;
}

export function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === "string";
}

/** Whether an object schema's fields are `keys`, in that order: what a hand check of it knows. */
export function sameFields(schema: { readonly entries: object }, keys: readonly string[]): boolean {
  return Object.keys(schema.entries).join() === keys.join();
}
