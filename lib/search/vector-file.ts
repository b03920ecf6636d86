/**
 * Embedding vectors of indexed documents, kept in one flat JSON file beside their index, and the
 * hybrid ranking that uses them.
 *
 * File (written compact): {version: 1, model: "<embedding model>", dims: N,
 *   vectors: {"<segment>\u0000<id>\u0000<stamp>": "<base64 of N little-endian float32>"}}
 * A key names a document version (bm25-index segment, id and stamp), so a changed document is
 * embedded again and a document is never embedded twice.
 *
 * Contract:
 * - `load` never throws: a missing, corrupt or other-model file is an empty set of vectors.
 * - `save` merges under the file's advisory lock (vectors another process added meanwhile are
 *   kept), keeps only the keys `live` accepts, and replaces the file atomically.
 * - `fuseByRank` is reciprocal-rank fusion (k = 60): a document's score is the sum over the
 *   rankings it appears in of 1 / (60 + its rank, from 1).
 */
import { Buffer } from "node:buffer";
import * as v from "valibot";
import { readJson, writeJsonAtomic } from "../state-file/json-file.ts";
import { withLockSync } from "../state-file/file-lock.ts";

const _fileSchema = () =>
  v.object({
    version: v.literal(1),
    model: v.string(),
    dims: v.number(),
    vectors: v.record(v.string(), v.string()),
  });

let _file: ReturnType<typeof _fileSchema> | undefined;
// The schema is built at the first read of a file that exists.
const _options = {
  get schema() {
    return (_file ??= _fileSchema());
  },
  version: 1,
};

export type VectorMap = Map<string, Float32Array>;

export function vectorKey(segment: string, id: string, stamp: string): string {
  return `${segment}\u0000${id}\u0000${stamp}`;
}

export function loadVectors(path: string, model: string): VectorMap {
  const read = readJson(path, _options);
  const vectors: VectorMap = new Map();
  if (read.status !== "ok" || read.value.model !== model) return vectors;
  for (const [key, encoded] of Object.entries(read.value.vectors)) {
    const bytes = Buffer.from(encoded, "base64");
    if (bytes.length !== read.value.dims * 4) continue;
    vectors.set(key, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
  }
  return vectors;
}

export function saveVectors(path: string, model: string, added: VectorMap, live: (key: string) => boolean): void {
  withLockSync(path, () => {
    const merged = loadVectors(path, model);
    for (const [key, vector] of added) merged.set(key, vector);
    const dims = added.values().next().value?.length ?? merged.values().next().value?.length ?? 0;
    const vectors: Record<string, string> = {};
    for (const [key, vector] of merged) {
      if (vector.length !== dims || !live(key)) continue;
      Object.defineProperty(vectors, key, { value: Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64"), enumerable: true });
    }
    // Vectors are numbers, not text: nothing in them to redact, and base64 must survive byte for byte.
    writeJsonAtomic(path, { version: 1, model, dims, vectors }, { pretty: false, verbatim: true });
  });
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Reciprocal-rank fusion of best-first rankings of keys. */
export function fuseByRank(rankings: readonly (readonly string[])[], k = 60): Map<string, number> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((key, rank) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + rank + 1)));
  return scores;
}
