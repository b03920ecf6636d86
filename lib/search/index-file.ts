/**
 * A BM25 index kept in one flat JSON file beside the data it indexes, brought up to date on use.
 *
 * Contract:
 * - `open(sync)` loads the file, lets `sync` bring each segment up to date (bm25-index `sync`), and
 *   returns the index. When nothing changed the file is only read, and no lock is taken. When
 *   something changed, the work is redone under the file's advisory lock (json-file `withLockSync`)
 *   on a fresh read (unless the file is unchanged since the first read, when that work stands),
 *   and the result replaces the file atomically: concurrent processes never write an index that
 *   misses a change another one saw.
 * - A missing file, or one written by another tokenizer or format version, is rebuilt quietly (it
 *   is out of date, not damaged). A file that does not parse or validate is rebuilt too, and
 *   `onNotice` hears one line naming it and the reason. An index is derived data: nothing is
 *   lost by rebuilding it, so it is overwritten rather than moved aside.
 * - An index with no documents is not written unless its file exists already.
 * - Within one process, an index file whose inode, size and modification time are unchanged since
 *   it was last read here is not parsed again.
 * - A write that fails (a read-only folder, a full disk) is reported through `onNotice`; the
 *   index in memory is still returned and used.
 */
import { existsSync, statSync } from "node:fs";
import { withLockSync } from "../state-file/file-lock.ts";
import { readJson, writeJsonAtomic } from "../state-file/json-file.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";
import { createBm25Index, INDEX_FORMAT_VERSION, IndexDocumentSchema, type Bm25Index } from "./bm25-index.ts";

export interface IndexFileOptions {
  /** What the index is of, for notices: `memory index`. */
  label: string;
  onNotice?: (text: string) => void;
}

export interface IndexFile {
  readonly path: string;
  open(sync: (index: Bm25Index) => void): Bm25Index;
}

/**
 * The last index read from each file, with that file's stamp: a process that searches again (the
 * REPL) parses the file again only after it changed. An index that a sync changed is never reused.
 */
const _loaded = new Map<string, { stamp: string; index: Bm25Index }>();

function _fileStamp(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return undefined;
  }
}

export function openIndexFile(path: string, options: IndexFileOptions): IndexFile {
  let unreadable: string | undefined;
  const load = (report: boolean): Bm25Index => {
    unreadable = undefined;
    const stamp = _fileStamp(path);
    const cached = _loaded.get(path);
    if (cached && stamp && cached.stamp === stamp && !cached.index.dirty) return cached.index;
    const read = readJson(path, { schema: IndexDocumentSchema, version: INDEX_FORMAT_VERSION });
    if (read.status === "ok" && read.value.tokenizer === TOKENIZER_VERSION) {
      const index = createBm25Index(read.value);
      if (stamp) _loaded.set(path, { stamp, index });
      return index;
    }
    if (read.status === "corrupt" && !/format version/.test(read.reason)) {
      unreadable = `${options.label} ${path} was unreadable (${read.reason}); rebuilt it`;
      if (report) options.onNotice?.(unreadable);
    }
    return createBm25Index();
  };

  return {
    path,
    open(sync) {
      const before = _fileStamp(path);
      const first = load(false);
      sync(first);
      if (!first.dirty || (first.size === 0 && !existsSync(path))) return first;
      try {
        return withLockSync(path, () => {
          // Unchanged since it was read: the work done on `first` stands (the sync below is a no-op).
          const reuse = _fileStamp(path) === before;
          if (reuse && unreadable) options.onNotice?.(unreadable);
          const fresh = reuse ? first : load(true);
          sync(fresh);
          if (fresh.dirty) writeJsonAtomic(path, fresh.toDocument(), { pretty: false });
          return fresh;
        });
      } catch (error) {
        options.onNotice?.(`${options.label} ${path} could not be saved (${(error as Error).message}); searched without saving it`);
        return first;
      }
    },
  };
}
