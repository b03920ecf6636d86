/**
 * Model compaction of a memory store, project or global (`/memory`, `shiro memory compact [--global]`).
 *
 * Contract:
 * - Acts only on a store past COMPACT_AT (60) entries holding at least two never-recalled entries.
 * - Only never-recalled entries are sent and replaced; a recalled entry is kept verbatim.
 * - A reply without one parseable `[kind] text` line leaves the file untouched, byte for byte.
 * - The final write re-reads the store under its lock: notes added or recalled while the model
 *   was answering are kept.
 * - The notes are sent as data between `<notes>` and `</notes>`, each text escaped
 *   (lib/store/memory-escape.ts), so no note can close the block or speak as the prompt; the
 *   reply's notes are unescaped back before they are stored (every later injection escapes again).
 * A failing model call throws; nothing is written then either.
 */
import systemTemplate from "./prompts/memory-compaction.md" with { type: "text" };
import type { CompleteFn } from "../providers/complete.ts";
import { escapeMemoryText, unescapeMemoryText } from "../store/memory-escape.ts";
import { MEMORY_KINDS, type MemoryEntry, type MemoryKind, type MemoryScope, type MemoryStore } from "../store/memory.ts";

export interface CompactMemoryResult {
  changed: boolean;
  /** One line for the user: `memory compacted: 80 entries into 52`, or why nothing changed. */
  message: string;
}

const _SUBJECT: Record<MemoryScope, string> = {
  project: "about one codebase",
  global: "about its user and the user's machine, true in every project",
  run: "about one run of work",
  agent: "about one codebase, for one kind of agent working in it",
  repo: "about one codebase, shared with its whole team through git",
};

const _system = (scope: MemoryScope) => systemTemplate.trimEnd().replace("{subject}", _SUBJECT[scope]).replace("{kinds}", MEMORY_KINDS.join(", "));

export async function compactMemory(store: MemoryStore, complete: CompleteFn, signal?: AbortSignal): Promise<CompactMemoryResult> {
  const plan = store.compactPlan();
  if (!plan.ready) return { changed: false, message: `memory left as is: ${plan.total} entries, ${plan.reason}` };
  const prompt = [`Notes to merge (${plan.unused.length}):`, "<notes>", ...plan.unused.map(_formatNote), "</notes>"].join("\n");
  const reply = await complete(_system(store.scope), prompt, signal);
  const notes = parseMergedNotes(reply);
  if (notes.length === 0) return { changed: false, message: "memory left as is: the model's reply did not parse" };
  const { before, after } = store.applyCompaction(plan.unused, notes);
  return { changed: true, message: `memory compacted: ${before} entries into ${after}` };
}

/** The `[kind] text` lines of a reply, their text unescaped; list bullets and numbering before the bracket are tolerated. */
export function parseMergedNotes(reply: string): { kind: MemoryKind; text: string }[] {
  const notes: { kind: MemoryKind; text: string }[] = [];
  for (const line of reply.split("\n")) {
    const match = /^\s*(?:[-*•]\s*|\d+[.)]\s*)?\[([a-z]+)\]\s*(\S.*)$/i.exec(line);
    if (!match) continue;
    const kind = match[1]!.toLowerCase();
    if (!(MEMORY_KINDS as readonly string[]).includes(kind)) continue;
    notes.push({ kind: kind as MemoryKind, text: unescapeMemoryText(match[2]!.trim()) });
  }
  return notes;
}

function _formatNote(entry: MemoryEntry): string {
  return `[${entry.kind}] ${escapeMemoryText(entry.text)}`;
}
