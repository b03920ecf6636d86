/**
 * The only writer of state files. Every store in lib/store/ goes through here.
 *
 * Guarantees:
 * - `writeJsonAtomic`: the file on disk is always either the old or the new whole document.
 *   The document is serialised fully, written to a temp file in the same folder, fsynced, then
 *   renamed over the target. Files are created with mode 0600, folders with 0700 (made when the
 *   file's open finds its folder missing, not checked before every write). With
 *   `durable: false` the fsync is left out: still old-or-new whole when the process is killed,
 *   but a power loss may leave the new file empty. Only for a write that carries nothing a
 *   durable write right after it does not (a new session's and a new run's first records).
 * - `updateJsonSync`: read-modify-write under the advisory lock of ./file-lock.ts; a plain
 *   atomic write needs no lock.
 * - `appendJsonLine`: one whole line per call, written with a single O_APPEND write, so
 *   concurrent appenders never interleave and a crash leaves at most one partial last line.
 * - Secrets never reach the disk: every write and append first passes the document through the
 *   redactor (lib/secrets/redact.ts), so a secret in any string is stored as `<redacted:kind>`.
 *   The caller's value is never changed. Only files the user writes on purpose (config.json,
 *   installed registry entries) opt out with `verbatim: true`.
 * - Both writers fail with a StateWriteError (lib/platform/os-errors.ts): one sentence naming the file,
 *   the cause in words (the disk is full, the file system is read-only, the name is too long)
 *   and that the previous version, or the lines already there, are intact.
 * - `readJson`: never throws for bad content. A missing file is `missing`; unparsable JSON,
 *   a schema failure or a newer format version is `corrupt` with a one-line reason, so callers
 *   skip and report instead of crashing. Documents carrying a `version` field are migrated
 *   forward before validation.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeSync,
  constants as fsConstants,
} from "node:fs";
import { dirname } from "node:path";
import * as v from "valibot";
import { StateWriteError, describeErrno, type StateWriteKind } from "../platform/os-errors.ts";
import { redactText, redactValue } from "../secrets/redact.ts";
import { statStamp } from "./file-stamp.ts";
import { withLockSync, type LockOptions } from "./file-lock.ts";

export type ReadResult<T> = { status: "ok"; value: T } | { status: "missing" } | { status: "corrupt"; reason: string };

/** Upgrades a raw document from `from` to `from + 1`. */
export type Migration = (raw: Record<string, unknown>) => Record<string, unknown>;

export interface ReadOptions<T> {
  schema: v.GenericSchema<unknown, T>;
  /** The format version this code writes. Documents without a `version` field count as version 0. */
  version?: number;
  /** migrations[n] upgrades version n to n + 1. */
  migrations?: Record<number, Migration>;
}

/** The reason an empty (or all-blank) document is corrupt, rather than JSON.parse's "Unexpected EOF". */
export const EMPTY_DOCUMENT_REASON = "empty, no JSON in it";

/** Parses and validates document text. Exposed for callers that already hold the bytes. */
export function parseJson<T>(text: string, options: ReadOptions<T>): ReadResult<T> {
  let raw: unknown;
  if (text.trim() === "") return { status: "corrupt", reason: EMPTY_DOCUMENT_REASON };
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // V8 quotes the offending source, newlines included; a reason must stay on one line.
    return { status: "corrupt", reason: `not valid JSON (${_oneLine((error as Error).message)})` };
  }
  if (options.version !== undefined && raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const migrated = _migrate(raw as Record<string, unknown>, options.version, options.migrations ?? {});
    if (typeof migrated === "string") return { status: "corrupt", reason: migrated };
    raw = migrated;
  }
  const parsed = v.safeParse(options.schema, raw);
  if (!parsed.success) return { status: "corrupt", reason: describeIssue(parsed.issues[0]) };
  return { status: "ok", value: parsed.output };
}

function _oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}

export function readJson<T>(path: string, options: ReadOptions<T>): ReadResult<T> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { status: "missing" };
    return { status: "corrupt", reason: `cannot be read: ${describeErrno(error)}` };
  }
  return parseJson(text, options);
}

/** A one-line description of a valibot issue: `"toolSets[1]" must be one of …`. */
export function describeIssue(issue: v.BaseIssue<unknown> | undefined): string {
  if (!issue) return "does not match the expected shape";
  const path = issuePath(issue);
  // valibot reports a missing key as `Invalid key: Expected "path" but received undefined`.
  if (issue.type === "object" && issue.received === "undefined" && path) return `"${path}" is required`;
  const message = issue.message.replace(/^Invalid [a-z]+: /, "");
  return path ? `"${path}" ${message}` : message;
}

export function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

function _migrate(raw: Record<string, unknown>, target: number, migrations: Record<number, Migration>): Record<string, unknown> | string {
  let current = typeof raw.version === "number" ? raw.version : 0;
  if (current > target) return `written by a newer shiro (format version ${current}, this one reads up to ${target})`;
  let doc = raw;
  while (current < target) {
    const step = migrations[current];
    if (!step) return `format version ${current} has no migration to ${target}`;
    doc = { ...step(doc), version: current + 1 };
    current += 1;
  }
  return doc;
}

export interface WriteOptions {
  mode?: number;
  /** Pretty-print with two spaces (default true): state files are meant to be readable. */
  pretty?: boolean;
  /** Write secrets as they are: only for files the user writes on purpose (config, registry installs). */
  verbatim?: boolean;
  /** false: not fsynced (see the module's guarantees for when that is allowed); default true. */
  durable?: boolean;
}

let _tempCounter = 0;

