/**
 * Small helpers the tools' `claudeCode` declarations share (lib/tools/types.ts): Claude Code gives
 * hooks absolute file paths, and a hook's `updatedInput` names Claude Code's fields, of which a
 * declaration takes back only those it knows, with the type it expects.
 */
import { resolve } from "node:path";

/** The absolute path Claude Code would give a hook for a workspace path. */
export function absolutePath(root: string, path: string): string {
  return resolve(root, path);
}

/** `{ [to]: input[from] }` for every pair whose value has the type of the field (`string`, `number`, `boolean`, `object`). */
export function takeFields(input: Record<string, unknown>, fields: readonly (readonly [from: string, to: string, type: string])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to, type] of fields) {
    const value = input[from];
    if (value !== undefined && (type === "array" ? Array.isArray(value) : typeof value === type)) out[to] = value;
  }
  return out;
}
