/**
 * The advisory cross-process lock every read-modify-write of a state file takes: `<file>.lock`,
 * created with O_EXCL and holding the owner's pid. A lock whose owner process is dead, or that
 * stayed empty past a grace period (its creator died between create and write), is taken over.
 * `withLockSync` waits synchronously, `withLock` asynchronously; both give up with a
 * LockTimeoutError after `timeoutMs` (10 s by default).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeSync, constants as fsConstants } from "node:fs";
import { dirname } from "node:path";
import { StateWriteError } from "../platform/os-errors.ts";

export class LockTimeoutError extends Error {
  constructor(
    readonly path: string,
    readonly holderPid: number | undefined,
  ) {
    super(`timed out waiting for the lock on ${path}${holderPid ? ` (held by process ${holderPid})` : ""}`);
  }
}

export interface LockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
}

const _sleepCell = new Int32Array(new SharedArrayBuffer(4));
function _sleepSync(ms: number): void {
  Atomics.wait(_sleepCell, 0, 0, ms);
}

/** True while a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** How long a lock file may stay empty: longer means its creator died between create and write. */
const _EMPTY_LOCK_GRACE_MS = 5_000;

/**
 * A lock is stale when its owner is dead. An empty lock file is normally a holder between create
 * and write, so it counts as stale only once it has been empty for longer than the grace period.
 */
function _isStale(lockPath: string, holder: { pid?: number; text?: string }): boolean {
  if (holder.text === undefined) return false;
  if (holder.pid !== undefined) return !isProcessAlive(holder.pid);
  try {
    return Date.now() - statSync(lockPath).mtimeMs > _EMPTY_LOCK_GRACE_MS;
  } catch {
    return false;
  }
}

function _readHolder(lockPath: string): { pid?: number; text?: string } {
  try {
    const text = readFileSync(lockPath, "utf8");
    const pid = Number.parseInt(text, 10);
    return { pid: Number.isNaN(pid) ? undefined : pid, text };
  } catch {
    return {};
  }
}

/** One attempt: true when the lock is now ours. Takes over a lock whose owner is dead. */
function _tryAcquire(lockPath: string, made = false): { acquired: boolean; holder?: number } {
  try {
    const fd = openSync(lockPath, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return { acquired: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !made) {
      // The folder is new: try again at once rather than after a backoff (a first session's lease).
      mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
      return _tryAcquire(lockPath, true);
    }
    if (code === "ENOENT") return { acquired: false };
    if (code !== "EEXIST") throw _lockError(error, lockPath);
  }
  const holder = _readHolder(lockPath);
  if (_isStale(lockPath, holder)) _takeOver(lockPath, holder.text!);
  return { acquired: false, holder: holder.pid };
}

/**
 * Removes a stale lock, guarded by a second exclusive file so two processes that both saw the
 * dead owner cannot each remove a lock the other has just taken.
 */
function _takeOver(lockPath: string, staleText: string): void {
  const guard = `${lockPath}.takeover`;
  let fd: number;
  try {
    fd = openSync(guard, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o600);
  } catch {
    if (_isStale(guard, _readHolder(guard))) rmSync(guard, { force: true });
    return;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    const current = _readHolder(lockPath);
    if (current.text === staleText && _isStale(lockPath, current)) rmSync(lockPath, { force: true });
  } finally {
    rmSync(guard, { force: true });
  }
}

function _release(lockPath: string): void {
  if (_readHolder(lockPath).pid === process.pid) {
    try {
      unlinkSync(lockPath);
    } catch {
      // already gone: nothing to release
    }
  }
}

/**
 * Tries the lock of `path` until it is ours, yielding how long to wait (ms, jittered backoff up to
 * 25) between attempts; the caller waits in its own way. Throws LockTimeoutError past the timeout.
 */
function* _acquireWaits(path: string, options: LockOptions): Generator<number, void, undefined> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let delay = 1;
  for (;;) {
    const attempt = _tryAcquire(`${path}.lock`);
    if (attempt.acquired) return;
    if (Date.now() > deadline) throw new LockTimeoutError(path, attempt.holder);
    yield delay + Math.random() * delay;
    delay = Math.min(delay * 2, 25);
  }
}

/** Runs `fn` while holding the advisory lock of `path` (the lock file is `<path>.lock`). */
export function withLockSync<T>(path: string, fn: () => T, options: LockOptions = {}): T {
  for (const wait of _acquireWaits(path, options)) _sleepSync(wait);
  try {
    return fn();
  } finally {
    _release(`${path}.lock`);
  }
}

/** The async form of `withLockSync`: waits without blocking the event loop. */
export async function withLock<T>(path: string, fn: () => T | Promise<T>, options: LockOptions = {}): Promise<T> {
  for (const wait of _acquireWaits(path, options)) await new Promise((resolve) => setTimeout(resolve, wait));
  try {
    return await fn();
  } finally {
    _release(`${path}.lock`);
  }
}

/** An OS error taking the lock, as a sentence naming the file (lib/platform/os-errors.ts). */
function _lockError(error: unknown, path: string): unknown {
  if (error instanceof StateWriteError || typeof (error as NodeJS.ErrnoException)?.code !== "string") return error;
  return new StateWriteError(path, error, "lock", existsSync(path));
}
