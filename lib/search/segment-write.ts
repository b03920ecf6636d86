/**
 * Builds the bytes of one segment file (layout in segment-layout.ts) from documents, or from the
 * decoded content of other segments (a merge). Pure: nothing here touches the disk.
 */
import { DOC_BLOCK, HEADER_BYTES, SECTIONS, SEGMENT_FORMAT, SEGMENT_MAGIC, TERM_BLOCK, ByteWriter, fnv1a, textEncoder } from "./segment-layout.ts";
import { encodeValue, repeatedStrings } from "./entry-codec.ts";
import { tokenize } from "./tokenize.ts";

export interface SegmentSourceEntry {
  name: string;
  stamp: string;
  firstDoc: number;
  count: number;
  /** What its owner said holds for every document of the source (bm25-index.ts `describe`), when it said anything. */
  data?: unknown;
}

export interface SegmentDocEntry {
  /** The source's ordinal in this segment. */
  source: number;
  id: string;
  stamp: string;
  /** Its term count. */
  len: number;
  data?: unknown;
  /** One member of an object `data`, read without decoding the rest (not enumerable: not part of the entry's value). */
  field?: (key: string) => unknown;
}

/** Everything a segment holds, decoded. Sources sorted by name, each one's documents contiguous in that order. */
export interface SegmentContent {
  sources: SegmentSourceEntry[];
  docs: SegmentDocEntry[];
  /** Per term: [doc, tf, doc, tf, …], documents ascending. */
  postings: Map<string, number[]>;
}

export interface SegmentDocInput {
  id: string;
  stamp: string;
  text: string;
  data?: unknown;
}

interface _PendingSource {
  stamp: string;
  data?: unknown;
  docs: { input: SegmentDocInput; terms: Map<string, number>; len: number }[];
}

/** Collects sources' documents (tokenised as they come) and lays them out as a segment. */
export interface SegmentBuilder {
  /**
   * Sets `name`'s stamp (and its data, what holds for all its documents, when given) and adds its
   * documents (a name given again keeps the last stamp and data and every document); returns
   * their count and total length.
   */
  add(name: string, stamp: string, docs: readonly SegmentDocInput[], data?: unknown): { docs: number; len: number };
  /** Drops `name` and its documents; returns what `add` counted for them (zeros when absent). */
  remove(name: string): { docs: number; len: number };
  /** The stamp `name` was added with, if it was. */
  stampOf(name: string): string | undefined;
  names(): string[];
  readonly empty: boolean;
  build(): SegmentContent;
}

export function createSegmentBuilder(): SegmentBuilder {
  const sources = new Map<string, _PendingSource>();
  return {
    add(name, stamp, docs, data) {
      const source: _PendingSource = sources.get(name) ?? { stamp, docs: [] };
      source.stamp = stamp;
      if (data === undefined) delete source.data;
      else source.data = data;
      let len = 0;
      for (const input of docs) {
        const terms = new Map<string, number>();
        const all = tokenize(input.text);
        for (const term of all) terms.set(term, (terms.get(term) ?? 0) + 1);
        source.docs.push({ input, terms, len: all.length });
        len += all.length;
      }
      sources.set(name, source);
      return { docs: docs.length, len };
    },
    remove(name) {
      const source = sources.get(name);
      sources.delete(name);
      return { docs: source?.docs.length ?? 0, len: source?.docs.reduce((sum, doc) => sum + doc.len, 0) ?? 0 };
    },
    stampOf: (name) => sources.get(name)?.stamp,
    names: () => [...sources.keys()],
    get empty() {
      return sources.size === 0;
    },
    build() {
      const content: SegmentContent = { sources: [], docs: [], postings: new Map() };
      for (const name of [...sources.keys()].sort(compareKeys)) {
        const source = sources.get(name)!;
        const ordinal = content.sources.length;
        content.sources.push({
          name,
          stamp: source.stamp,
          firstDoc: content.docs.length,
          count: source.docs.length,
          ...(source.data === undefined ? {} : { data: source.data }),
        });
        for (const doc of source.docs) {
          const index = content.docs.length;
          content.docs.push({
            source: ordinal,
            id: doc.input.id,
            stamp: doc.input.stamp,
            len: doc.len,
            ...(doc.input.data === undefined ? {} : { data: doc.input.data }),
          });
          for (const [term, tf] of doc.terms) {
            const list = content.postings.get(term);
            if (list) list.push(index, tf);
            else content.postings.set(term, [index, tf]);
          }
        }
      }
      return content;
    },
  };
}

