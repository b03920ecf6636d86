/**
 * A segmented BM25 index kept in one folder beside the data it indexes: immutable segment files
 * (`000001.seg`, …; segment-layout.ts) and `manifest.json`, which alone says which segments are
 * live:
 *
 *   {"version": 2, "tokenizer": <TOKENIZER_VERSION>, "generation": <n>, "next": <n>,
 *    "segments": [{"file": "000001.seg", "docs": <n>, "bytes": <n>, "last": […]}, …], (oldest first)
 *    "dead": {"000001.seg": [start, count, start, count, …]},             (tombstoned documents)
 *    "docs": <live documents>, "totalLen": <their total length>,          (BM25's collection)
 *    "meta": {<name>: <string>}, "checkedAt": <ISO time of the last full check>}
 *
 * Contract:
 * - Readers take no lock: they read the manifest, then the segments it lists (a segment file is
 *   written whole and renamed into place before a manifest names it; a compaction removes old files
 *   only after the manifest that drops them is in place, and a reader that loses that race reads
 *   the manifest again). Neither is fsynced (derived data): after a power loss, one cut short is rebuilt.
 * - Every change runs under the manifest's advisory lock (file-lock.ts) on a fresh read: it adds at
 *   most one segment (what was synced) and tombstones, then replaces the manifest atomically. So
 *   saving costs what changed, not the index.
 * - `open(sync, freshness)`: when `freshness.current(meta)` holds, the saved index is returned as it
 *   is and `sync` is not called (the cheap path: the caller compares what its sources look like,
 *   e.g. two folders' stamps, with what the manifest recorded). Otherwise `sync` brings the index up
 *   to date under the lock, saving a segment every FLUSH_DOCS new documents, and the result is
 *   saved with `freshness.meta()` (taken before `sync` ran). Without `freshness`, `sync` runs
 *   without the lock first and again under it only when it changed something.
 * - A missing folder or manifest, or one from another format or tokenizer, is rebuilt quietly (out of
 *   date, not damaged). A manifest that does not parse or validate, or a segment it names that is
 *   missing, truncated or does not decode, is rebuilt too, and `onNotice` hears one line naming the
 *   folder and the reason. An index is derived data: nothing is lost by rebuilding it.
 * - An index with no documents makes no folder.
 * - Within one process, a manifest whose inode, size and modification time are unchanged since it
 *   was last read here is not read again.
 * - A write that fails is reported through `onNotice`; the index in memory is still returned.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { withLockSync } from "../state-file/file-lock.ts";
import { writeJsonAtomic } from "../state-file/json-file.ts";
import { MANIFEST_VERSION, expandRanges, readManifest, toRanges, type IndexManifest } from "./index-manifest.ts";
import type { Bm25Index } from "./bm25-index.ts";
import { IndexCorruptError } from "./segment-layout.ts";
import { mergeSegments, openSegmentFiles, removeStraySegments, withLastNames, writeSegmentFile } from "./segment-files.ts";
import { openCandidateStore } from "./segment-candidates.ts";
import { createSegmentedIndex, type OpenSegment, type SegmentedIndex } from "./segmented-index.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";
import { fileStamp } from "../state-file/file-stamp.ts";

export type { IndexManifest } from "./index-manifest.ts";

export interface IndexFolderOptions {
  /** What the index is of, for notices: `memory index`. */
  label: string;
  onNotice?: (text: string) => void;
  /** A file an older shiro kept this index in: removed once the folder is built. */
  legacyFile?: string;
  /** New documents saved as one segment while a sync under the lock goes on (default FLUSH_DOCS). */
  flushDocs?: number;
}

export interface IndexFreshness {
  /** True when the saved index is up to date with its sources, judged by what `meta` recorded. */
  current(meta: Readonly<Record<string, string>>): boolean;
  /** What to record with the index after a sync: read before the sources are. */
  meta(): Record<string, string>;
}

export interface CompactResult {
  segmentsBefore: number;
  segmentsAfter: number;
  bytesBefore: number;
  bytesAfter: number;
  tombstones: number;
}

export interface IndexFolder {
  readonly dir: string;
  open(sync: (index: Bm25Index) => void, freshness?: IndexFreshness): Bm25Index;
  /**
   * Under the lock, on the saved index: `update` syncs what changed (say, the session just saved)
   * and the result is saved as one more segment, with `meta` recorded when given. Does nothing
   * when there is no saved index: the next `open` builds it whole. Returns the manifest in place
   * after it (undefined when there was no saved index, or the save failed).
   */
  append(update: (index: Bm25Index) => void, meta?: Record<string, string>, checked?: boolean): IndexManifest | undefined;
  /** Merges the small newest segments (`full`: every segment) into one, dropping tombstoned documents. */
  compact(full: boolean): CompactResult | undefined;
  /**
   * `compact(false)` when `manifest` (the saved one when absent) holds more than
   * COMPACT_AFTER_SEGMENTS segments of fewer than `flushDocs` documents; otherwise nothing.
   */
  compactIfDue(manifest?: IndexManifest): CompactResult | undefined;
  /** The saved manifest, when it reads. */
  manifest(): IndexManifest | undefined;
}

