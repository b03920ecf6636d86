/**
 * The bytes of an episode log (episodes.ts has the format): reading its lines forwards from any
 * offset or backwards from its end, in chunks, so a caller that needs the newest record or the
 * records appended since it last looked reads only those bytes.
 *
 * Contract: a line is the text between two "\n"; the text after the last "\n" (a torn last
 * record: a writer died mid-append) is reported as `torn`, never as a line. Nothing here parses
 * JSON or writes.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

// Backwards reads start small (most asks are for the last line or few) and double up to 64 KiB.
const _FIRST_CHUNK = 8 * 1024;
const _CHUNK = 64 * 1024;

export interface LogLine {
  /** Byte offset of the line's first byte. */
  at: number;
  text: string;
}

export interface LogStat {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** Opens `path` for reading; undefined when it is missing. Other errors throw. */
export function openLog(path: string): { fd: number; stat: LogStat } | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const stat = fstatSync(fd);
  return { fd, stat: { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs } };
}

export function closeLog(fd: number): void {
  closeSync(fd);
}

/** The whole lines of bytes [from, size), and how many bytes after the last "\n" were left as torn. */
export function readLinesFrom(fd: number, from: number, size: number): { lines: LogLine[]; torn: number } {
  const length = size - from;
  if (length <= 0) return { lines: [], torn: 0 };
  const bytes = Buffer.allocUnsafe(length);
  for (let done = 0; done < length; ) {
    const read = readSync(fd, bytes, done, length - done, from + done);
    if (read === 0) break;
    done += read;
  }
  const lines: LogLine[] = [];
  let start = 0;
  for (;;) {
    const end = bytes.indexOf(10, start);
    if (end < 0) break;
    if (end > start) lines.push({ at: from + start, text: bytes.toString("utf8", start, end) });
    start = end + 1;
  }
  return { lines, torn: length - start };
}

/**
 * The whole lines before `size`, newest first, read backwards in chunks (8 KiB doubling to 64 KiB) as the caller asks
 * for more; `torn` counts the bytes after the last "\n".
 */
export function linesFromEnd(fd: number, size: number): { torn: number; lines: Iterable<LogLine> } {
  const tail = _tailStart(fd, size);
  return {
    torn: size - tail,
    lines: {
      *[Symbol.iterator]() {
        // `buffer` holds bytes [base, base + buffer.length): whole lines, the last one ending in "\n".
        let base = tail;
        let buffer: Buffer = Buffer.alloc(0);
        let chunkSize = _FIRST_CHUNK;
        for (;;) {
          const newline = buffer.length < 2 ? -1 : buffer.lastIndexOf(10, buffer.length - 2);
          if (newline >= 0 || (base === 0 && buffer.length > 0)) {
            const start = newline + 1;
            const text = buffer.toString("utf8", start, buffer.length - 1);
            if (text.length > 0) yield { at: base + start, text };
            buffer = buffer.subarray(0, start);
            continue;
          }
          if (base === 0) return;
          const from = Math.max(0, base - chunkSize);
          chunkSize = Math.min(_CHUNK, chunkSize * 2);
          const chunk = Buffer.allocUnsafe(base - from);
          readSync(fd, chunk, 0, chunk.length, from);
          buffer = buffer.length > 0 ? Buffer.concat([chunk, buffer]) : chunk;
          base = from;
        }
      },
    },
  };
}

/** Where the text after the last "\n" starts (`size` when the file ends with one). */
function _tailStart(fd: number, size: number): number {
  let end = size;
  let chunkSize = 512;
  while (end > 0) {
    const from = Math.max(0, end - chunkSize);
    chunkSize = Math.min(_CHUNK, chunkSize * 2);
    const chunk = Buffer.allocUnsafe(end - from);
    readSync(fd, chunk, 0, chunk.length, from);
    const newline = chunk.lastIndexOf(10);
    if (newline >= 0) return from + newline + 1;
    end = from;
  }
  return 0;
}
