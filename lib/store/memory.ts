/**
 * Project memory: durable one-line notes about one project, shared by every session in it.
 *
 * File `memory/<hash16>.json` (paths.projectMemory, keyed by the project root):
 *   {version: 1, project: "<root>", entries: MemoryEntry[]}   entries in the order they were added
 * A bare JSON array of entries (the first format) reads as version 0 and becomes version 1 on the
 * next write.
 *
 * Guarantees:
 * - Every mutation (remember, the hit counts of recall, forget, compaction) is one locked
 *   read-modify-write through json-file's `updateJsonSync`: concurrent shiro processes on one
 *   project never lose each other's notes, and the file is always a whole document.
 * - A corrupt file is never overwritten: reads treat it as empty and report it once through
 *   `onNotice`; the next mutation moves it aside to `<file>.corrupt-<time>` (reported) first.
 * - Text is whitespace-collapsed, trimmed and cut to 400 characters; exact duplicates are refused;
 *   past `maxEntries` (300) the oldest entries by `createdAt` are dropped, recalled or not.
 */
import * as v from "valibot";
import { uuidv7 } from "../ids.ts";
import { paths } from "../paths.ts";
import { readJson, updateJsonSync } from "./json-file.ts";

export const MEMORY_KINDS = ["fact", "decision", "gotcha", "command"] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];

export const MEMORY_TEXT_CAP = 400;
export const MEMORY_ENTRY_CAP = 300;
export const RECALL_LIMIT = 15;
export const PROMPT_NOTE_LIMIT = 20;
/** Model compaction only acts on a store with more entries than this. */
export const COMPACT_AT = 60;

const MemoryEntrySchema = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  kind: v.picklist(MEMORY_KINDS),
  text: v.pipe(v.string(), v.minLength(1)),
  createdAt: v.string(),
  hits: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  lastHitAt: v.optional(v.string()),
  source: v.optional(v.object({ sessionId: v.optional(v.string()), runId: v.optional(v.string()) })),
});

export type MemoryEntry = v.InferOutput<typeof MemoryEntrySchema>;
export type MemorySource = NonNullable<MemoryEntry["source"]>;

const MemoryFileSchema = v.union([
  v.object({ version: v.literal(1), project: v.string(), entries: v.array(MemoryEntrySchema) }),
  // Version 0, a bare array: it has no `version` field to migrate by, so the schema upgrades it.
  v.pipe(v.array(MemoryEntrySchema), v.transform((entries) => ({ version: 1 as const, project: "", entries }))),
]);

export interface RememberResult {
  status: "stored" | "duplicate";
  /** The new entry, or the one already holding this text. */
  entry: MemoryEntry;
  /** Entries in the store afterwards. */
  count: number;
}

export type MemoryCompactionPlan =
  | { ready: false; total: number; reason: string }
  | { ready: true; total: number; unused: MemoryEntry[] };

export interface MemoryStore {
  readonly projectRoot: string;
  readonly path: string;
  /** Throws `memory text is empty` for blank text and a one-line error for an unknown kind. */
  remember(kind: MemoryKind, text: string, source?: MemorySource): RememberResult;
  /** Entries holding every whitespace-separated term (case-insensitive), newest first, at most 15; each one returned gets a hit. */
  recall(query: string): MemoryEntry[];
  /** Removes every entry whose text contains `text` (case-insensitive); returns how many went. */
  forget(text: string): number;
  /** All entries, newest first. */
  list(): MemoryEntry[];
  /** The `n` most used entries: hits descending, then newest first. */
  top(n?: number): MemoryEntry[];
  /** Whether model compaction would act now, and on which never-recalled entries. */
  compactPlan(): MemoryCompactionPlan;
  /**
   * Replaces the `sent` entries that are still unrecalled with `merged` notes, under the lock:
   * entries added or recalled meanwhile are kept. Returns the entry counts before and after.
   */
  applyCompaction(sent: readonly MemoryEntry[], merged: readonly { kind: MemoryKind; text: string }[]): { before: number; after: number };
}

export interface MemoryStoreOptions {
  /** Store cap (default 300). */
  maxEntries?: number;
  /** Hears one line about a corrupt file: ignored on read, or moved aside on write. */
  onNotice?: (text: string) => void;
}