/** New documents a build saves as one segment before it goes on (so a build cut short keeps its work). */
export const FLUSH_DOCS = 50_000;

/**
 * Segments past which a save also merges the newest ones (`compactIfDue`). Segments of FLUSH_DOCS
 * documents or more (a build's chunks) are not counted: a partial merge takes one only once what
 * is newer holds half as many, and counted they left a history built by a search so little room
 * that every save merged.
 */
export const COMPACT_AFTER_SEGMENTS = 8;

interface _Loaded {
  status: "ok" | "missing" | "corrupt";
  reason?: string;
  manifest?: IndexManifest;
  index: SegmentedIndex;
  segments?: readonly OpenSegment[];
}

const _cache = new Map<string, { stamp: string; loaded: _Loaded }>();
// The last manifest read outside the lock, per path: a prompt judges the index by it (`manifest()`), then opens it.
const _manifests = new Map<string, { stamp: string; read: _ManifestRead }>();
type _ManifestRead = ReturnType<typeof readManifest>;

export function openIndexFolder(dir: string, options: IndexFolderOptions): IndexFolder {
  const manifestPath = join(dir, "manifest.json");
  const notice = (reason: string) => options.onNotice?.(`${options.label} ${dir} was unreadable (${reason}); rebuilt it`);

  const load = (): _Loaded => {
    const stamp = fileStamp(manifestPath);
    const cached = _cache.get(dir);
    if (cached && stamp && cached.stamp === stamp && !cached.loaded.index.dirty) return cached.loaded;
    const loaded = _load(dir, manifestPath, _readManifestOnce(manifestPath, stamp));
    if (stamp && loaded.status === "ok") _cache.set(dir, { stamp, loaded });
    return loaded;
  };

  const commit = (base: _Loaded, index: SegmentedIndex, meta: Record<string, string> | undefined, checked: boolean): IndexManifest => {
    const changes = index.changes();
    const old = base.status === "ok" ? base.manifest! : undefined;
    const manifest: IndexManifest = {
      version: MANIFEST_VERSION,
      tokenizer: TOKENIZER_VERSION,
      generation: (old?.generation ?? 0) + 1,
      next: old?.next ?? 1,
      segments: [...(old?.segments ?? [])],
      dead: { ...(old?.dead ?? {}) },
      docs: changes.docs,
      totalLen: changes.totalLen,
      meta: meta ?? old?.meta ?? {},
      ...(checked ? { checkedAt: new Date().toISOString() } : old?.checkedAt ? { checkedAt: old.checkedAt } : {}),
    };
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (changes.content) manifest.segments.push(writeSegmentFile(dir, manifest, changes.content, changes.bytes));
    for (const [file, docs] of changes.dead) manifest.dead[file] = toRanges([...expandRanges(manifest.dead[file] ?? []), ...docs]);
    writeJsonAtomic(manifestPath, manifest, { pretty: false, verbatim: true, durable: false });
    if (!old) {
      removeStraySegments(dir, manifest);
      if (options.legacyFile) rmSync(options.legacyFile, { force: true });
    }
    return manifest;
  };

  // The lock sits beside the folder (`<dir>.lock`), so taking it makes no folder.
  const locked = <T>(fn: () => T): T => {
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    return withLockSync(dir, fn);
  };

  /**
   * `sync` on `base`'s index under the lock, saving a segment each FLUSH_DOCS new documents: a
   * build cut short (a killed process) keeps what it indexed, and the next one goes on from there.
   * `meta` is recorded only once `sync` is through.
   */
  const syncInChunks = (base: _Loaded, sync: (index: Bm25Index) => void, meta: Record<string, string> | undefined): Bm25Index => {
    let current = base;
    const flush = () => {
      commit(current, current.index, undefined, false);
      current = _load(dir, manifestPath);
      if (current.status !== "ok") throw new IndexCorruptError(`a segment just written does not read back (${current.reason ?? current.status})`);
    };
    let flushed = false;
    sync(
      _forwarding(
        (fn) => fn(current.index),
        (segment, stamp, load, describe) => {
          const changed = current.index.sync(segment, stamp, load, describe);
          if (current.index.pendingDocs >= (options.flushDocs ?? FLUSH_DOCS)) {
            flush();
            flushed = true;
          }
          return changed;
        },
        () => flushed || current.index.dirty,
      ),
    );
    if (!flushed && current.status !== "ok" && current.index.size === 0 && !existsSync(dir)) return current.index;
    commit(current, current.index, meta, true);
    _cache.delete(dir);
    return current.index;
  };

  const openOnce = (sync: (index: Bm25Index) => void, freshness?: IndexFreshness): Bm25Index => {
    const first = load();
    if (first.status === "ok" && freshness?.current(first.manifest!.meta)) return first.index;
    const meta = freshness?.meta();
    if (first.status === "ok" && !freshness) {
      // Most opens change nothing, or little: the work is done without the lock, and redone under it only if another process saved meanwhile.
      sync(first.index);
      if (!first.index.dirty) return first.index;
    }
    // Nothing saved yet: whether there is anything to index at all is found without the lock (taking it makes a folder).
    if (first.status !== "ok" && !existsSync(dir) && !_findsSomething(first.index, sync)) return first.index;
    // An index that says it is behind its sources may be far behind: synced under the lock, in chunks.
    try {
      return locked(() => {
        const again = _load(dir, manifestPath);
        if (again.status === "corrupt") notice(again.reason!);
        if (first.status === "ok" && !freshness && again.status === "ok" && again.manifest!.generation === first.manifest!.generation) {
          commit(again, first.index, meta, true);
          _cache.delete(dir);
          return first.index;
        }
        return syncInChunks(again, sync, meta);
      });
    } catch (error) {
      if (error instanceof IndexCorruptError) throw error;
      options.onNotice?.(`${options.label} ${dir} could not be saved (${(error as Error).message}); searched without saving it`);
      return first.index;
    }
  };

  return {
    dir,
    open(sync, freshness) {
      // A segment that turns out not to decode (here, or in a later search) is rebuilt from the sources, once.
      const rebuild = (error: IndexCorruptError): Bm25Index => {
        notice(error.message);
        _cache.delete(dir);
        try {
          locked(() => rmSync(manifestPath, { force: true }));
        } catch {
          // the open below rebuilds in memory all the same
        }
        return openOnce(sync, freshness);
      };
      try {
        return _guarded(openOnce(sync, freshness), rebuild);
      } catch (error) {
        if (!(error instanceof IndexCorruptError)) throw error;
        return rebuild(error);
      }
    },

    append(update, meta, checked = false) {
      if (!existsSync(manifestPath)) return undefined;
      try {
        return locked(() => {
          // The manifest read just before (`manifest()`) is taken again while its stamp holds: it is replaced, never rewritten in place.
          const loaded = _load(dir, manifestPath, _readManifestOnce(manifestPath, fileStamp(manifestPath)));
          if (loaded.status !== "ok") return undefined;
          update(loaded.index);
          const upgraded = withLastNames(loaded.manifest!, loaded.segments!); // a segment an older build wrote gets its last names, one per save
          const base = upgraded ? { ...loaded, manifest: upgraded } : loaded;
          const metaChanged = meta !== undefined && JSON.stringify(meta) !== JSON.stringify(base.manifest!.meta);
          const saved = base.index.dirty || metaChanged || checked || upgraded ? commit(base, base.index, meta, checked) : base.manifest!;
          _cache.delete(dir);
          return saved;
        });
      } catch (error) {
        options.onNotice?.(`${options.label} ${dir} could not be saved (${(error as Error).message})`);
        return undefined;
      }
    },

    compact(full) {
      if (!existsSync(manifestPath)) return undefined;
      return locked(() => {
        const base = _load(dir, manifestPath, _readManifestOnce(manifestPath, fileStamp(manifestPath)));
        if (base.status !== "ok") return undefined;
        const manifest = base.manifest!;
        const bytesBefore = manifest.segments.reduce((sum, segment) => sum + segment.bytes, 0);
        const tombstones = Object.values(manifest.dead).reduce((sum, ranges) => sum + expandRanges(ranges).length, 0);
        const from = full ? 0 : _tailStart(manifest.segments.map((segment) => segment.docs));
        const result = { segmentsBefore: manifest.segments.length, bytesBefore, tombstones };
        if (manifest.segments.length - from < 2 && (tombstones === 0 || !full))
          return { ...result, segmentsAfter: result.segmentsBefore, bytesAfter: bytesBefore };
        const merged = mergeSegments(openSegmentFiles(dir, manifest).slice(from));
        const next: IndexManifest = { ...manifest, generation: manifest.generation + 1, segments: manifest.segments.slice(0, from), dead: {} };
        for (const segment of next.segments) if (manifest.dead[segment.file]) next.dead[segment.file] = manifest.dead[segment.file]!;
        if (merged.docs.length > 0 || merged.sources.length > 0) next.segments.push(writeSegmentFile(dir, next, merged));
        writeJsonAtomic(manifestPath, next, { pretty: false, verbatim: true, durable: false });
        removeStraySegments(dir, next);
        _cache.delete(dir);
        return { ...result, segmentsAfter: next.segments.length, bytesAfter: next.segments.reduce((sum, segment) => sum + segment.bytes, 0) };
      });
    },

    compactIfDue(manifest) {
      const saved = manifest ?? this.manifest();
      const flushDocs = options.flushDocs ?? FLUSH_DOCS;
      if ((saved?.segments.filter((segment) => segment.docs < flushDocs).length ?? 0) <= COMPACT_AFTER_SEGMENTS) return undefined;
      return this.compact(false);
    },

    manifest() {
      const read = _readManifestOnce(manifestPath, fileStamp(manifestPath));
      return read.status === "ok" ? read.manifest : undefined;
    },
  };
}

