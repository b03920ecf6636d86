/**
 * The segment files of an index folder (index-folder.ts): opened for positioned reads (checked
 * against the manifest's size and document count; closed once nothing can read them) or, up to
 * READ_WHOLE_BYTES, read whole in one read and searched in memory (a young index's segment costs
 * a first request one read, not one per table; an opened one is named by its file's stamp, what
 * segment-candidates.ts keeps its candidates under); written whole (a temp file renamed into place,
 * not fsynced: index-folder.ts says why), merged (`mergeSegments`), and removed once no manifest
 * names them.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { writeBytesAtomic } from "../state-file/json-file.ts";
import { join } from "node:path";
import { expandRanges, type IndexManifest } from "./index-manifest.ts";
import { IndexCorruptError, bufferSource, fileSource, lastNamesOf, type ByteSource } from "./segment-layout.ts";
import { openSegment, type SegmentReader } from "./segment-read.ts";
import { compareKeys, encodeSegment, type SegmentContent } from "./segment-write.ts";
import type { OpenSegment } from "./segmented-index.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";
import { statStamp } from "../state-file/file-stamp.ts";

// Closes a segment's file once nothing can read it any more.
const _closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** Segment files of at most this many bytes are read whole, in one read, and searched in memory (no file kept open). */
export const READ_WHOLE_BYTES = 64 * 1024;

/**
 * Per index folder, the segment files this process opened (for positioned reads, or read whole),
 * by name, with the stamp they were opened under. Segment files are written whole under a new name
 * and never changed in place, so a name whose file has the same stamp is the same bytes: its reader
 * (header checked, tables read) is used again, one stat instead of an open, a read and its checks
 * (a save after a `recall` opens the transcript index a second time). Each open keeps only the
 * files its manifest names.
 */
const _opened = new Map<string, Map<string, { identity: string; reader: SegmentReader }>>();

export function openSegmentFiles(dir: string, manifest: IndexManifest): OpenSegment[] {
  const before = _opened.get(dir);
  const kept = new Map<string, { identity: string; reader: SegmentReader }>();
  const segments = manifest.segments.map((segment): OpenSegment => {
    const dead = new Set(expandRanges(manifest.dead[segment.file] ?? []));
    const path = join(dir, segment.file);
    const whole = segment.bytes <= READ_WHOLE_BYTES;
    const known = before?.get(segment.file);
    if (known) {
      const stat = statSync(path);
      const identity = `${segment.file}:${statStamp(stat)}`;
      if (identity === known.identity && stat.size === segment.bytes && known.reader.docs === segment.docs) {
        kept.set(segment.file, known);
        return { file: segment.file, reader: known.reader, dead, ...(whole ? {} : { identity }), ...(segment.last ? { last: segment.last } : {}) };
      }
    }
    const opened = whole ? _readChecked(path, segment) : _openChecked(path, segment);
    kept.set(segment.file, opened);
    // A segment read whole keeps no candidates (segment-candidates.ts: it is scored from its postings): it is named by no identity.
    return {
      file: segment.file,
      reader: opened.reader,
      dead,
      ...(whole ? {} : { identity: opened.identity }),
      ...(segment.last ? { last: segment.last } : {}),
    };
  });
  _opened.set(dir, kept);
  return segments;
}

/** A segment file read whole (one open: its stamp is the bytes read) and checked, with its identity. */
function _readChecked(path: string, segment: IndexManifest["segments"][number]): { identity: string; reader: SegmentReader } {
  const fd = openSync(path, "r");
  try {
    const stat = fstatSync(fd);
    const reader = _checked(segment, () => bufferSource(readFileSync(fd)), true);
    return { identity: `${segment.file}:${statStamp(stat)}`, reader };
  } finally {
    closeSync(fd);
  }
}

