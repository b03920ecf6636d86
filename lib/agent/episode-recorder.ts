/**
 * Stores the episode of a headless run or REPL session as it closes: the runs this process drove
 * are read back from their logs, built into one episode (lib/store/episode-build.ts) and recorded
 * in the project's episodes. No model call.
 *
 * Contract: never throws. A session that did nothing (see buildEpisode) records nothing; a
 * failure to record (a lock held too long, a full disk) is one line on stderr, and the session
 * still closes normally.
 */
import { buildEpisode, loadEpisodeRuns } from "../store/episode-build.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import type { SessionRecord } from "../store/sessions.ts";

export interface RecordSessionEpisodeOptions {
  store: EpisodeStore;
  session: SessionRecord;
  cwd: string;
  runIds: readonly string[];
}

/** Records the episode if there is one; returns whether it was recorded. */
export function recordSessionEpisode(options: RecordSessionEpisodeOptions): boolean {
  const { store, session, cwd, runIds } = options;
  if (runIds.length === 0) return false;
  try {
    const prompts = new Map(session.exchanges.filter((exchange) => runIds.includes(exchange.runId)).map((exchange) => [exchange.runId, exchange.query]));
    const episode = buildEpisode({ sessionId: session.id, cwd, projectRoot: store.projectRoot, runs: loadEpisodeRuns(runIds, prompts) });
    if (!episode) return false;
    store.record(episode);
    return true;
  } catch (error) {
    process.stderr.write(`shiro: could not record this session's episode in ${store.path} (${error instanceof Error ? error.message : String(error)}); the session itself is saved\n`);
    return false;
  }
}
