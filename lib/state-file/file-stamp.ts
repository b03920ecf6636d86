/**
 * A file's stamp: what says it is still the file something was read from — inode, size and
 * modification time, as `ino:size:mtimeMs`. Stores and indexes keep it beside what they derived
 * from a file and trust the derived data while the stamp holds. Its text is stored on disk (index
 * manifests, id lists), so it must not change spelling.
 */
import { statSync, type Stats } from "node:fs";

export function statStamp(stat: Pick<Stats, "ino" | "size" | "mtimeMs">): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** The stamp of whatever `path` names now; undefined when it cannot be stat-ed. */
export function fileStamp(path: string): string | undefined {
  return fileStampIfThere(path) || undefined;
}

/** `fileStamp`, telling a missing file apart: `false` when nothing is at `path` (learnt without raising an error). */
export function fileStampIfThere(path: string): string | false | undefined {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? statStamp(stat) : false;
  } catch {
    return undefined;
  }
}
