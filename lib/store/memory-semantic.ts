/**
 * Semantic ranking for recall, when config `memory.embeddings` names an endpoint: each indexed
 * note, episode and digest is embedded once (its vector kept in `memory/<hash16>.vectors.json`,
 * paths.memoryVectors, beside the index), the query is embedded on every recall, and documents
 * are ranked by cosine similarity. memory-recall.ts fuses that ranking with BM25 by rank.
 *
 * Contract: only documents the recall accepts are ranked (and embedded, when they have no vector
 * yet); a document's text is read from the store it lives in, the episodes file only when an
 * episode or digest still needs a vector. Throws when the endpoint fails; the caller falls back.
 */
import type { Bm25Index, IndexHit } from "../search/bm25-index.ts";
import type { EmbeddingClient } from "../search/embeddings.ts";
import { cosine, loadVectors, saveVectors, vectorKey, type VectorMap } from "../search/vector-file.ts";
import { paths } from "../platform/paths.ts";
import type { EpisodeStore } from "./episodes.ts";
import { DIGEST_ID_PREFIX, EPISODE_SEGMENT, digestText, episodeText } from "./memory-index.ts";
import type { ScopedMemoryEntry } from "./memory.ts";

export interface SemanticRankOptions {
  projectRoot: string;
  client: EmbeddingClient;
  index: Bm25Index;
  notes: ReadonlyMap<string, ScopedMemoryEntry>;
  episodes?: EpisodeStore;
  query: string;
  accept: (segment: string, id: string) => boolean;
  /** How many of the closest documents to return. */
  pool: number;
}

/** The accepted documents closest to the query, best first, `score` being the cosine. */
export async function rankSemantically(options: SemanticRankOptions): Promise<IndexHit[]> {
  const { client, index } = options;
  const path = paths.memoryVectors(options.projectRoot);
  const all = index.entries();
  const candidates = all.filter((entry) => options.accept(entry.segment, entry.id));
  const vectors: VectorMap = loadVectors(path, client.model);
  const missing = candidates.filter((entry) => !vectors.has(vectorKey(entry.segment, entry.id, entry.stamp)));
  if (missing.length > 0) {
    const texts = _textsOf(missing, options);
    const embedded = await client.embed(missing.map((entry) => texts.get(entry.id) ?? entry.id));
    const added: VectorMap = new Map();
    missing.forEach((entry, i) => added.set(vectorKey(entry.segment, entry.id, entry.stamp), Float32Array.from(embedded[i]!)));
    for (const [key, vector] of added) vectors.set(key, vector);
    const live = new Set(all.map((entry) => vectorKey(entry.segment, entry.id, entry.stamp)));
    saveVectors(path, client.model, added, (key) => live.has(key));
  }
  const [queryVector] = await client.embed([options.query]);
  return candidates
    .map(
      (entry): IndexHit => ({
        segment: entry.segment,
        id: entry.id,
        data: entry.data,
        score: cosine(queryVector!, vectors.get(vectorKey(entry.segment, entry.id, entry.stamp)) ?? []),
        matched: 0,
      }),
    )
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, options.pool);
}

/** The text of each document to embed, by id. */
function _textsOf(entries: readonly { segment: string; id: string }[], options: SemanticRankOptions): Map<string, string> {
  const texts = new Map<string, string>();
  const needEpisodes = entries.some((entry) => entry.segment === EPISODE_SEGMENT);
  if (needEpisodes && options.episodes) {
    const { episodes, digests } = options.episodes.read();
    for (const episode of episodes) texts.set(episode.id, episodeText(episode));
    for (const digest of digests) texts.set(`${DIGEST_ID_PREFIX}${digest.month}`, digestText(digest));
  }
  for (const entry of entries) {
    const note = options.notes.get(entry.id);
    if (entry.segment !== EPISODE_SEGMENT && note) texts.set(entry.id, note.text);
  }
  return texts;
}
