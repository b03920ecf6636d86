/**
 * The manifest of an index folder (`manifest.json`; the folder is described in index-folder.ts):
 * which segments are live, their tombstones, the live collection's size for BM25, and what the
 * caller recorded about its sources. Tombstones are kept as [start, count, start, count, …] runs
 * of document numbers per segment file.
 */
import * as v from "valibot";
import { readJson } from "../state-file/json-file.ts";
import { TOKENIZER_VERSION } from "./tokenize.ts";

export const MANIFEST_VERSION = 2;
const _count = () => v.pipe(v.number(), v.integer(), v.minValue(0));
const _manifestSchema = () =>
  v.object({
    version: v.literal(MANIFEST_VERSION),
    tokenizer: v.number(),
    generation: _count(),
    next: _count(),
    segments: v.array(v.object({ file: v.pipe(v.string(), v.regex(/^\d{6,}\.seg$/)), docs: _count(), bytes: _count() })),
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
