/**
 * Short forms of session, run and approval ids for messages and listings: the shortest unique
 * prefix, 8 characters at least. UUIDv7 ids made within about a minute share their first 8
 * characters (the time), so a fixed width would not tell them apart.
 */
import { readdirSync } from "node:fs";
import { shortestUniquePrefix } from "../platform/ids.ts";
import { paths } from "../platform/paths.ts";
import { listPending } from "./approvals.ts";

function _idsIn(dir: string, suffix: string): string[] {
  try {
    return readdirSync(dir).filter((name) => name.endsWith(suffix)).map((name) => name.slice(0, -suffix.length));
  } catch {
    return [];
  }
}

export function shortSessionId(id: string): string {
  return shortestUniquePrefix(id, _idsIn(paths.sessionsDir(), ".json"));
}

export function shortRunId(id: string): string {
  return shortestUniquePrefix(id, _idsIn(paths.runsDir(), ".json"));
}

/** Unique among pending approvals, which is what `shiro approve|deny <prefix>` resolves against. */
export function shortApprovalId(id: string): string {
  try {
    return shortestUniquePrefix(id, listPending().map((record) => record.id));
  } catch {
    return id;
  }
}

/** Each id shortened against the others in the same list (a table's column), not against the state folder. */
export function uniquePrefixes(ids: readonly string[]): string[] {
  return ids.map((id) => shortestUniquePrefix(id, ids));
}
