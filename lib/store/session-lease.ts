/**
 * Session leases: which live process holds a session, so two shiro processes never write one.
 *
 * File `sessions/<id>.lease` = {"pid": <number>, "since": "<ISO time>"}. A lease is a marker, not
 * a state document, so it is created here directly with O_EXCL rather than through json-file's
 * atomic writer; taking one (including taking over a dead holder's) happens under json-file's
 * lock on the lease path, so two processes can never both win. A lease whose process is dead, or
 * a lease file that does not parse, is taken over. Leases this process still holds are removed
 * at process exit. A session this process has just made takes its lease without the lock
 * (`takeNewLease`): no other process can ask for an id before that session's file is written, and
 * the O_EXCL create still finds any file already there, which is then judged under the lock.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync, constants as fsConstants } from "node:fs";
import { dirname } from "node:path";
import { paths } from "../platform/paths.ts";
import { isProcessAlive, withLockSync } from "../state-file/file-lock.ts";

export type LeaseResult = { ok: true } | { ok: false; pid: number; since: string };

const _held = new Set<string>();
let _exitHooked = false;

/**
 * Takes the lease of session `id` for this process. Refused while another live process holds it.
 * Re-entrant for the process that already holds it.
 */
export function tryLease(id: string): LeaseResult {
  const path = paths.sessionLease(id);
  return withLockSync(path, () => {
    const holder = _readLease(path);
    if (holder && holder.pid === process.pid) {
      _held.add(id);
      return { ok: true };
    }
    if (holder && isProcessAlive(holder.pid)) return { ok: false, pid: holder.pid, since: holder.since };
    rmSync(path, { force: true });
    _createLease(path);
    _held.add(id);
    _hookExit();
    return { ok: true };
  });
}

/**
 * The lease of a session this process has just made (its file not written yet), without the lock:
 * one O_EXCL create, its folder made when missing. Anything else (a file already there, an OS
 * error) is left to `tryLease`, which judges it, or words the error, as for any session.
 */
export function takeNewLease(id: string): LeaseResult {
  const path = paths.sessionLease(id);
  try {
    try {
      _createLease(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      _createLease(path);
    }
  } catch {
    return tryLease(id);
  }
  _held.add(id);
  _hookExit();
  return { ok: true };
}

function _createLease(path: string): void {
  const fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ pid: process.pid, since: new Date().toISOString() })}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Gives up this process's lease on `id`; a lease held by another process is left alone. */
export function releaseLease(id: string): void {
  _held.delete(id);
  const path = paths.sessionLease(id);
  if (_readLease(path)?.pid === process.pid) rmSync(path, { force: true });
}

/** The live process, other than this one, that holds session `id`; undefined when there is none. */
export function findLeaseHolder(id: string): { pid: number; since: string } | undefined {
  const holder = _readLease(paths.sessionLease(id));
  if (!holder || holder.pid === process.pid || !isProcessAlive(holder.pid)) return undefined;
  return holder;
}

function _readLease(path: string): { pid: number; since: string } | undefined {
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as { pid?: unknown; since?: unknown };
    if (typeof raw.pid !== "number") return undefined;
    return { pid: raw.pid, since: typeof raw.since === "string" ? raw.since : "" };
  } catch {
    return undefined;
  }
}

function _hookExit(): void {
  if (_exitHooked) return;
  _exitHooked = true;
  process.on("exit", () => {
    for (const id of [..._held]) releaseLease(id);
  });
}