class _Found extends Error {}

/** Whether `sync` adds any document to `index`: stops at the first (the index is thrown away after). */
function _findsSomething(index: Bm25Index, sync: (index: Bm25Index) => void): boolean {
  const probe = _forwarding(
    (fn) => fn(index),
    (segment, stamp, load, describe) => {
      const changed = index.sync(segment, stamp, load, describe);
      if (index.size > 0) throw new _Found();
      return changed;
    },
  );
  try {
    sync(probe);
    return false;
  } catch (error) {
    if (error instanceof _Found) return true;
    throw error;
  }
}

/** `index`, but a read that finds a corrupt segment rebuilds the index (once) and is answered from the rebuilt one. */
function _guarded(index: Bm25Index, rebuild: (error: IndexCorruptError) => Bm25Index): Bm25Index {
  let current = index;
  let rebuilt = false;
  const run = <T>(fn: (index: Bm25Index) => T): T => {
    try {
      return fn(current);
    } catch (error) {
      if (!(error instanceof IndexCorruptError) || rebuilt) throw error;
      rebuilt = true;
      current = rebuild(error);
      return fn(current);
    }
  };
  return _forwarding(run, (segment, stamp, load, describe) => run((index) => index.sync(segment, stamp, load, describe)));
}

/** A Bm25Index whose reads go through `run` (given the index to read) and whose `sync` (and `dirty`, when given) are the caller's. */
function _forwarding(run: <T>(fn: (index: Bm25Index) => T) => T, sync: Bm25Index["sync"], dirty = () => run((index) => index.dirty)): Bm25Index {
  return {
    get size() {
      return run((index) => index.size);
    },
    get dirty() {
      return dirty();
    },
    sync,
    segmentNames: () => run((index) => index.segmentNames()),
    entries: () => run((index) => index.entries()),
    search: (query, options) => run((index) => index.search(query, options)),
    stats: (query) => run((index) => index.stats(query)),
  };
}

