/**
 * Short forms of session, run and approval ids for messages and listings: the shortest unique
 * prefix, 8 characters at least. UUIDv7 ids made within about a minute share their first 8
 * characters (the time), so a fixed width would not tell them apart. Session and run ids are
 * unique among sessions and runs together: `shiro export` takes either, and a session and its
 * first run are usually made in the same millisecond.
 */
import { readdirSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { abbreviationHead, createAbbreviator, shortestUniquePrefix } from "../platform/ids.ts";
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
  return shortSessionIds([id])[0]!;
}

export function shortRunId(id: string): string {
  return shortSessionIds([id])[0]!;
}

/** Each session or run id shortened (one listing of the two folders for a whole list). */
export function shortSessionIds(ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const abbreviate = createAbbreviator(_idsSharingTheMinimum(ids));
  return ids.map((id) => abbreviate(id));
}

export const shortRunIds = shortSessionIds;

/**
 * The stored session and run ids that share their head (ids.ts `abbreviationHead`) with one of
 * `ids`: no other can lengthen an abbreviation, so only these are kept (and sorted).
 */
function _idsSharingTheMinimum(ids: readonly string[]): string[] {
  const heads = new Set(ids.map((id) => abbreviationHead(id)));
  const near = (name: string) => heads.has(abbreviationHead(name));
  return [...storedIds(paths.sessionsDir(), ".json").filter(near), ...storedIds(paths.runsDir(), ".json").filter(near)];
}

/**
 * The stored session and run ids that share `id`'s head (`abbreviationHead`), listed off the main
 * thread: a run that will show its session's short id at its end starts this at its start, so a
 * long history's listing overlaps the model's answer instead of following it. Only the names that
 * share the head are kept as they are read (no other can lengthen an abbreviation), so what the
 * end of the run holds and compares is a handful of ids, not the history's 15,000. Never rejects (a missing folder lists nothing).
 */
export async function listSessionAndRunIds(id: string): Promise<NearIds> {
  const head = abbreviationHead(id);
  const list = async (dir: string) => {
    try {
      return _near(await readdir(dir), head);
    } catch {
      return [];
    }
  };
  const [sessions, runs] = await Promise.all([list(paths.sessionsDir()), list(paths.runsDir())]);
  return { head, ids: [...sessions, ...runs] };
}

/** What listSessionAndRunIds found: the head it listed for and the stored ids that share it. */
export interface NearIds {
  head: string;
  ids: readonly string[];
}

/** The `<id>.json` names in `names` whose id starts with `head`, as ids. */
function _near(names: readonly string[], head: string): string[] {
  const ids: string[] = [];
  for (const name of names) if (name.startsWith(head) && name.endsWith(".json")) ids.push(name.slice(0, -".json".length));
  return ids;
}

/**
 * `id` shortened among `listed` (listSessionAndRunIds, earlier) and `made` (the ids this process
 * made since): unique among every session and run that existed when the listing was taken and
 * every one made here; one made elsewhere later can share it, as one made after any listing can.
 * A listing taken for another head is no use: the folders are listed again.
 */
export function shortIdAmong(id: string, listed: NearIds, made: readonly string[]): string {
  const head = abbreviationHead(id);
  if (listed.head !== head) return shortSessionId(id);
  return shortestUniquePrefix(
    id,
    [...listed.ids, ...made].filter((other) => other.startsWith(head)),
  );
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
