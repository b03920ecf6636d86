/**
 * What a closing session does for its indexes, after its answer and off the path to any first
 * request: its session and runs join the transcript index as one more segment (and small
 * segments are merged when due: find/transcript-index.ts), the episode log is compacted
 * once it holds a quarter more than its caps (store/episodes.ts `compactIfDue`: a stat and its
 * last line, otherwise), and the project's recall index takes in the episode just recorded and
 * the notes written (store/memory-index.ts `keepMemoryIndexCurrent`) as one more segment, its
 * small segments merged by the same rule as the transcript index's (index-folder.ts `compactIfDue`),
 * so the next run opens both without reading what it indexes and a long history's saves do not
 * pile up segments every later sync and search goes through. A failure is a notice, never an error: the next open catches up.
 */
import { indexSavedTranscripts } from "../find/transcript-index.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import { keepMemoryIndexCurrent } from "../store/memory-index.ts";
import type { MemoryStore } from "../store/memory.ts";

export interface IndexUpkeep {
  sessionId?: string;
  runIds: readonly string[];
  projectRoot: string;
  /** The note stores recall searches; absent when memory is off. */
  stores?: readonly MemoryStore[];
  episodes?: EpisodeStore;
  onNotice?: (text: string) => void;
}

export function keepIndexesCurrent(upkeep: IndexUpkeep): void {
  try {
    if (upkeep.sessionId || upkeep.runIds.length > 0)
      indexSavedTranscripts({ ...(upkeep.sessionId ? { sessionId: upkeep.sessionId } : {}), runIds: upkeep.runIds }, { onNotice: upkeep.onNotice });
    // Before the recall index: it then takes in the compacted log once, here, not at the next prompt.
    upkeep.episodes?.compactIfDue();
    if (upkeep.stores) {
      keepMemoryIndexCurrent({
        projectRoot: upkeep.projectRoot,
        stores: upkeep.stores.filter((store) => store.scope !== "run"),
        episodes: upkeep.episodes,
        onNotice: upkeep.onNotice,
      });
    }
  } catch (error) {
    upkeep.onNotice?.(`the search indexes were not brought up to date (${(error as Error).message}); the next search does it`);
  }
}