/** Where a partial merge starts: the newest segments whose sizes stay within twice what is newer (at least the two newest). */
function _tailStart(docs: readonly number[]): number {
  let start = docs.length;
  let newer = 0;
  for (let i = docs.length - 1; i >= 0; i--) {
    if (docs.length - i > 2 && docs[i]! > 2 * newer) break;
    newer += docs[i]!;
    start = i;
  }
  return start;
}

/** `path`'s manifest, read again only when its stamp (taken before) changed since it was last read. */
function _readManifestOnce(path: string, stamp: string | undefined): _ManifestRead {
  const last = _manifests.get(path);
  if (stamp && last?.stamp === stamp) return last.read;
  const read = readManifest(path);
  if (stamp && read.status === "ok") _manifests.set(path, { stamp, read });
  return read;
}

/** The index `manifestPath` names (`first`: its manifest as just read). */
function _load(dir: string, manifestPath: string, first?: _ManifestRead): _Loaded {
  for (let attempt = 0; ; attempt++) {
    const read = attempt === 0 && first ? first : readManifest(manifestPath);
    if (read.status !== "ok") return { status: read.status, ...(read.reason ? { reason: read.reason } : {}), index: createSegmentedIndex() };
    try {
      const segments = openSegmentFiles(dir, read.manifest!);
      return { status: "ok", manifest: read.manifest!, segments, index: createSegmentedIndex(segments, read.manifest!, openCandidateStore(dir)) };
    } catch (error) {
      // A compaction may have replaced the manifest between reading it and opening its segments.
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && attempt === 0) continue;
      const reason =
        error instanceof IndexCorruptError ? error.message : (error as NodeJS.ErrnoException).code === "ENOENT" ? "a segment is missing" : String(error);
      return { status: "corrupt", reason, index: createSegmentedIndex() };
    }
  }
}
