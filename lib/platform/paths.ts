/**
 * The one module that knows where state lives on disk.
 *
 * Layout, under `$SHIRO_HOME/.shiro-neko/` (or `~/.shiro-neko/`):
 *   config.json                     user configuration
 *   memory/<hash16>.json            project notes (hash16 = first 16 hex of SHA-256 of the project root)
 *   memory/global.json              notes shared by every project
 *   memory/<notes file>.checked     the record vouching for a notes file this build checked (lib/store/memory-file.ts)
 *   memory/<hash16>.episodes.jsonl  episodes of past work in a project, and their monthly digests (an append-only log)
 *   memory/<hash16>.index/          the recall index over a project's notes, the global notes and its episodes
 *                                     (manifest.json and segment files, lib/search/index-folder.ts)
 *   memory/<hash16>.vectors.json    embedding vectors of that index's documents (only with memory.embeddings)
 *   search/transcripts.index/       the search index over every session's messages and every run's events
 *                                     (the same layout)
 *   sessions/<uuidv7>.json          saved sessions
 *   sessions/<uuidv7>.lease         the live process holding a session ({pid, since})
 *   history/<hash16>.json           prompt history per directory
 *   runs/<runId>.json               run snapshots
 *   events/<runId>.jsonl            run event logs, one event per line
 *   approvals.json                  approval requests and decisions
 *   requests/<runId>.cancel         cross-process cancel requests
 *   checkpoints/<hash16>/           a workspace's checkpoints (0700; hash16 of the workspace root):
 *     checkpoints.json                the records, oldest first
 *     git/, index                     the shadow git repository and its index (docs/checkpoints.md)
 *   registry/{skills,plugins}/      installed registry entries
 *   skills/                         user skills
 *   learned.json                    facts earlier runs learned (sandbox probe, provider windows): lib/store/learned.ts
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "./sha256.ts";
import { homeDirectory } from "./runtime.ts";

export const STATE_DIR_NAME = ".shiro-neko";

/** The state folder. SHIRO_HOME replaces the home directory, it does not name the folder itself. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.SHIRO_HOME && env.SHIRO_HOME.length > 0 ? env.SHIRO_HOME : homeDirectory();
  return join(home, STATE_DIR_NAME);
}

/** Creates the state folder (mode 0700) and any sub-folder asked for; returns the full path. */
export function ensureStateDir(...sub: string[]): string {
  const dir = join(stateDir(), ...sub);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

const _hash16 = new Map<string, string>();

/** First 16 hex digits of the SHA-256 of a path: the key of per-project and per-directory files. */
export function pathHash16(path: string): string {
  let hash = _hash16.get(path);
  if (hash === undefined) _hash16.set(path, (hash = sha256Hex(path).slice(0, 16)));
  return hash;
}

export const paths = {
  config: () => join(stateDir(), "config.json"),
  memoryDir: () => join(stateDir(), "memory"),
  projectMemory: (projectRoot: string) => join(stateDir(), "memory", `${pathHash16(projectRoot)}.json`),
  globalMemory: () => join(stateDir(), "memory", "global.json"),
  projectEpisodes: (projectRoot: string) => join(stateDir(), "memory", `${pathHash16(projectRoot)}.episodes.jsonl`),
  /** The single JSON document episodes were kept in before the log: read until the first new episode moves it into the log. */
  legacyProjectEpisodes: (projectRoot: string) => join(stateDir(), "memory", `${pathHash16(projectRoot)}.episodes.json`),
  memoryIndex: (projectRoot: string) => join(stateDir(), "memory", `${pathHash16(projectRoot)}.index`),
  /** The single-file form recall indexes had before index folders: removed when its folder is built. */
  legacyMemoryIndex: (projectRoot: string) => join(stateDir(), "memory", `${pathHash16(projectRoot)}.index.json`),
  memoryVectors: (projectRoot: string) => join(stateDir(), "memory", `${pathHash16(projectRoot)}.vectors.json`),
  searchDir: () => join(stateDir(), "search"),
  transcriptIndex: () => join(stateDir(), "search", "transcripts.index"),
  legacyTranscriptIndex: () => join(stateDir(), "search", "transcripts.index.json"),
  /** Whether the sessions and events folders were past a size when last listed (the census in lib/find/transcript-index.ts). */
  historyCensus: () => join(stateDir(), "search", "history-census.txt"),
  sessionsDir: () => join(stateDir(), "sessions"),
  session: (id: string) => join(stateDir(), "sessions", `${id}.json`),
  sessionLease: (id: string) => join(stateDir(), "sessions", `${id}.lease`),
  historyDir: () => join(stateDir(), "history"),
  history: (dir: string) => join(stateDir(), "history", `${pathHash16(dir)}.json`),
  runsDir: () => join(stateDir(), "runs"),
  run: (runId: string) => join(stateDir(), "runs", `${runId}.json`),
  eventsDir: () => join(stateDir(), "events"),
  events: (runId: string) => join(stateDir(), "events", `${runId}.jsonl`),
  approvals: () => join(stateDir(), "approvals.json"),
  requestsDir: () => join(stateDir(), "requests"),
  cancelRequest: (runId: string) => join(stateDir(), "requests", `${runId}.cancel`),
  checkpointsDir: (root: string) => join(stateDir(), "checkpoints", pathHash16(root)),
  registryDir: () => join(stateDir(), "registry"),
  userSkillsDir: () => join(stateDir(), "skills"),
  learned: () => join(stateDir(), "learned.json"),
  /** The seccomp program bwrap loads for every sandboxed command (lib/sandbox/seccomp.ts). */
  seccompFilter: (arch: string) => join(stateDir(), "sandbox", `seccomp-${arch}.bpf`),
  /** The register of recent session and run ids (lib/store/short-ids.ts) and its previous generation. */
  recentIds: () => join(stateDir(), "recent-ids.txt"),
  recentIdsOld: () => join(stateDir(), "recent-ids.old.txt"),
};
