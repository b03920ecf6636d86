/**
 * Prompt history: the prompts typed in one project (the REPL passes the git root), for Up/Down.
 *
 * File `history/<hash16>.json` (paths.history, keyed by the directory):
 *   {version: 1, entries: string[]}   oldest first, at most 200
 * A bare JSON array of strings (the first format) reads as version 0.
 * Appends are locked read-modify-writes through json-file's `updateJsonSync`: two REPLs in one
 * directory never lose each other's lines. A corrupt file reads as empty and is moved aside to
 * `<file>.corrupt-<time>` by the next append. The prompt queue is never written anywhere.
 */
import * as v from "valibot";
import { paths } from "../platform/paths.ts";
import { readJson, updateJsonSync } from "../state-file/json-file.ts";

export const HISTORY_CAP = 200;
/** Lines never kept: leaving is not a prompt worth recalling. */
const _FORGOTTEN = new Set(["/exit", "/quit"]);

const HistoryFileSchema = v.union([
  v.object({ version: v.literal(1), entries: v.array(v.string()) }),
  v.pipe(
    v.array(v.string()),
    v.transform((entries) => ({ version: 1 as const, entries })),
  ),
]);

/** The prompts typed in `dir`, oldest first; empty when there are none or the file is unreadable. */
export function loadHistory(dir: string): string[] {
  const read = readJson(paths.history(dir), { schema: HistoryFileSchema, version: 1 });
  return read.status === "ok" ? read.value.entries : [];
}

/** Whether `line` belongs in the history: not blank, not `/exit` or `/quit`. */
export function isRemembered(line: string): boolean {
  return line.trim() !== "" && !_FORGOTTEN.has(line.trim().toLowerCase());
}

/**
 * Adds `line` (a whole prompt, possibly of several lines) to the history of `dir` unless it is
 * not remembered (isRemembered) or repeats the newest entry; past 200 entries the oldest go.
 * Returns the history afterwards.
 */
export function appendHistory(dir: string, line: string): string[] {
  if (!isRemembered(line)) return loadHistory(dir);
  let entries: string[] = [];
  updateJsonSync(paths.history(dir), { schema: HistoryFileSchema, version: 1 }, (current) => {
    entries = current?.entries ?? [];
    if (entries[entries.length - 1] === line) return undefined;
    entries = [...entries, line].slice(-HISTORY_CAP);
    return { version: 1 as const, entries };
  });
  return entries;
}
