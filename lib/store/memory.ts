/**
 * Memory notes: durable one-line notes in five scopes, one store implementation over several
 * backings (memory-scopes.ts opens the run, agent and repo stores; this module the project and
 * global ones and the store itself).
 *
 * - project: notes about one codebase, shared by every session in it.
 *   File `memory/<hash16>.json` (paths.projectMemory, keyed by the project root):
 *     {version: 1, project: "<root>", entries: MemoryEntry[]}   entries in the order they were added
 * - global: notes about the user and their machine, shared by every project.
 *   File `memory/global.json` (paths.globalMemory): {version: 1, entries: MemoryEntry[]}
 * - agent: `memory/<hash16>.agent-<name>.json`, {version: 1, project, agent, entries}.
 * - repo: `.shiro/notes.json` in the repository, {version: 1, entries}, mode 0644, no hit counts.
 * - run: no file; the entries live in the process for one run.
 * A bare JSON array of entries (the first format) reads as version 0 and becomes version 1 on the
 * next write.
 *
 * An entry: {id, kind, text, createdAt, hits, lastHitAt?, verifiedAt?, source?}; `source` is its
 * provenance (memory-provenance.ts): {sessionId?, runId?, agent?, commit?, files?: [{path, hash}],
 * untrusted?: string[]}. `hits`/`lastHitAt` count recalls; `verifiedAt` is when it was confirmed.
 *
 * Guarantees, the same for every file-backed scope:
 * - Opening a store, reading it, and a recall or forget that matches nothing touch no file: only a
 *   change that has something to change takes the lock and writes.
 * - Every mutation (remember, the hit counts of recall, forget, verify, compaction) is one locked
 *   read-modify-write through json-file's `updateJsonSync`: concurrent shiro processes on one
 *   store never lose each other's notes, and the file is always a whole document.
 * - A corrupt file is never overwritten: reads treat it as empty and report it once through
 *   `onNotice`; the next mutation moves it aside to `<file>.corrupt-<time>` (reported) first.
 * - Text is whitespace-collapsed, trimmed, redacted (a secret is stored as `<redacted:kind>`, and
 *   `RememberResult.redacted` names the kinds) and cut to 400 characters; exact duplicates are
 *   refused (and the existing note is marked verified now); past `maxEntries` (300) the oldest
 *   entries by `createdAt` are dropped, recalled or not.
 */
import { uuidv7 } from "../platform/ids.ts";
import { paths } from "../platform/paths.ts";
import { redactText } from "../secrets/redact.ts";
import {
  globalFileSchema,
  MEMORY_KINDS,
  projectFileSchema,
  openFileBacking,
  type MemoryBacking,
  type MemoryEntry,
  type MemoryKind,
  type MemorySource,
} from "./memory-file.ts";

export { MEMORY_KINDS, type MemoryBacking, type MemoryEntry, type MemoryKind, type MemorySource } from "./memory-file.ts";

export const MEMORY_TEXT_CAP = 400;
export const MEMORY_ENTRY_CAP = 300;
export const RECALL_LIMIT = 15;
export const PROMPT_NOTE_LIMIT = 20;
/** Model compaction only acts on a store with more entries than this. */
export const COMPACT_AT = 60;

/**
 * Where a note lives: this run only, this agent variant in this project, the project (default),
 * the user's store shared by every project, or the repository's own `.shiro/notes.json`.
 */
