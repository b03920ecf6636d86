/**
 * How notes and episodes read on a terminal: the lines of `shiro memory list`, the detail of
 * `shiro memory show`, and `/memory`'s summary (counts per scope, the budget, what the current
 * prompt carries). Pure text; callers write it.
 *
 * A note's line: `<id>  (<kind>[, <scope>]) <text>  [recalled Nx]`, then, when its files changed
 * since, an indented `(possibly stale: …)` line. Every id is abbreviated by the caller's
 * `abbreviate`, made over every id `shiro memory show` takes (memory-lookup.ts `memoryAbbreviator`).
 * Every line passes terminal-text.ts `showControls`: a note's or an episode's text cannot drive
 * the terminal it is listed on.
 */
import type { Abbreviate } from "../platform/ids.ts";
import type { Episode } from "../store/episodes.ts";
import { describeEpisode } from "../store/memory-recall.ts";
import { staleNote } from "../store/memory-provenance.ts";
import type { ScopedMemoryEntry } from "../store/memory.ts";
import type { MemoryInjection } from "../agent/memory-prompt.ts";
import { showControls } from "./terminal-text.ts";

export function formatNoteLines(entries: readonly ScopedMemoryEntry[], projectRoot: string, abbreviate: Abbreviate): string[] {
  return entries.map((entry) => {
    const stale = staleNote(entry, projectRoot);
    const label =
      entry.scope === "project" ? entry.kind : `${entry.kind}, ${entry.scope === "agent" && entry.source?.agent ? `agent ${entry.source.agent}` : entry.scope}`;
    return showControls(
      `${abbreviate(entry.id)}  (${label}) ${entry.text}${entry.hits > 0 ? `  [recalled ${entry.hits}x]` : ""}${stale ? `\n  ${stale}` : ""}`,
    );
  });
}

export function formatEpisodeLines(episodes: readonly Episode[], abbreviate: Abbreviate): string[] {
  return [...episodes].reverse().map((episode) => {
    const ask = (episode.prompts[0] ?? "").replace(/\s+/g, " ").slice(0, 100);
    const changed =
      episode.filesChanged.length > 0
        ? ` · changed ${episode.filesChanged.slice(0, 3).join(", ")}${episode.filesChanged.length > 3 ? ` +${episode.filesChanged.length - 3}` : ""}`
        : "";
    return showControls(
      `${abbreviate(episode.id)}  episode of session ${abbreviate(episode.sessionId)} ${episode.endedAt.slice(0, 10)}: "${ask}"${changed} · ${episode.outcome.status}`,
    );
  });
}

/** Every field of a note, one per line, the staleness check made now. */
export function formatNoteDetail(entry: ScopedMemoryEntry, projectRoot: string): string {
  const source = entry.source ?? {};
  const lines = [
    `note ${entry.id}`,
    `scope: ${entry.scope}${source.agent && entry.scope === "agent" ? ` (agent ${source.agent})` : ""}`,
    `kind: ${entry.kind}`,
    `text: ${entry.text}`,
    `created: ${entry.createdAt}`,
    `hits: ${entry.hits}${entry.lastHitAt ? ` (last ${entry.lastHitAt})` : ""}`,
    `last verified: ${entry.verifiedAt ?? "never"}`,
  ];
  if (source.sessionId || source.runId) lines.push(`written in: session ${source.sessionId ?? "?"}${source.runId ? `, run ${source.runId}` : ""}`);
  if (source.commit) lines.push(`commit then: ${source.commit}`);
  for (const file of source.files ?? []) lines.push(`file: ${file.path} (${file.hash ?? "missing then"})`);
  if (source.untrusted?.length) lines.push(`untrusted content in its turn: ${source.untrusted.join(", ")}`);
  lines.push(staleNote(entry, projectRoot) ?? (source.files?.length ? "its files are unchanged since" : "it names no file"));
  return showControls(lines.join("\n"));
}

export function formatEpisodeDetail(episode: Episode): string {
  return `episode ${episode.id}\n${describeEpisode(episode, showControls)}`;
}

/** `/memory`: notes per scope, the budget, and what the current prompt carries. */
export function formatMemoryStatus(counts: Readonly<Record<string, number>>, budget: number, injection: MemoryInjection | undefined): string {
  const scopes = ["run", "agent", "project", "repo", "global"].map((scope) => `${scope} ${counts[scope] ?? 0}`).join(", ");
  const lines = [`notes: ${scopes}`, `budget: ${budget} estimated tokens (config memory.budget)`];
  if (!injection) lines.push("injected: nothing yet (the first prompt chooses)");
  else {
    const notes = injection.items.filter((item) => item.kind === "note").length;
    const episodes = injection.items.length - notes;
    lines.push(
      `injected into the current prompt: ${notes} note${notes === 1 ? "" : "s"}, ${episodes} episode${episodes === 1 ? "" : "s"}, ~${injection.tokens} tokens; ${injection.leftOut} left out`,
    );
    for (const item of injection.items) lines.push(`  ${item.kind} ${item.id} (${item.scope}) ~${item.tokens} tokens${item.stale ? ", possibly stale" : ""}`);
  }
  return lines.join("\n");
}
