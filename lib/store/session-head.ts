/**
 * A saved session's top-level `cwd` and `updatedAt`, read from the first 4 KiB of its file
 * instead of the whole record: `-c` looks through the hundred most recent sessions for the
 * newest of one directory, and a long session is megabytes of messages.
 *
 * The writer (sessions.ts) stores pretty JSON, two spaces per level, those fields before the
 * messages; a JSON string cannot hold a raw line break, so a line that starts with exactly two
 * spaces and a key is a top-level key. Undefined when the head does not show both (another layout,
 * a hand-edited or broken file): the caller reads the whole file then, so the answer is the same.
 */
import { closeSync, openSync, readSync } from "node:fs";

export interface SessionHead {
  cwd: string;
  updatedAt: string;
}

const _HEAD_BYTES = 4096;

export function readSessionHead(path: string): SessionHead | undefined {
  let text: string;
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(_HEAD_BYTES);
      const read = readSync(fd, buffer, 0, _HEAD_BYTES, 0);
      text = buffer.subarray(0, read).toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  // Whole lines only: a cut-off last line could hold half a value.
  const lines = text.slice(0, text.lastIndexOf("\n") + 1);
  const cwd = _topLevelString(lines, "cwd");
  const updatedAt = _topLevelString(lines, "updatedAt");
  return cwd !== undefined && updatedAt !== undefined ? { cwd, updatedAt } : undefined;
}

function _topLevelString(lines: string, key: string): string | undefined {
  const match = new RegExp(`\\n  "${key}": ("(?:[^"\\\\\\n]|\\\\.)*"),?\\n`).exec(lines);
  if (!match) return undefined;
  try {
    const value: unknown = JSON.parse(match[1]!);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