export const MEMORY_SCOPES = ["run", "agent", "project", "global", "repo"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** An entry tagged with the store it came from, for answers that mix both. */
export type ScopedMemoryEntry = MemoryEntry & { scope: MemoryScope };

export interface RememberResult {
  status: "stored" | "duplicate";
  /** The new entry, or the one already holding this text. */
  entry: MemoryEntry;
  /** Entries in the store afterwards. */
  count: number;
  /** The kinds of secret the text held, now stored as `<redacted:kind>`; absent when none. */
  redacted?: string[];
}

export type MemoryCompactionPlan = { ready: false; total: number; reason: string } | { ready: true; total: number; unused: MemoryEntry[] };

export interface MemoryStore {
  readonly scope: MemoryScope;
  /** The project the notes are about; absent for the global store. */
  readonly projectRoot?: string;
  /** The agent variant of an agent store. */
  readonly agent?: string;
  /** The file; "" for the run store. */
  readonly path: string;
  /** Throws `memory text is empty` for blank text and a one-line error for an unknown kind. */
  remember(kind: MemoryKind, text: string, source?: MemorySource): RememberResult;
  /** Entries holding every whitespace-separated term (case-insensitive), newest first, at most 15; each one returned gets a hit. */
  recall(query: string): MemoryEntry[];
  /** What `recall` would return, without counting hits and without writing. Throws on a blank query. */
  search(query: string): MemoryEntry[];
  /** Counts one hit on each listed entry still stored (one locked write); returns those, newest first. */
  recordHits(ids: readonly string[]): MemoryEntry[];
  /** Removes every entry whose text contains `text` (case-insensitive); returns how many went, and pushes them onto `removed`. */
  forget(text: string, removed?: MemoryEntry[]): number;
  /** Removes the entries with these ids; returns how many went. */
  remove(ids: readonly string[]): number;
  /** Marks the entry verified now, its provenance's files and commit replaced by `source`'s; undefined when no such id. */
  verify(id: string, source?: MemorySource): MemoryEntry | undefined;
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

/** How memory-scopes.ts describes a store it opens over this module's implementation. */
export interface MemoryStoreLayout {
  scope: MemoryScope;
  path: string;
  backing: MemoryBacking;
  projectRoot?: string;
  agent?: string;
  /** False: recalls are not counted (the repo file stays free of churn). */
  countsHits?: boolean;
}

/** The notes about one project (keyed by its root). Creates no file until the first change. */
export function openMemory(projectRoot: string, options: MemoryStoreOptions = {}): MemoryStore {
  const path = paths.projectMemory(projectRoot);
  const backing = openFileBacking(
    { label: "project memory", path, schema: projectFileSchema, header: { project: projectRoot }, checkedPath: `${path}.checked` },
    options,
  );
  return createMemoryStore({ scope: "project", path, backing, projectRoot }, options);
}

/** The notes about the user, shared by every project (paths.globalMemory). Creates no file until the first change. */
export function openGlobalMemory(options: MemoryStoreOptions = {}): MemoryStore {
  const path = paths.globalMemory();
  const backing = openFileBacking({ label: "global memory", path, schema: globalFileSchema, header: {}, checkedPath: `${path}.checked` }, options);
  return createMemoryStore({ scope: "global", path, backing }, options);
}

export function createMemoryStore(layout: MemoryStoreLayout, options: MemoryStoreOptions): MemoryStore {
  const { scope, path, backing } = layout;
  const maxEntries = options.maxEntries ?? MEMORY_ENTRY_CAP;
  const read = () => backing.read();
  const update = (change: (entries: MemoryEntry[]) => MemoryEntry[] | undefined) => backing.update(change);

  const search = (query: string): MemoryEntry[] => {
    const terms = _queryTerms(query);
    return sortNewestFirst(read().filter((entry) => _matchesAll(entry, terms))).slice(0, RECALL_LIMIT);
  };

  const recordHits = (ids: readonly string[]): MemoryEntry[] => {
    const wanted = new Set(ids);
    let found: MemoryEntry[] = [];
    if (wanted.size === 0) return found;
    if (layout.countsHits === false) return sortNewestFirst(read().filter((entry) => wanted.has(entry.id)));
    update((entries) => {
      if (!entries.some((entry) => wanted.has(entry.id))) return undefined;
      const now = new Date().toISOString();
      const next = entries.map((entry) => (wanted.has(entry.id) ? { ...entry, hits: entry.hits + 1, lastHitAt: now } : entry));
      found = sortNewestFirst(next.filter((entry) => wanted.has(entry.id)));
      return next;
    });
    return found;
  };

  return {
    scope,
    ...(layout.projectRoot === undefined ? {} : { projectRoot: layout.projectRoot }),
    ...(layout.agent === undefined ? {} : { agent: layout.agent }),
    path,

    remember(kind, text, source) {
      const { text: unsecret, kinds } = redactText(text);
      const clean = cleanNoteText(unsecret);
      const redacted = kinds.length > 0 ? { redacted: kinds } : {};
      if (!clean) throw new Error("memory text is empty");
      if (!(MEMORY_KINDS as readonly string[]).includes(kind)) {
        throw new Error(`unknown memory kind "${kind}": use one of ${MEMORY_KINDS.join(", ")}`);
      }
      let result: RememberResult | undefined;
      update((entries) => {
        const existing = entries.find((entry) => entry.text === clean);
        if (existing) {
          // Remembered again: the note is confirmed now, against the files as they are now.
          const confirmed = _verified(existing, source);
          result = { status: "duplicate", entry: confirmed, count: entries.length, ...redacted };
          return entries.map((entry) => (entry.id === existing.id ? confirmed : entry));
        }
        const entry: MemoryEntry = { id: uuidv7(), kind, text: clean, createdAt: new Date().toISOString(), hits: 0, ..._sourceField(source) };
        const next = _dropOldest([...entries, entry], maxEntries);
        result = { status: "stored", entry, count: next.length, ...redacted };
        return next;
      });
      return result!;
    },

    recall: (query) => recordHits(search(query).map((entry) => entry.id)),

    search,

    recordHits,

    forget(text, gone) {
      const needle = cleanNoteText(text).toLowerCase();
      if (!needle) throw new Error("forget needs the text, or part of the text, of the note to remove");
      let removed = 0;
      if (!read().some((entry) => entry.text.toLowerCase().includes(needle))) return removed;
      update((entries) => {
        const next = entries.filter((entry) => !entry.text.toLowerCase().includes(needle));
        removed = entries.length - next.length;
        if (removed > 0) gone?.push(...entries.filter((entry) => entry.text.toLowerCase().includes(needle)));
        return removed > 0 ? next : undefined;
      });
      return removed;
    },

    remove(ids) {
      const wanted = new Set(ids);
      let removed = 0;
      if (!read().some((entry) => wanted.has(entry.id))) return removed;
      update((entries) => {
        const next = entries.filter((entry) => !wanted.has(entry.id));
        removed = entries.length - next.length;
        return removed > 0 ? next : undefined;
      });
      return removed;
    },

    verify(id, source) {
      let found: MemoryEntry | undefined;
      if (!read().some((entry) => entry.id === id)) return found;
      update((entries) => entries.map((entry) => (entry.id === id ? (found = _verified(entry, source)) : entry)));
      return found;
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

export function sortNewestFirst<T extends MemoryEntry>(entries: readonly T[]): T[] {
  // A file keeps its notes oldest first: in order already, a list is copied or reversed without a
  // comparator call per note (a comparator called a few thousand times is compiled by the
  // runtime's optimising tier before the first request, on the core the request needs).
  const order = _ageOrder(entries);
  if (order < 0) {
    // A loop, not reverse(): a first request's notes would be that builtin's first call.
    const reversed: T[] = [];
    for (let at = entries.length - 1; at >= 0; at--) reversed.push(entries[at]!);
    return reversed;
  }
  if (order > 0) return [...entries];
  return [...entries].sort((a, b) => _compareAge(b, a));
}

/** -1 when `entries` are strictly oldest first, 1 when strictly newest first (also for fewer than two), else 0: one loop, no call per entry. */
function _ageOrder(entries: readonly MemoryEntry[]): -1 | 0 | 1 {
  let older = true;
  let newer = true;
  for (let at = 1; at < entries.length && (older || newer); at++) {
    const a = entries[at - 1]!;
    const b = entries[at]!;
    const before = a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);
    const after = a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
    older &&= before;
    newer &&= after;
  }
  return newer ? 1 : older ? -1 : 0;
}

/**
 * `recall` across stores: the 15 newest matches of them all, each tagged with its scope. A hit is
 * counted only on the entries returned, in the store each came from (one locked write per store
 * that has any). Throws on a blank query.
 */
export function recallMemories(stores: readonly MemoryStore[], query: string): ScopedMemoryEntry[] {
  const matches = stores.flatMap((store) => store.search(query).map((entry) => ({ entry, store })));
  const chosen = matches.sort((a, b) => _compareAge(b.entry, a.entry)).slice(0, RECALL_LIMIT);
  const hit = stores.flatMap((store) => {
    const ids = chosen.filter((match) => match.store === store).map((match) => match.entry.id);
    return store.recordHits(ids).map((entry): ScopedMemoryEntry => ({ ...entry, scope: store.scope }));
  });
  return sortNewestFirst(hit);
}

/** Hits descending, then newest first: the order notes reach the prompt in. */
export function rankByUse(entries: readonly MemoryEntry[]): MemoryEntry[] {
  // By hit count, each count's notes newest first (sortNewestFirst): the order one comparator
  // sort gives, with a comparator call only where a count's notes are out of age order.
  const byHits = new Map<number, MemoryEntry[]>();
  for (const entry of entries) {
    const same = byHits.get(entry.hits);
    if (same) same.push(entry);
    else byHits.set(entry.hits, [entry]);
  }
  const ranked: MemoryEntry[] = [];
  for (const hits of [...byHits.keys()].sort((a, b) => b - a)) for (const entry of sortNewestFirst(byHits.get(hits)!)) ranked.push(entry);
  return ranked;
}

function _queryTerms(query: string): string[] {
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) throw new Error("recall needs a query: one or more words the note contains");
  return terms;
}

function _matchesAll(entry: MemoryEntry, terms: readonly string[]): boolean {
  const text = entry.text.toLowerCase();
  return terms.every((term) => text.includes(term));
}

function _compareAge(a: MemoryEntry, b: MemoryEntry): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function _dropOldest(entries: MemoryEntry[], max: number): MemoryEntry[] {
  if (entries.length <= max) return entries;
  const dropped = new Set(
    [...entries]
      .sort(_compareAge)
      .slice(0, entries.length - max)
      .map((entry) => entry.id),
  );
  return entries.filter((entry) => !dropped.has(entry.id));
}

function _sourceField(source: MemorySource | undefined): { source?: MemorySource } {
  if (!source) return {};
  const clean: MemorySource = {};
  for (const key of ["sessionId", "runId", "agent", "commit"] as const) if (source[key]) clean[key] = source[key];
  if (source.files && source.files.length > 0) clean.files = source.files;
  if (source.untrusted && source.untrusted.length > 0) clean.untrusted = source.untrusted;
  return Object.keys(clean).length > 0 ? { source: clean } : {};
}

/** The entry confirmed now: `verifiedAt` set, its files and commit taken from `source` when given. */
function _verified(entry: MemoryEntry, source: MemorySource | undefined): MemoryEntry {
  const kept = { ...entry.source };
  if (source?.files) kept.files = source.files;
  if (source?.commit) kept.commit = source.commit;
  const merged = _sourceField(kept);
  return { ...entry, verifiedAt: new Date().toISOString(), ...merged };
}
