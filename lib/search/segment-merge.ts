/**
 * Merges segments (oldest first) into the content of one: tombstoned documents are dropped; a
 * source named in several keeps the newest stamp and every live document, oldest segment's first,
 * and its data only when every segment that held it recorded the same (else none: a reader then
 * judges its documents one by one);
 * sources are laid out in name order (segment-write.ts `compareKeys`) and every posting renumbered.
 */
import type { OpenSegment } from "./segmented-index.ts";
import { compareKeys, type SegmentContent } from "./segment-write.ts";

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
