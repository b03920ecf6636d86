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

/** Each session or run id shortened (one listing of the two folders for a whole list). */
export function shortSessionIds(ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const abbreviate = createAbbreviator(_sessionAndRunIds());
  return ids.map(abbreviate);
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
