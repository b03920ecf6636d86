/**
 * Short forms of session, run and approval ids for messages and listings: the shortest unique
 * prefix, 8 characters at least. UUIDv7 ids made within about a minute share their first 8
 * characters (the time), so a fixed width would not tell them apart. Session and run ids are
 * unique among sessions and runs together: `shiro export` takes either, and a session and its
 * first run are usually made in the same millisecond.
 */
import { readdirSync } from "node:fs";
import { createAbbreviator, shortestUniquePrefix } from "../platform/ids.ts";
import { paths } from "../platform/paths.ts";
import { listPending } from "./approvals.ts";

/** The ids of the records stored in `dir` as `<id><suffix>`; none when the folder is missing. */
export function storedIds(dir: string, suffix: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(suffix))
      .map((name) => name.slice(0, -suffix.length));
  } catch {
    return [];
  }
}

export function shortSessionId(id: string): string {
  return shortestUniquePrefix(id, _sessionAndRunIds());
}

export function shortRunId(id: string): string {
  return shortestUniquePrefix(id, _sessionAndRunIds());
}

/** Each session or run id shortened (one listing of the two folders for a whole list, none for an empty one). */
export function shortSessionIds(ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const all = _sessionAndRunIds();
  // A few ids against a long history: one pass each for the id sharing the longest prefix, instead of sorting the folders.
  if (ids.length <= 64)
    return ids.map((id) =>
      shortestUniquePrefix(
        id,
        [_closest(id, all)].filter((other) => other !== undefined),
      ),
    );
  const abbreviate = createAbbreviator(all);
  return ids.map(abbreviate);
}

/** The id of `all` (other than `id`) sharing the longest prefix with it, among those sharing its first 7 characters (only they lengthen a prefix of 8). */
function _closest(id: string, all: readonly string[]): string | undefined {
  const head = id.slice(0, 7);
  let best: string | undefined;
  let bestLength = -1;
  for (const other of all) {
    if (other === id || !other.startsWith(head)) continue;
    let length = 7;
    while (length < id.length && id.charCodeAt(length) === other.charCodeAt(length)) length++;
    if (length > bestLength) {
      best = other;
      bestLength = length;
    }
  }
  return best;
}

export const shortRunIds = shortSessionIds;

function _sessionAndRunIds(): string[] {
  return [...storedIds(paths.sessionsDir(), ".json"), ...storedIds(paths.runsDir(), ".json")];
}

/** Unique among pending approvals, which is what `shiro approve|deny <prefix>` resolves against. */
export function shortApprovalId(id: string): string {
  try {
    return shortestUniquePrefix(
      id,
      listPending().map((record) => record.id),
    );
  } catch {
    return id;
  }
}

/**
 * Each id shortened against the others in the same list, not against the state folder: only for a
 * list that is everything its command resolves against (the pending approvals).
 */
export function uniquePrefixes(ids: readonly string[]): string[] {
  return ids.map((id) => shortestUniquePrefix(id, ids));
}
