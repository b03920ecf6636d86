/**
 * Reads the shadow repository's index file (git's format, versions 2 and 3) for what a snapshot
 * needs without asking git: each entry's path, git mode and change time (seconds), and the file's trailing
 * checksum (which changes whenever git writes the index). Version 4 (prefix-compressed paths) or
 * anything unexpected answers undefined, and the caller falls back to asking git and a full scan.
 * Read-only; git alone writes the file.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";

export interface IndexEntry {
  path: string;
  /** Git's mode: 0o100644, 0o100755, 0o120000, … */
  mode: number;
  /** The seconds of the file's ctime when git last recorded its stat data. */
  ctimeSec: number;
}

export interface IndexFile {
  entries: IndexEntry[];
  /** The index's own trailing hash (hex): equal checksums, equal index. */
  checksum: string;
}

/** The index at `indexFile`; a missing file is an empty index (checksum ""), an unreadable one undefined. */
export function readIndexFile(indexFile: string): IndexFile | undefined {
  let data: Buffer;
  try {
    data = readFileSync(indexFile);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? { entries: [], checksum: "" } : undefined;
  }
  const entries = _entries(data);
  return entries && { entries, checksum: data.toString("hex", data.length - 20) };
}

/** Only the index's trailing hash (undefined when there is no readable index). */
export function readIndexChecksum(indexFile: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(indexFile, "r");
    const size = fstatSync(fd).size;
    if (size < 32) return undefined;
    const tail = Buffer.alloc(20);
    readSync(fd, tail, 0, 20, size - 20);
    return tail.toString("hex");
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function _entries(data: Buffer): IndexEntry[] | undefined {
  if (data.length < 32 || data.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const count = data.readUInt32BE(8);
  const entries: IndexEntry[] = [];
  let at = 12;
  for (let i = 0; i < count; i++) {
    if (at + 62 > data.length) return undefined;
    const flags = data.readUInt16BE(at + 60);
    const extended = version === 3 && (flags & 0x4000) !== 0;
    const pathStart = at + 62 + (extended ? 2 : 0);
    const end = data.indexOf(0, pathStart);
    if (end < 0) return undefined;
    entries.push({
      path: data.toString("utf8", pathStart, end),
      mode: data.readUInt32BE(at + 24),
      ctimeSec: data.readUInt32BE(at),
    });
    // Entries are NUL-padded to a multiple of 8 bytes, with at least one NUL.
    const length = end - at + 1;
    at += Math.ceil(length / 8) * 8;
  }
  return entries;
}
