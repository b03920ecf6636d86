/**
 * Short forms of session, run and approval ids for messages and listings: the shortest unique
 * prefix, 8 characters at least. UUIDv7 ids made within about a minute share their first 8
 * characters (the time), so a fixed width would not tell them apart. Session and run ids are
 * unique among sessions and runs together: `shiro export` takes either, and a session and its
 * first run are usually made in the same millisecond.
 */
import { closeSync, fstatSync, linkSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync, constants as fsConstants } from "node:fs";
import { abbreviationHead, createAbbreviator, shortestUniquePrefix } from "../platform/ids.ts";
import { ensureStateDir, paths } from "../platform/paths.ts";
import { withLockSync } from "../state-file/file-lock.ts";
import { listPending } from "./approvals.ts";

/** The ids of the records stored in `dir` as `<id><suffix>`; none when the folder is missing. */
export function storedIds(dir: string, suffix: string): string[] {
  return _namesIn(dir)
    .filter((name) => name.endsWith(suffix))
    .map((name) => name.slice(0, -suffix.length));
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
  return shortSessionIdsAmong(ids, [_namesIn(paths.sessionsDir()), _namesIn(paths.runsDir())]);
}

export const shortRunIds = shortSessionIds;

/** The names in the sessions and the runs folder (listSessionAndRunNames). */
export type SessionAndRunNames = readonly (readonly string[])[];

/**
 * Both folders' names, listed on the runtime's thread pool: a caller with other work to do before
 * it shortens ids (a search's ranking) starts this first, so the listing overlaps that work, then
 * shortens with `shortSessionIdsAmong`. Never rejects (a missing folder lists nothing).
 */
export async function listSessionAndRunNames(): Promise<SessionAndRunNames> {
  // Loaded here, not at the top: importing node:fs/promises costs a compiled binary's start about half a millisecond.
  const { readdir } = await import("node:fs/promises");
  return Promise.all([paths.sessionsDir(), paths.runsDir()].map((dir) => readdir(dir).catch(() => [])));
}

/**
 * Each of `ids` shortened among the `.json` records of `names` (both folders' listing), as
 * `shortSessionIds` does. Only the stored ids that share a head (ids.ts `abbreviationHead`) with
 * one of `ids` are kept (`_near`): no other can lengthen an abbreviation. Every `.json` name
 * counts, so a record written there by anything (a run copied in) does.
 */
export function shortSessionIdsAmong(ids: readonly string[], names: SessionAndRunNames): string[] {
  if (ids.length === 0) return [];
  const heads = new Set(ids.map(abbreviationHead));
  const abbreviate = createAbbreviator(names.flatMap((list) => _near(list, heads)));
  return ids.map((id) => abbreviate(id));
}