export function openMemory(projectRoot: string, options: MemoryStoreOptions = {}): MemoryStore {
  const path = paths.projectMemory(projectRoot);
  const maxEntries = options.maxEntries ?? MEMORY_ENTRY_CAP;
  let reportedCorrupt = false;

  const read = (): MemoryEntry[] => {
    const result = readJson(path, { schema: MemoryFileSchema, version: 1 });
    if (result.status === "ok") return result.value.entries;
    if (result.status === "corrupt" && !reportedCorrupt) {
      reportedCorrupt = true;
      options.onNotice?.(`project memory ${path} is unreadable (${result.reason}); its notes are ignored, and the next new note moves it aside`);
    }
    return [];
  };

  /** `change` returns the next entry list, or undefined to leave the file untouched. */
  const update = (change: (entries: MemoryEntry[]) => MemoryEntry[] | undefined): void => {
    updateJsonSync(path, {
      schema: MemoryFileSchema, version: 1,
      onCorrupt: (reason, backup) => options.onNotice?.(`project memory ${path} was unreadable (${reason}); moved it to ${backup} and started a new one`),
    }, (current) => {
      const next = change(current?.entries ?? []);
      return next && { version: 1 as const, project: projectRoot, entries: next };
    });
  };

  return {
    projectRoot,
    path,

    remember(kind, text, source) {
      const clean = cleanNoteText(text);
      if (!clean) throw new Error("memory text is empty");
      if (!(MEMORY_KINDS as readonly string[]).includes(kind)) {
        throw new Error(`unknown memory kind "${kind}": use one of ${MEMORY_KINDS.join(", ")}`);
      }
      let result: RememberResult | undefined;
      update((entries) => {
        const existing = entries.find((entry) => entry.text === clean);
        if (existing) {
          result = { status: "duplicate", entry: existing, count: entries.length };
          return undefined;
        }
        const entry: MemoryEntry = { id: uuidv7(), kind, text: clean, createdAt: new Date().toISOString(), hits: 0, ..._sourceField(source) };
        const next = _dropOldest([...entries, entry], maxEntries);
        result = { status: "stored", entry, count: next.length };
        return next;
      });
      return result!;
    },

    recall(query) {
      const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
      if (terms.length === 0) throw new Error("recall needs a query: one or more words the note contains");
      let found: MemoryEntry[] = [];
      update((entries) => {
        const matches = sortNewestFirst(entries.filter((entry) => {
          const text = entry.text.toLowerCase();
          return terms.every((term) => text.includes(term));
        })).slice(0, RECALL_LIMIT);
        if (matches.length === 0) return undefined;
        const ids = new Set(matches.map((entry) => entry.id));
        const now = new Date().toISOString();
        const next = entries.map((entry) => (ids.has(entry.id) ? { ...entry, hits: entry.hits + 1, lastHitAt: now } : entry));
        found = sortNewestFirst(next.filter((entry) => ids.has(entry.id)));
        return next;
      });
      return found;
    },

    forget(text) {
      const needle = cleanNoteText(text).toLowerCase();
      if (!needle) throw new Error("forget needs the text, or part of the text, of the note to remove");
      let removed = 0;
      update((entries) => {
        const next = entries.filter((entry) => !entry.text.toLowerCase().includes(needle));
        removed = entries.length - next.length;
        return removed > 0 ? next : undefined;
      });
      return removed;
    },

    list: () => sortNewestFirst(read()),

    top: (n = PROMPT_NOTE_LIMIT) => rankByUse(read()).slice(0, n),

    compactPlan() {
      const entries = read();
      if (entries.length <= COMPACT_AT) return { ready: false, total: entries.length, reason: `compaction starts past ${COMPACT_AT}` };
      const unused = entries.filter((entry) => entry.hits === 0);
      if (unused.length < 2) return { ready: false, total: entries.length, reason: "too few unused ones to merge" };
      return { ready: true, total: entries.length, unused };
    },

    applyCompaction(sent, merged) {
      let counts = { before: 0, after: 0 };
      update((entries) => {
        const replaced = new Set(sent.map((entry) => entry.id));
        const kept = entries.filter((entry) => !(replaced.has(entry.id) && entry.hits === 0));
        const seen = new Set(kept.map((entry) => entry.text));
        const now = new Date().toISOString();
        const added: MemoryEntry[] = [];
        for (const note of merged) {
          const text = cleanNoteText(note.text);
          if (!text || seen.has(text)) continue;
          seen.add(text);
          added.push({ id: uuidv7(), kind: note.kind, text, createdAt: now, hits: 0 });
        }
        const next = _dropOldest([...kept, ...added], maxEntries);
        counts = { before: entries.length, after: next.length };
        return next;
      });
      return counts;
    },
  };
}

/** Collapses whitespace (a note is one line), trims, and cuts to 400 characters. */
export function cleanNoteText(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, MEMORY_TEXT_CAP).trimEnd();
}

export function sortNewestFirst(entries: readonly MemoryEntry[]): MemoryEntry[] {
  return [...entries].sort((a, b) => _compareAge(b, a));
}

/** Hits descending, then newest first: the order notes reach the prompt in. */
export function rankByUse(entries: readonly MemoryEntry[]): MemoryEntry[] {
  return [...entries].sort((a, b) => b.hits - a.hits || _compareAge(b, a));
}

/**
 * The notes block of the system prompt: a header, then `- (<kind>) <text>` for the 20 most used
 * notes. "" when there are none, so the prompt carries no empty header.
 */
export function renderMemoryForPrompt(entries: readonly MemoryEntry[]): string {
  if (entries.length === 0) return "";
  const lines = rankByUse(entries).slice(0, PROMPT_NOTE_LIMIT).map((entry) => `- (${entry.kind}) ${entry.text}`);
  return [
    "Notes you kept about this project in earlier sessions. Rely on them, but where one disagrees with the code",
    "as you see it now, the code wins: check before acting on it, and correct the note with forget and remember:",
    ...lines,
  ].join("\n");
}

function _compareAge(a: MemoryEntry, b: MemoryEntry): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function _dropOldest(entries: MemoryEntry[], max: number): MemoryEntry[] {
  if (entries.length <= max) return entries;
  const dropped = new Set([...entries].sort(_compareAge).slice(0, entries.length - max).map((entry) => entry.id));
  return entries.filter((entry) => !dropped.has(entry.id));
}

function _sourceField(source: MemorySource | undefined): { source?: MemorySource } {
  if (!source) return {};
  const clean: MemorySource = {};
  if (source.sessionId) clean.sessionId = source.sessionId;
  if (source.runId) clean.runId = source.runId;
  return Object.keys(clean).length > 0 ? { source: clean } : {};
}