/** What an atomic write left: the text the file holds and the stamp (file-stamp.ts `statStamp`) it was left with. */
export interface WrittenFile {
  text: string;
  stamp: string;
}

/** Serialises `value` and atomically replaces `path` with it. */
export function writeJsonAtomic(path: string, value: unknown, options: WriteOptions = {}): WrittenFile {
  const stored = options.verbatim ? value : redactValue(value);
  const text = (options.pretty ?? true) ? `${JSON.stringify(stored, null, 2)}\n` : `${JSON.stringify(stored)}\n`;
  return { text, stamp: writeTextAtomic(path, text, { mode: options.mode, verbatim: true, durable: options.durable }) };
}

/**
 * Atomically replaces `path` with `content` (redacted unless `verbatim`); the stamp the file was
 * left with (`statStamp`). Failures throw StateWriteError: the file, the cause in words, and that
 * the old version is intact.
 */
export function writeTextAtomic(path: string, content: string, options: Pick<WriteOptions, "mode" | "verbatim" | "durable"> = {}): string {
  const text = options.verbatim ? content : redactText(content).text;
  try {
    return _writeAtomic(path, text, options.mode ?? 0o600, options.durable ?? true);
  } catch (error) {
    throw _sentence(error, path, "replace");
  }
}

function _sentence(error: unknown, path: string, kind: StateWriteKind): unknown {
  if (error instanceof StateWriteError || typeof (error as NodeJS.ErrnoException)?.code !== "string") return error;
  return new StateWriteError(path, error, kind, existsSync(path));
}

/**
 * Atomically replaces `path` with `bytes`, written as they are (binary files such as index
 * segments, whose text was redacted before it was encoded); `durable: false` as for
 * writeJsonAtomic. Failures throw StateWriteError.
 */
export function writeBytesAtomic(path: string, bytes: Uint8Array, mode = 0o600, durable = true): void {
  try {
    _writeAtomic(path, bytes, mode, durable);
  } catch (error) {
    throw _sentence(error, path, "replace");
  }
}

/** The stamp the file is left with: taken from the open temp file once written (a rename keeps inode, size and modification time). */
function _writeAtomic(path: string, data: string | Uint8Array, mode: number, durable: boolean): string {
  const bytes = typeof data === "string" ? Buffer.from(data) : data;
  const temp = `${path}.${process.pid}.${++_tempCounter}.tmp`;
  const fd = _openMakingFolder(temp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC, mode);
  let stamp: string;
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
    if (durable) fsyncSync(fd);
    stamp = statStamp(fstatSync(fd));
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return stamp;
}

/**
 * Opens `path` for writing (`flags` hold O_CREAT); when a folder on the way is missing, makes it
 * (0700, with its parents) and opens again. The folder almost always exists: one open, no mkdir
 * or stat before it.
 */
function _openMakingFolder(path: string, flags: number, mode: number): number {
  try {
    return openSync(path, flags, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return openSync(path, flags, mode);
  }
}

/** Appends one JSON document (redacted) as one line, in a single write; `durable`: fsynced before it returns. */
export function appendJsonLine(path: string, value: unknown, mode = 0o600, durable = false): void {
  const line = Buffer.from(`${JSON.stringify(redactValue(value))}\n`, "utf8");
  try {
    const fd = _openMakingFolder(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND, mode);
    try {
      writeSync(fd, line);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw _sentence(error, path, "append");
  }
}

/** Cuts `path` to its first `length` bytes (a torn last line of an append-only file, under the caller's lock). */
export function truncateFile(path: string, length: number): void {
  try {
    truncateSync(path, length);
  } catch (error) {
    throw _sentence(error, path, "replace");
  }
}

export interface JsonLinesResult<T> {
  values: T[];
  /** Lines that did not parse or validate (1-based line numbers); a torn last line is counted here. */
  skipped: { line: number; reason: string }[];
}

/** Reads a JSONL file line by line; bad lines are skipped and reported, never fatal. */
export function readJsonLines<T>(path: string, schema?: v.GenericSchema<unknown, T>): JsonLinesResult<T> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { values: [], skipped: [] };
    throw error;
  }
  const values: T[] = [];
  const skipped: { line: number; reason: string }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: i === lines.length - 1 ? "incomplete last line" : "not valid JSON" });
      continue;
    }
    if (schema) {
      const parsed = v.safeParse(schema, raw);
      if (!parsed.success) {
        skipped.push({ line: i + 1, reason: describeIssue(parsed.issues[0]) });
        continue;
      }
      values.push(parsed.output);
    } else values.push(raw as T);
  }
  return { values, skipped };
}

/**
 * Locked read-modify-write. `update` receives the current document (or `undefined` when the file
 * is missing or corrupt) and returns the next one; returning `undefined` leaves the file unchanged.
 * A corrupt file is never overwritten in place: it is first renamed to `<path>.corrupt-<time>`
 * (so nothing is lost), and `onCorrupt` hears the reason and the backup path.
 */
export function updateJsonSync<T>(
  path: string,
  options: ReadOptions<T> & WriteOptions & LockOptions & { onCorrupt?: (reason: string, backupPath: string) => void },
  update: (current: T | undefined) => T | undefined,
): T | undefined {
  return withLockSync(
    path,
    () => {
      const read = readJson(path, options);
      const next = update(read.status === "ok" ? read.value : undefined);
      if (next === undefined) return undefined;
      if (read.status === "corrupt") {
        const backup = `${path}.corrupt-${Date.now()}`;
        renameSync(path, backup);
        options.onCorrupt?.(read.reason, backup);
      }
      writeJsonAtomic(path, next, options);
      return next;
    },
    options,
  );
}