/** A segment file opened for positioned reads and checked, with its identity (its name and the stamp of the file opened). */
function _openChecked(path: string, segment: IndexManifest["segments"][number]): { identity: string; reader: SegmentReader } {
  const fd = openSync(path, "r");
  let reader: SegmentReader;
  let identity = "";
  try {
    reader = _checked(
      segment,
      () => {
        const stat = fstatSync(fd);
        identity = `${segment.file}:${statStamp(stat)}`;
        return fileSource(fd, stat.size, () => closeSync(fd));
      },
      false,
    );
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  _closer.register(reader, fd);
  return { identity, reader };
}

/** The segment `source()` reads, checked against what the manifest says of it (size, documents). */
function _checked(segment: IndexManifest["segments"][number], source: () => ByteSource, inMemory: boolean): SegmentReader {
  try {
    const bytes = source();
    if (bytes.size !== segment.bytes) throw new IndexCorruptError(`${segment.file} is ${bytes.size} bytes, the manifest says ${segment.bytes}`);
    const reader = openSegment(bytes, inMemory);
    if (reader.docs !== segment.docs) throw new IndexCorruptError(`${segment.file} holds ${reader.docs} documents, the manifest says ${segment.docs}`);
    return reader;
  } catch (error) {
    throw error instanceof IndexCorruptError ? new IndexCorruptError(`${segment.file}: ${error.message}`) : error;
  }
}

/** `bytes`: `content` encoded already. */
export function writeSegmentFile(
  dir: string,
  manifest: IndexManifest,
  content: SegmentContent,
  bytes = encodeSegment(content, TOKENIZER_VERSION),
): IndexManifest["segments"][number] {
  const file = `${String(manifest.next).padStart(6, "0")}.seg`;
  manifest.next += 1;
  writeBytesAtomic(join(dir, file), bytes, 0o600, false);
  return { file, docs: content.docs.length, bytes: bytes.length, last: lastNamesOf(content.sources) };
}

/**
 * `manifest` with the last names (index-manifest.ts `last`) of its first segment written without
 * them (by an older build) read from `segments` (its segments, open): all its source names, read
 * once, so each later save looks its new names up in that segment without a search. One segment per
 * call, so a save bounds what it adds; undefined when every segment has them.
 */
export function withLastNames(manifest: IndexManifest, segments: readonly OpenSegment[]): IndexManifest | undefined {
  const at = manifest.segments.findIndex((segment) => segment.last === undefined);
  const reader = segments.find((segment) => segment.file === manifest.segments[at]?.file)?.reader;
  if (!reader) return undefined;
  const names: { name: string }[] = [];
  for (let i = 0; i < reader.sources; i++) names.push(reader.source(i));
  const filled = [...manifest.segments];
  filled[at] = { ...filled[at]!, last: lastNamesOf(names) };
  return { ...manifest, segments: filled };
}

/** Removes segment files (and temp files) the manifest does not name. */
export function removeStraySegments(dir: string, manifest: IndexManifest): void {
  const named = new Set(manifest.segments.map((segment) => segment.file));
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names)
    if ((name.endsWith(".seg") && !named.has(name)) || /\.seg\.\d+\.\d+\.tmp$/.test(name))
      try {
        rmSync(join(dir, name), { force: true });
      } catch {
        // still open elsewhere (Windows): the next compaction removes it
      }
}

/**
 * Merges segments (oldest first) into the content of one: tombstoned documents are dropped; a
 * source named in several keeps the newest stamp and every live document, oldest segment's first,
 * and its data only when every segment that held it recorded the same (else none: a reader then
 * judges its documents one by one);
 * sources are laid out in name order (segment-write.ts `compareKeys`) and every posting renumbered.
 */
export function mergeSegments(segments: readonly OpenSegment[]): SegmentContent {
  const contents = segments.map((segment) => segment.reader.content());
  const bySource = new Map<string, { stamp: string; data: string | undefined; docs: { part: number; doc: number }[] }>();
  contents.forEach((content, part) => {
    for (const source of content.sources) {
      const data = source.data === undefined ? undefined : JSON.stringify(source.data);
      const known = bySource.get(source.name);
      const entry = known ?? { stamp: source.stamp, data, docs: [] };
      entry.stamp = source.stamp;
      if (known && known.data !== data) entry.data = undefined;
      for (let doc = source.firstDoc; doc < source.firstDoc + source.count; doc++) if (!segments[part]!.dead.has(doc)) entry.docs.push({ part, doc });
      bySource.set(source.name, entry);
    }
  });
  const merged: SegmentContent = { sources: [], docs: [], postings: new Map() };
  const renumber = contents.map((content) => new Int32Array(content.docs.length).fill(-1));
  for (const name of [...bySource.keys()].sort(compareKeys)) {
    const entry = bySource.get(name)!;
    const ordinal = merged.sources.length;
    merged.sources.push({
      name,
      stamp: entry.stamp,
      firstDoc: merged.docs.length,
      count: entry.docs.length,
      ...(entry.data === undefined ? {} : { data: JSON.parse(entry.data) }),
    });
    for (const { part, doc } of entry.docs) {
      renumber[part]![doc] = merged.docs.length;
      merged.docs.push({ ...contents[part]!.docs[doc]!, source: ordinal });
    }
  }
  contents.forEach((content, part) => {
    for (const [term, pairs] of content.postings) {
      let list = merged.postings.get(term);
      for (let i = 0; i < pairs.length; i += 2) {
        const doc = renumber[part]![pairs[i]!]!;
        if (doc < 0) continue;
        if (!list) merged.postings.set(term, (list = []));
        list.push(doc, pairs[i + 1]!);
      }
    }
  });
  for (const [term, list] of merged.postings) {
    const order = Array.from({ length: list.length / 2 }, (_, i) => i).sort((a, b) => list[a * 2]! - list[b * 2]!);
    let sorted = true;
    for (let i = 1; i < order.length && sorted; i++) sorted = order[i]! > order[i - 1]!;
    if (!sorted)
      merged.postings.set(
        term,
        order.flatMap((i) => [list[i * 2]!, list[i * 2 + 1]!]),
      );
  }
  return merged;
}