function _namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The stored session and run ids that share `id`'s head (`abbreviationHead`): from the register
 * of recent ids (below, one small read) when it holds every id of that head, which it does
 * for an id made since the register began; otherwise both folders are listed off the main thread
 * (the runtime's thread pool): a run that shows its session's short id at its end starts this
 * when the model's answer begins, so a long history's listing overlaps the answer instead of
 * following it or taking the main thread from it. Only the names that share the head are kept
 * (no other can lengthen an abbreviation), so what the end of the run holds and compares is a
 * handful of ids, not the history's 15,000. Never rejects (a missing folder lists nothing).
 */
export async function listSessionAndRunIds(id: string): Promise<NearIds> {
  const head = abbreviationHead(id);
  const noted = recentIdsSharing(head);
  if (noted) return { head, ids: noted };
  const heads = new Set([head]);
  return { head, ids: (await listSessionAndRunNames()).flatMap((names) => _near(names, heads)) };
}

/** What listSessionAndRunIds found: the head it listed for and the stored ids that share it. */
export interface NearIds {
  head: string;
  ids: readonly string[];
}

/**
 * The `<id>.json` names in `names` whose id's head (`abbreviationHead`) is one of `heads`, as ids:
 * one pass, so a long history's 15,000 names cost a head each and no copy.
 */
function _near(names: readonly string[], heads: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  for (const name of names) if (heads.has(abbreviationHead(name)) && name.endsWith(".json")) ids.push(name.slice(0, -".json".length));
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

/*
 * The register of recent session and run ids: what shortening an id made now needs (the stored
 * ids that share its first 8 characters, above) without listing the sessions and runs
 * folders, which hold every id of a long history.
 *
 * Files `recent-ids.txt` (the current generation) and `recent-ids.old.txt` (the one before) in
 * the state folder (paths.recentIds), text:
 *
 *   shiro recent ids 1 <generation> <floor>
 *   <id>                                  one line per session or run id, appended
 *
 * - A store notes an id (`noteRecentId`) before it first writes the record of that id: a session
 *   when its writer opens, a run when its log is opened fresh. One O_APPEND write of one line.
 * - `<floor>` (Unix ms) bounds what the two generations may lack: no id whose UUIDv7 time is past
 *   it is missing from them. The register is created (an atomic link of a whole file, so it is
 *   never without its header) with the newest time of the ids already stored (one listing of both
 *   folders, once per state folder; 0 when they are empty).
 * - Past `ROTATE_BYTES` the writer that crossed it, under the file's lock, makes the current file
 *   the old one (a hard link renamed into place, so an append still under way lands in it) and
 *   renames a new generation, with no ids, over the current one; the generation dropped raises the
 *   new floor to the newest time of its ids. So both files stay small.
 * - `recentIdsSharing(head)` answers for a head only when the two files read are consecutive
 *   generations (or the first alone) and every id with that head is newer than the floor; else
 *   undefined, and the caller lists the folders as before. An id whose session or run was removed
 *   since stays in the register (an abbreviation among it is still unique, perhaps longer).
 * Derived data: removing both files costs one listing of the folders when the next id is noted.
 * A note that fails removes the register, so no reader trusts a register that missed an id.
 * Ids written by something other than the stores (an older shiro running at the same time, a
 * file copied in) are not noted: the saved line may then share its prefix with one of them, which
 * is why listings (`shortSessionIds`) still list the folders.
 */

/** A generation past this many bytes (about 440 ids) is rotated. */
export const ROTATE_BYTES = 16 * 1024;

const _HEADER = "shiro recent ids 1";
const _HEADER_LINE = /^shiro recent ids 1 (\d+) (\d+)\n/;
/** A head's ids span 2^16 ms of UUIDv7 time. */
const _HEAD_SPAN_MS = 65_536;

interface _Generation {
  generation: number;
  floor: number;
  text: string;
}

/** Notes `id` (a session or run about to be written). Never throws. */
export function noteRecentId(id: string): void {
  const path = paths.recentIds();
  try {
    const size = _append(path, `${id}\n`);
    if (size === undefined) _create(path, id);
    else if (size > ROTATE_BYTES) withLockSync(path, () => _rotate(path));
  } catch {
    _forget();
  }
}

/**
 * The noted ids whose first 8 characters are `head` (ids.ts abbreviationHead), when the register
 * holds every such id; undefined when it cannot tell (then list the folders).
 */
export function recentIdsSharing(head: string): string[] | undefined {
  if (!/^[0-9a-f]{8}$/.test(head)) return undefined;
  const start = Number.parseInt(head, 16) * _HEAD_SPAN_MS;
  const current = _read(paths.recentIds());
  if (!current) return undefined;
  const old = _read(paths.recentIdsOld());
  const consecutive = old ? old.generation === current.generation - 1 : current.generation === 1;
  if (!consecutive || !(start > current.floor)) return undefined;
  return [..._linesStarting(current.text, head), ...(old ? _linesStarting(old.text, head) : [])];
}

/** Appends `line`; the file's size after it, or undefined when there is no register yet. */
function _append(path: string, line: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    writeSync(fd, line);
    return fstatSync(fd).size;
  } finally {
    closeSync(fd);
  }
}

/** The first generation, holding `id`: linked into place whole; a register made meanwhile by another process gets `id` appended instead. */
function _create(path: string, id: string): void {
  const floor = Math.max(_newestStored(paths.sessionsDir()), _newestStored(paths.runsDir()));
  ensureStateDir();
  const temp = `${path}.${process.pid}.tmp`;
  _writeFile(temp, `${_HEADER} 1 ${floor}\n${id}\n`);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    if (_append(path, `${id}\n`) === undefined) throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Under the lock: the current generation becomes the old one, a new empty one the current. */
function _rotate(path: string): void {
  const current = _read(path);
  if (!current) throw new Error("the recent ids register does not read");
  if (Buffer.byteLength(current.text) <= ROTATE_BYTES) return;
  const dropped = _read(paths.recentIdsOld());
  const floor = Math.max(current.floor, dropped ? _newestTime(dropped.text) : 0);
  const next = `${path}.${process.pid}.next.tmp`;
  const old = `${path}.${process.pid}.old.tmp`;
  _writeFile(next, `${_HEADER} ${current.generation + 1} ${floor}\n`);
  rmSync(old, { force: true });
  linkSync(path, old);
  renameSync(old, paths.recentIdsOld());
  renameSync(next, path);
}

function _forget(): void {
  for (const file of [paths.recentIds(), paths.recentIdsOld()])
    try {
      rmSync(file, { force: true });
    } catch {
      // nothing more can be done: a reader finds the generations out of step or the floor past its ids
    }
}

function _read(path: string): _Generation | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const header = _HEADER_LINE.exec(text);
  if (!header) return undefined;
  return { generation: Number(header[1]), floor: Number(header[2]), text };
}

function _writeFile(path: string, text: string): void {
  const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC, 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** The whole lines of `text` (after its header) that start with `head`: found by search, not by splitting every line. */
function _linesStarting(text: string, head: string): string[] {
  const found: string[] = [];
  for (let at = text.indexOf(`\n${head}`); at >= 0; at = text.indexOf(`\n${head}`, at + 1)) {
    const end = text.indexOf("\n", at + 1);
    if (end < 0) break;
    found.push(text.slice(at + 1, end));
  }
  return found;
}

/** The newest UUIDv7 time among the ids of `text`'s lines (0 for none). */
function _newestTime(text: string): number {
  let newest = 0;
  for (const line of text.split("\n").slice(1)) newest = Math.max(newest, _timeOf(line));
  return newest;
}

/** The newest UUIDv7 time among the `<id>.json` records in `dir` (0 when it is missing or empty). */
function _newestStored(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let newest = 0;
  for (const name of names) if (name.endsWith(".json")) newest = Math.max(newest, _timeOf(name));
  return newest;
}

/**
 * A UUIDv7's time in ms. A name whose first 8 characters are not hex shares no id's head (0); one
 * that is not a whole UUIDv7 past them counts as the last ms of its head's span.
 */
function _timeOf(id: string): number {
  const head = id.slice(0, 8);
  if (!/^[0-9a-f]{8}$/.test(head)) return 0;
  const rest = id.slice(9, 13);
  if (id[8] === "-" && /^[0-9a-f]{4}$/.test(rest)) return Number.parseInt(`${head}${rest}`, 16);
  return (Number.parseInt(head, 16) + 1) * _HEAD_SPAN_MS - 1;
}
