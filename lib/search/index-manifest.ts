/**
 * The manifest of an index folder (`manifest.json`; the folder is described in index-folder.ts):
 * which segments are live, their tombstones, the live collection's size for BM25, and what the
 * caller recorded about its sources. Tombstones are kept as [start, count, start, count, …] runs
 * of document numbers per segment file.
 *
 * A segment's `last` (absent in a manifest an older build wrote): the greatest source name of
 * each kind the segment holds (`sourceKind`: a name's text up to its first `:`, the whole name
 * without one), in no particular order. A name of a kind it does not list, or greater than the one
 * it lists, is held by no source of that segment: a save looks its new session and runs up in no
 * segment (segmented-index.ts). Written with the segment (segment-files.ts `writeSegmentFile`),
 * from the names it holds; a manifest without it is looked up in the segment, as before.
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { readJson } from "../state-file/json-file.ts";
import { isRecord, sameFields } from "../store/quick-check.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";

export const MANIFEST_VERSION = 2;
const _count = () => v.pipe(v.number(), v.integer(), v.minValue(0));
const _manifestSchema = () =>
  v.object({
    version: v.literal(MANIFEST_VERSION),
    tokenizer: v.number(),
    generation: _count(),
    next: _count(),
    segments: v.array(v.object({ file: v.pipe(v.string(), v.regex(_SEGMENT_FILE)), docs: _count(), bytes: _count(), last: v.optional(v.array(v.string())) })),
    dead: v.record(v.string(), v.array(_count())),
    docs: _count(),
    totalLen: _count(),
    meta: v.record(v.string(), v.string()),
    checkedAt: v.optional(v.string()),
  });
/** Built at first use: a start-up with no index reads no manifest. */
let _manifest: ReturnType<typeof _manifestSchema> | undefined;
export type IndexManifest = v.InferOutput<ReturnType<typeof _manifestSchema>>;

export function readManifest(path: string): { status: "ok" | "missing" | "corrupt"; manifest?: IndexManifest; reason?: string } {
  const quick = _quickRead(path);
  if (quick) return quick.tokenizer === TOKENIZER_VERSION ? { status: "ok", manifest: quick } : { status: "missing" };
  const read = readJson(path, {
    // Read only once the file is: a missing manifest builds no schema.
    get schema() {
      return (_manifest ??= _manifestSchema());
    },
    version: MANIFEST_VERSION,
  });
  if (read.status === "missing") return { status: "missing" };
  if (read.status === "corrupt") return /format version/.test(read.reason) ? { status: "missing" } : { status: "corrupt", reason: read.reason };
  if (read.value.tokenizer !== TOKENIZER_VERSION) return { status: "missing" };
  return { status: "ok", manifest: read.value };
}

/** [start, count, …] to the document numbers. */
export function expandRanges(ranges: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < ranges.length; i += 2) for (let doc = ranges[i]!; doc < ranges[i]! + ranges[i + 1]!; doc++) out.push(doc);
  return out;
}

/** Document numbers to [start, count, …]. */
export function toRanges(docs: readonly number[]): number[] {
  const sorted = [...new Set(docs)].sort((a, b) => a - b);
  const out: number[] = [];
  for (const doc of sorted) {
    if (out.length > 0 && out[out.length - 2]! + out[out.length - 1]! === doc) out[out.length - 1]! += 1;
    else out.push(doc, 1);
  }
  return out;
}

/**
 * True when the hand check below knows exactly the schema's fields. Not called on the read path
 * (a manifest that passes it builds no schema): test/unit/index-manifest-quick-check.test.ts holds
 * it true, so a field added to the schema fails that test until the hand check knows it.
 */
export const manifestQuickCheckHolds = (): boolean => {
  const schema = _manifestSchema();
  return (
    sameFields(schema, ["version", "tokenizer", "generation", "next", "segments", "dead", "docs", "totalLen", "meta", "checkedAt"]) &&
    sameFields(schema.entries.segments.item, ["file", "docs", "bytes", "last"])
  );
};

/**
 * The manifest as this version writes it, checked by hand (lib/store/quick-check.ts: what passes
 * is what the schema passes, with the same output, unknown keys dropped); undefined for anything
 * else, a missing or unreadable file included, which then gets readJson's and the schema's verdict.
 * The schema's first build and pass cost a first request about 0.3 ms.
 */
function _quickRead(path: string): IndexManifest | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
  if (!isRecord(raw) || raw.version !== MANIFEST_VERSION || typeof raw.tokenizer !== "number") return undefined;
  const { generation, next, docs, totalLen, checkedAt } = raw;
  if (!_isCount(generation) || !_isCount(next) || !_isCount(docs) || !_isCount(totalLen) || !(checkedAt === undefined || typeof checkedAt === "string"))
    return undefined;
  if (!Array.isArray(raw.segments) || !isRecord(raw.dead) || !isRecord(raw.meta)) return undefined;
  const segments: IndexManifest["segments"] = [];
  for (const segment of raw.segments as unknown[]) {
    if (!isRecord(segment) || typeof segment.file !== "string" || !_SEGMENT_FILE.test(segment.file) || !_isCount(segment.docs) || !_isCount(segment.bytes))
      return undefined;
    const { last } = segment;
    if (last !== undefined && !_isNames(last)) return undefined;
    segments.push({ file: segment.file, docs: segment.docs, bytes: segment.bytes, ...(last === undefined ? {} : { last: last as string[] }) });
  }
  const dead: Record<string, number[]> = {};
  for (const [file, ranges] of Object.entries(raw.dead)) {
    if (!Array.isArray(ranges) || _ODD_KEYS.has(file)) return undefined;
    for (const value of ranges as unknown[]) if (!_isCount(value)) return undefined;
    dead[file] = ranges as number[];
  }
  const meta: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw.meta)) {
    if (typeof value !== "string" || _ODD_KEYS.has(key)) return undefined;
    meta[key] = value;
  }
  return {
    version: MANIFEST_VERSION,
    tokenizer: raw.tokenizer,
    generation,
    next,
    segments,
    dead,
    docs,
    totalLen,
    meta,
    ...(checkedAt === undefined ? {} : { checkedAt }),
  };
}

const _SEGMENT_FILE = /^\d{6,}\.seg$/;
// Keys valibot's record treats apart: left to the schema.
const _ODD_KEYS = new Set(["__proto__", "prototype", "constructor"]);
/** A loop, not `every`: read on the way to a first request, where its first call would be compiled (test/unit/memory-prompt-cost.test.ts). */
function _isNames(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const name of value) if (typeof name !== "string") return false;
  return true;
}
const _isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;
