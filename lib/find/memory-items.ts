/**
 * What `shiro memory show <id>` resolves against, and what makes a memory id short: the project's
 * notes, the global notes and the project's episodes, by id. A printed memory id is the shortest
 * prefix (8 characters at least) unique among all of them, so `memory show` always takes it.
 */
import { UserError } from "../platform/errors.ts";
import { shortestUniquePrefix } from "../platform/ids.ts";
import type { Episode, EpisodeStore } from "../store/episodes.ts";
import { openEpisodes } from "../store/episodes.ts";
import { openGlobalMemory, openMemory, type MemoryStore, type ScopedMemoryEntry } from "../store/memory.ts";

export type MemoryItem = { kind: "note"; id: string; note: ScopedMemoryEntry } | { kind: "episode"; id: string; episode: Episode };

export interface MemoryItems {
  project: MemoryStore;
  global: MemoryStore;
  episodes: EpisodeStore;
  items: MemoryItem[];
  /** The shortest prefix of `id` no other item shares (8 characters at least). */
  shortId(id: string): string;
  /** The item a full id or unique prefix names; UserError otherwise. */
  find(idOrPrefix: string): MemoryItem;
}

/** What `shiro memory show` prints: labelled rows, the text or the episode's parts last. */
export function formatMemoryItem(item: MemoryItem, shortSession: (id: string) => string): string {
  if (item.kind === "note") {
    const note = item.note;
    const rows: [string, string][] = [
      ["note", note.id],
      ["kind", `${note.kind} (${note.scope})`],
      ["created", note.createdAt],
      ["recalled", note.hits > 0 ? `${note.hits} time${note.hits === 1 ? "" : "s"}${note.lastHitAt ? `, last ${note.lastHitAt}` : ""}` : "never"],
    ];
    if (note.source?.sessionId) rows.push(["session", shortSession(note.source.sessionId)]);
    rows.push(["text", note.text]);
    return rows.map(([key, value]) => `${key.padEnd(9)}${value}`).join("\n");
  }
  const episode = item.episode;
  const rows: [string, string][] = [
    ["episode", episode.id],
    ["session", shortSession(episode.sessionId)],
    ["started", episode.startedAt],
    ["ended", episode.endedAt],
    ["outcome", `${episode.outcome.status}, ${episode.outcome.steps} steps in ${episode.outcome.runs} run${episode.outcome.runs === 1 ? "" : "s"}`],
  ];
  for (const prompt of episode.prompts) rows.push(["asked", prompt]);
  if (episode.filesRead.length > 0) rows.push(["read", episode.filesRead.join(", ")]);
  if (episode.filesChanged.length > 0) rows.push(["changed", episode.filesChanged.join(", ")]);
  for (const run of episode.commands) rows.push(["ran", `${run.command} (${run.exit === null ? "no exit code" : `exit ${run.exit}`})`]);
  if (episode.answer) rows.push(["answer", episode.answer]);
  if (episode.summary) rows.push(["summary", episode.summary]);
  return rows.map(([key, value]) => `${key.padEnd(9)}${value}`).join("\n");
}

export function listMemoryItems(projectRoot: string, onNotice?: (text: string) => void): MemoryItems {
  const project = openMemory(projectRoot, { onNotice });
  const global = openGlobalMemory({ onNotice });
  const episodes = openEpisodes(projectRoot, { onNotice });
  const items: MemoryItem[] = [
    ...[project, global].flatMap((store) => store.list().map((entry): MemoryItem => ({ kind: "note", id: entry.id, note: { ...entry, scope: store.scope } }))),
    ...episodes.read().episodes.map((episode): MemoryItem => ({ kind: "episode", id: episode.id, episode })),
  ];
  const ids = items.map((item) => item.id);
  return {
    project,
    global,
    episodes,
    items,
    shortId: (id) => shortestUniquePrefix(id, ids),
    find(idOrPrefix) {
      const wanted = idOrPrefix.trim().toLowerCase();
      const exact = items.find((item) => item.id.toLowerCase() === wanted);
      if (exact) return exact;
      const matches = wanted ? items.filter((item) => item.id.toLowerCase().startsWith(wanted)) : [];
      if (matches.length === 0)
        throw new UserError(
          `no note or episode matching "${idOrPrefix}" in this project or the global notes; shiro search --memory <words> lists them with their ids`,
        );
      if (matches.length > 1) throw new UserError(`"${idOrPrefix}" matches ${matches.length} notes or episodes; give more characters`);
      return matches[0]!;
    },
  };
}
