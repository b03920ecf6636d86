/**
 * The one writer of the command line's output. Every command writes stdout and stderr through
 * `writeOut` / `writeErr` and leaves through `exitAfterOutput`, which ends the process only once
 * every byte written so far has been handed to the OS, however slow the reader. (process.exit
 * while a pipe still has queued writes drops them: a reader that starts late would get 64 KiB.)
 *
 * Failures:
 * - the reader of stdout went away (EPIPE): the process ends quietly, exit 0, and what was not
 *   delivered is dropped; a reader of stderr going away only drops what goes there;
 * - any other write failure (a full disk, an I/O error): later output is dropped, and the exit is
 *   1 with one line on stderr, `shiro: cannot write to stdout: the disk is full (ENOSPC)`.
 * Either way, once stdout can take no more, `onOutputLost` listeners hear it once (a headless
 * run stops there rather than spend tokens on an answer nobody can receive).
 *
 * `writeOutNow` writes synchronously without touching `process.stdout` (in Bun merely touching a
 * standard stream loads Node's stream machinery: milliseconds, a third of --version's run); a
 * process that only used it exits at once. `writeErr`, and `writeOut` when stdout is not a terminal
 * (a terminal is left to the stream the REPL shares), write the same way for their first
 * `_SYNC_BUDGET` bytes, which any pipe holds unread, so a reader that starts late never blocks the
 * run; past that, or once a write would block, the stream takes the channel. Start-up notices and a
 * short answer so cost no stream at all.
 * This module is on the start-up path: it imports nothing heavy and touches no stream at load.
 */
import { fstatSync, statSync, writeSync } from "node:fs";
import { describeErrno } from "../platform/os-errors.ts";

interface _Channel {
  readonly name: "stdout" | "stderr";
  readonly fd: number;
  /** Settles when the newest write handed to the stream has been flushed (or failed). */
  last: Promise<void>;
  touched: boolean;
  /** Bytes `writeErr` / `writeOut` may still write synchronously before the stream takes over. */
  budget: number;
  failure?: NodeJS.ErrnoException;
}

/** At most what the smallest pipe holds (one page): a synchronous write within it never waits for the reader. */
const _SYNC_BUDGET = 4096;

const _out: _Channel = { name: "stdout", fd: 1, last: Promise.resolve(), touched: false, budget: _SYNC_BUDGET };
const _err: _Channel = { name: "stderr", fd: 2, last: Promise.resolve(), touched: false, budget: _SYNC_BUDGET };
const _lostListeners: (() => void)[] = [];
let _outputLost = false;

const _stream = (channel: _Channel): NodeJS.WriteStream => (channel.fd === 1 ? process.stdout : process.stderr);

function _fail(channel: _Channel, error: unknown): void {
  if (channel.failure) return;
  channel.failure = (error ?? new Error("write failed")) as NodeJS.ErrnoException;
  if (channel !== _out || _outputLost) return;
  _outputLost = true;
  for (const listener of _lostListeners.splice(0)) {
    try {
      listener();
    } catch {
      // a listener that throws must not stop the others
    }
  }
}

function _write(channel: _Channel, text: string): void {
  if (!text || channel.failure) return;
  const stream = _stream(channel);
  if (!channel.touched) {
    channel.touched = true;
    // Without a listener an EPIPE 'error' event would be an uncaught exception.
    stream.on("error", (error) => _fail(channel, error));
  }
  channel.last = new Promise<void>((resolve) => {
    try {
      stream.write(text, (error) => {
        if (error) _fail(channel, error);
        resolve();
      });
    } catch (error) {
      _fail(channel, error);
      resolve();
    }
  });
}

/** Answer text, JSON events, listings. Written synchronously while stdout is a pipe or a file nobody else has streamed to. */
export function writeOut(text: string): void {
  if (_out.touched || _isStdoutTerminal()) _write(_out, text);
  else _writeNow(_out, text, true);
}

/** Progress, notices, error lines. */
export function writeErr(text: string): void {
  _writeNow(_err, text, true);
}

/** A synchronous stdout write for the start-up path (--version, --help). */
export function writeOutNow(text: string): void {
  _writeNow(_out, text);
}

let _stdoutTerminal: boolean | undefined;

/**
 * True when stdout may be a terminal: a character device other than the null device (`> /dev/null`
 * is written like a file, not through the stream a terminal shares). Asked once, without touching
 * process.stdout; a stat that fails counts as a terminal.
 */
function _isStdoutTerminal(): boolean {
  if (_stdoutTerminal === undefined) {
    try {
      const stdout = fstatSync(_out.fd);
      _stdoutTerminal = stdout.isCharacterDevice() && !_isNullDevice(stdout.rdev);
    } catch {
      _stdoutTerminal = true;
    }
  }
  return _stdoutTerminal;
}

function _isNullDevice(rdev: number): boolean {
  try {
    return rdev !== 0 && statSync("/dev/null").rdev === rdev;
  } catch {
    return false;
  }
}

/**
 * Writes with `writeSync` while the channel's stream is untouched (and, when `budgeted`, within its
 * synchronous budget); the stream takes over once a write would block or the budget is spent.
 */
function _writeNow(channel: _Channel, text: string, budgeted = false): void {
  if (channel.touched) return _write(channel, text);
  if (!text || channel.failure) return;
  const bytes = Buffer.from(text, "utf8");
  if (budgeted) {
    if (bytes.length > channel.budget) return _write(channel, text);
    channel.budget -= bytes.length;
  }
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(channel.fd, bytes, offset);
    } catch (error) {
      // A non-blocking pipe that is full: the stream queues the rest and the exit waits for it.
      if ((error as NodeJS.ErrnoException).code === "EAGAIN") return _write(channel, bytes.subarray(offset).toString("utf8"));
      _fail(channel, error);
      return;
    }
  }
}

/** `listener` runs once, when stdout can take no more (its reader went away, or a write failed). */
export function onOutputLost(listener: () => void): () => void {
  if (_outputLost) {
    listener();
    return () => undefined;
  }
  _lostListeners.push(listener);
  return () => {
    const index = _lostListeners.indexOf(listener);
    if (index >= 0) _lostListeners.splice(index, 1);
  };
}

/** Settles when everything written so far has reached the OS or failed. */
export async function flushOutput(): Promise<void> {
  await Promise.all([_out.last, _err.last]);
}

/**
 * The exit code once output is settled: stdout's EPIPE ends quietly with 0; another failure is
 * 1, with its one line on stderr (unless stderr itself is what failed).
 */
export function settleExitCode(code: number): number {
  const failure = [_out, _err].find((channel) => channel.failure && channel.failure.code !== "EPIPE");
  if (failure) {
    if (failure !== _err && !_err.failure) {
      try {
        writeSync(2, `shiro: cannot write to ${failure.name}: ${describeErrno(failure.failure)}\n`);
      } catch {
        // stderr is gone too: the exit code is all that is left
      }
    }
    return 1;
  }
  return _out.failure ? 0 : code;
}

/** The one way out: waits for every write to settle, then exits with the settled code. */
export async function exitAfterOutput(code: number): Promise<never> {
  if (_out.touched || _err.touched) await flushOutput();
  process.exit(settleExitCode(code));
}