/** The bytes of a segment file holding `content`. */
export function encodeSegment(content: SegmentContent, tokenizer: number): Uint8Array {
  const sourceEntries = content.sources.map((source) =>
    textEncoder.encode(
      JSON.stringify(
        source.data === undefined
          ? [source.name, source.stamp, source.firstDoc, source.count]
          : [source.name, source.stamp, source.firstDoc, source.count, source.data],
      ),
    ),
  );
  const strings = repeatedStrings(content.docs.map((doc) => [doc.id, doc.stamp, doc.data]));
  const stringIndex = new Map(strings.map((text, i) => [text, i]));
  const encoded = strings.map((text) => textEncoder.encode(text));
  const table = new ByteWriter();
  table.u32(strings.length);
  let stringAt = 0;
  table.u32(0);
  for (const text of encoded) table.u32((stringAt += text.length));
  for (const text of encoded) table.raw(text);
  const docEntries: Uint8Array[] = [];
  for (let start = 0; start < content.docs.length; start += DOC_BLOCK) {
    const block = new ByteWriter();
    for (const doc of content.docs.slice(start, start + DOC_BLOCK)) {
      block.varint(doc.source);
      encodeValue(block, doc.id, stringIndex);
      encodeValue(block, doc.stamp, stringIndex);
      block.byte(doc.data === undefined ? 0 : 1);
      if (doc.data !== undefined) encodeValue(block, doc.data, stringIndex);
    }
    docEntries.push(block.finish().slice());
  }
  const terms = [...content.postings.keys()].sort(compareKeys);
  const postings = new ByteWriter();
  const blocks = new ByteWriter();
  const index = new ByteWriter();
  terms.forEach((term, i) => {
    const key = textEncoder.encode(term);
    if (i % TERM_BLOCK === 0) {
      index.varint(key.length);
      index.raw(key);
      index.varint(blocks.length);
    }
    const list = content.postings.get(term)!;
    const start = postings.length;
    let previous = -1;
    for (let j = 0; j < list.length; j += 2) {
      const gap = list[j]! - previous;
      previous = list[j]!;
      const tf = list[j + 1]!;
      postings.varint(gap * 2 + (tf > 1 ? 1 : 0));
      if (tf > 1) postings.varint(tf);
    }
    blocks.varint(key.length);
    blocks.raw(key);
    blocks.varint(list.length / 2);
    blocks.varint(start);
    blocks.varint(postings.length - start);
  });

  const out = new ByteWriter();
  const offsets: number[] = [];
  const header = new Uint8Array(HEADER_BYTES);
  out.raw(header);
  const section = () => offsets.push(out.length);
  const offsetTable = (entries: readonly Uint8Array[]) => {
    let at = 0;
    out.u32(0);
    for (const entry of entries) out.u32((at += entry.length));
  };
  section();
  offsetTable(sourceEntries);
  section();
  for (const entry of sourceEntries) out.raw(entry);
  section();
  for (const source of content.sources) out.u32(source.firstDoc);
  section();
  out.raw(index.finish());
  section();
  out.raw(blocks.finish());
  section();
  out.raw(postings.finish());
  section();
  for (const doc of content.docs) out.u32(doc.len);
  section();
  out.raw(table.finish());
  section();
  offsetTable(docEntries);
  section();
  for (const entry of docEntries) out.raw(entry);
  section();
  while (offsets.length < SECTIONS) offsets.push(0);

  const bytes = out.finish();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  bytes.set(textEncoder.encode(SEGMENT_MAGIC), 0);
  view.setUint32(8, SEGMENT_FORMAT, true);
  view.setUint32(12, tokenizer, true);
  view.setUint32(16, content.docs.length, true);
  view.setUint32(20, content.sources.length, true);
  view.setUint32(24, terms.length, true);
  view.setUint32(
    28,
    content.docs.reduce((sum, doc) => sum + doc.len, 0),
    true,
  );
  offsets.forEach((offset, i) => view.setUint32(32 + i * 4, offset, true));
  view.setUint32(76, fnv1a(bytes.subarray(0, 76)), true);
  return bytes;
}

/** The one key order of segments: JavaScript string comparison. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
