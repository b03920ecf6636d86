/**
 * The memory file format and its backing: the entry schema every scope shares, the file schemas
 * (project: {version: 1, project, entries}; global and repo: {version: 1, entries}; agent:
 * {version: 1, project, agent, entries}; a bare array is version 0) and the file backing —
 * reads that ignore (and report once) a corrupt file, updates that are locked read-modify-writes
 * through json-file. memory.ts builds the store over it; its header documents the guarantees.
 * A read checks a file in the shape this version writes by hand (quick-check.ts), with the schema's
 * result, and leaves every other file (and every reason a file is corrupt) to the schema.
 * Within one process, a file whose stamp (file-stamp.ts: inode, size, modification time) is the
 * one it had when its entries were last read here is not read again: its entries are those (a
 * new array each time; a write through a backing forgets them). A missing or unreadable file,
 * or one the schema rejected, is read every time.
 *
 * Across processes, a file the hand check passed is vouched for by a record beside it
 * (`<file>.checked`, for a layout that names one: the stores in the state folder, not the
 * repository's notes). Text, replaced whole (atomic rename, not fsynced):
 *
 *   shiro notes checked 1
 *   <the build that checked it: version, commit, build date>
 *   <the file's stamp it checked: inode:size:mtimeMs>
 *
 * It is written when this build's hand check passed the file and the entries as parsed are the
 * check's output exactly (the same JSON text: no key dropped, added or moved), with the file's
 * stamp unchanged from before the read to after it. It is used only while its build is the one
 * running and its stamp is the file's stamp now (taken before the read), and it ends with a line
 * break: the file is then parsed and its entries taken as they are, with neither the schemas nor
 * the hand check run. Any other record (another header, build or stamp, a cut one, none) is out
 * of date, never an error: the file is checked. A source run (no build stamped in) neither reads
 * nor writes one. Derived data: deleting it costs one check.
 */
import { readFileSync } from "node:fs";
import * as v from "valibot";
import { BUILD, VERSION } from "../platform/version.ts";
import { fileStampIfThere } from "../state-file/file-stamp.ts";
import { readJson, updateJsonSync, writeTextAtomic } from "../state-file/json-file.ts";
import { isRecord, isStringArray, sameFields } from "./quick-check.ts";

export const MEMORY_KINDS = ["fact", "decision", "gotcha", "command"] as const;
export type MemoryKind = (typeof MEMORY_KINDS)[number];
const _memoryEntrySchema = () =>
  v.object({
    id: v.pipe(v.string(), v.minLength(1)),
    kind: v.picklist(MEMORY_KINDS),
    text: v.pipe(v.string(), v.minLength(1)),
    createdAt: v.string(),
    hits: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
    lastHitAt: v.optional(v.string()),
    verifiedAt: v.optional(v.string()),
    source: v.optional(
      v.object({
        sessionId: v.optional(v.string()),
        runId: v.optional(v.string()),
        agent: v.optional(v.string()),
        commit: v.optional(v.string()),
        /** Files the note names or the turn had read, each with a content hash (null: missing then). */
        files: v.optional(v.array(v.object({ path: v.string(), hash: v.nullable(v.string()) }))),
        /** Untrusted content in the context when it was written: `bash`, `web_fetch`, `read_file README.md`, `mcp__srv__tool`… */
        untrusted: v.optional(v.array(v.string())),
      }),
    ),
  });
let _entry: ReturnType<typeof _memoryEntrySchema> | undefined;
/** The entry schema every scope shares, built at first use (a missing file builds none). */
export const memoryEntrySchema = (): ReturnType<typeof _memoryEntrySchema> => (_entry ??= _memoryEntrySchema());

export type MemoryEntry = v.InferOutput<ReturnType<typeof _memoryEntrySchema>>;
export type MemorySource = NonNullable<MemoryEntry["source"]>;
export interface MemoryFile {
  version: 1;
  entries: MemoryEntry[];
}

/** Where a store's entries are kept: a file (locked read-modify-write) or the process's memory. */
export interface MemoryBacking {
  read(): MemoryEntry[];
  /** `change` returns the next entry list, or undefined to leave the entries untouched. */
  update(change: (entries: MemoryEntry[]) => MemoryEntry[] | undefined): void;
}

// Version 0, a bare array, has no `version` field to migrate by, so the schemas upgrade it.
const _projectFileSchema = () =>
  v.union([
    v.object({ version: v.literal(1), project: v.string(), entries: v.array(memoryEntrySchema()) }),
    v.pipe(
      v.array(memoryEntrySchema()),
      v.transform((entries) => ({ version: 1 as const, project: "", entries })),
    ),
  ]);
const _globalFileSchema = () =>
  v.union([
    v.object({ version: v.literal(1), entries: v.array(memoryEntrySchema()) }),
    v.pipe(
      v.array(memoryEntrySchema()),
      v.transform((entries) => ({ version: 1 as const, entries })),
    ),
  ]);
let _project: ReturnType<typeof _projectFileSchema> | undefined;
let _global: ReturnType<typeof _globalFileSchema> | undefined;
/** The file schemas, built at first use. */
export const projectFileSchema = (): ReturnType<typeof _projectFileSchema> => (_project ??= _projectFileSchema());
export const globalFileSchema = (): ReturnType<typeof _globalFileSchema> => (_global ??= _globalFileSchema());

export interface FileBackingLayout {
  /** `project memory`, `repo notes`: how notices name the file. */
  label: string;
  path: string;
  /** The file's schema (projectFileSchema, globalFileSchema): called only once the file is read or written. */
  schema: () => v.GenericSchema<unknown, MemoryFile>;
  /** Fields written before `entries` on every write (the project root for a project store). */
  header: Record<string, string>;
  /** File mode on create (default 0600). */
  mode?: number;
  /** Runs before every write (the repo store's jail check); throws to refuse it. */
  beforeWrite?: () => void;
  /** Runs after every write (the repo store's trust follows shiro's own writes). */
  afterWrite?: () => void;
  /** Where the record vouching for the file's check is kept (see the module contract); none: the file is checked at every first read in a process. */
  checkedPath?: string;
  /** The build a record must name (default: this binary's, `checkedBuild()`; undefined: no record is read or written). */
  build?: string;
}

/** Header-less `{version: 1, entries}` (the global and repo files), also read from a bare array. */

// The entries last read from each file here, with the file's stamp taken before the read (a write after the stamp moves it: read again).
const _read = new Map<string, { stamp: string; schema: FileBackingLayout["schema"]; entries: readonly MemoryEntry[] }>();

/** A file backing: reads ignore (and report once) a corrupt file; updates are locked read-modify-writes. */
export function openFileBacking(layout: FileBackingLayout, options: { onNotice?: (text: string) => void }): MemoryBacking {
  const { label, path, schema, header } = layout;
  let reportedCorrupt = false;
  const keep = (stamp: string | undefined, entries: MemoryEntry[]): MemoryEntry[] => {
    if (stamp) _read.set(path, { stamp, schema, entries: entries.slice() });
    return entries;
  };
  return {
    read() {
      const there = fileStampIfThere(path);
      // No file: no notes (the first note makes it), and nothing to open to learn that.
      if (there === false) {
        _read.delete(path);
        return [];
      }
      const stamp = there;
      const last = _read.get(path);
      if (stamp && last?.stamp === stamp && last.schema === schema) return last.entries.slice();
      _read.delete(path);
      const record = stamp ? _checkRecord(layout, stamp) : undefined;
      const vouched = record && _vouched(path, record);
      if (vouched) return keep(stamp, vouched);
      // The record is written only for the file as it was stamped before the read.
      const quick = _quickRead(path, schema, record && (() => void (fileStampIfThere(path) === stamp && _vouch(record))));
      if (quick) return keep(stamp, quick);
      const result = readJson(path, { schema: schema(), version: 1 });
      if (result.status === "ok") return keep(stamp, result.value.entries);
      if (result.status === "corrupt" && !reportedCorrupt) {
        reportedCorrupt = true;
        options.onNotice?.(`${label} ${path} is unreadable (${result.reason}); its notes are ignored, and the next new note moves it aside`);
      }
      return [];
    },
    update(change) {
      layout.beforeWrite?.();
      _read.delete(path);
      updateJsonSync(
        path,
        {
          schema: schema(),
          version: 1,
          ...(layout.mode ? { mode: layout.mode } : {}),
          onCorrupt: (reason, backup) => options.onNotice?.(`${label} ${path} was unreadable (${reason}); moved it to ${backup} and started a new one`),
        },
        (current) => {
          const next = change(current?.entries ?? []);
          return next && { version: 1 as const, ...header, entries: next };
        },
      );
      layout.afterWrite?.();
    },
  };
}

const _ENTRY_KEYS = ["id", "kind", "text", "createdAt", "hits", "lastHitAt", "verifiedAt", "source"];
const _SOURCE_KEYS = ["sessionId", "runId", "agent", "commit", "files", "untrusted"];
// The hand check below knows these fields and kinds; a schema with others is checked by the schema alone.
let _quick: boolean | undefined;
const _quickHolds = (): boolean =>
  sameFields(memoryEntrySchema(), _ENTRY_KEYS) &&
  sameFields(memoryEntrySchema().entries.source.wrapped, _SOURCE_KEYS) &&
  MEMORY_KINDS.join() === "fact,decision,gotcha,command";

/**
 * A memory file's entries checked by hand, when the file is `{version: 1, …, entries}` with every
 * entry in the shape this version writes: the same output as the schema (unknown keys dropped,
 * `hits` 0 when absent, keys in the schema's order), without running it over every entry (a few
 * hundred notes through valibot cost a cold first request several milliseconds). `[]` for a
 * missing file; undefined for anything else, and then the schema decides and says why.
 *
 * One loop and no function call per entry: a function called for each of a few hundred notes is
 * compiled by the runtime's optimising tier on a worker thread before the first request, which
 * takes the other core from it (an entry's `source` is checked by a call: most notes have none
 * with files or untrusted reads).
 */
function _quickRead(path: string, schema: () => v.GenericSchema<unknown, MemoryFile>, vouch?: () => void): MemoryEntry[] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? [] : undefined;
  }
  if (!(_quick ??= _quickHolds())) return undefined;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const file = raw as Record<string, unknown>;
  if (file.version !== 1 || !Array.isArray(file.entries) || !v.safeParse(schema(), { ...file, entries: [] }).success) return undefined;
  const items = file.entries as unknown[];
  const entries: MemoryEntry[] = [];
  for (let at = 0; at < items.length; at++) {
    const item = items[at] as Record<string, unknown> | null;
    if (item === null || typeof item !== "object" || Array.isArray(item)) return undefined;
    const { id, kind, text, createdAt, hits, lastHitAt, verifiedAt, source } = item;
    if (typeof id !== "string" || id.length === 0 || typeof text !== "string" || text.length === 0 || typeof createdAt !== "string") return undefined;
    if (kind !== "fact" && kind !== "decision" && kind !== "gotcha" && kind !== "command") return undefined;
    if (hits !== undefined && !(typeof hits === "number" && Number.isInteger(hits) && hits >= 0)) return undefined;
    if ((lastHitAt !== undefined && typeof lastHitAt !== "string") || (verifiedAt !== undefined && typeof verifiedAt !== "string")) return undefined;
    const entry: MemoryEntry = { id, kind, text, createdAt, hits: (hits as number | undefined) ?? 0 };
    if ("lastHitAt" in item) entry.lastHitAt = lastHitAt as string;
    if ("verifiedAt" in item) entry.verifiedAt = verifiedAt as string;
    if ("source" in item) {
      const checked = _quickSource(source);
      if (!checked) return undefined;
      entry.source = checked;
    }
    entries.push(entry);
  }
  if (vouch && JSON.stringify(entries) === JSON.stringify(items)) vouch();
  return entries;
}

const _CHECKED_HEADER = "shiro notes checked 1";

/** The build a check record names: this binary's version, commit and build date; undefined in a source run. */
export function checkedBuild(): string | undefined {
  return BUILD ? `${VERSION} ${BUILD.commit} ${BUILD.date}` : undefined;
}

/** Where a check record of the file at `stamp` is kept and what it says; undefined without a record path or a build. */
function _checkRecord(layout: FileBackingLayout, stamp: string): { path: string; text: string } | undefined {
  const build = "build" in layout ? layout.build : checkedBuild();
  return layout.checkedPath && build ? { path: layout.checkedPath, text: `${_CHECKED_HEADER}\n${build}\n${stamp}\n` } : undefined;
}

/** The entries of the file at `path` as parsed, when its check record says `record.text`; else undefined. */
function _vouched(path: string, record: { path: string; text: string }): MemoryEntry[] | undefined {
  try {
    if (readFileSync(record.path, "utf8") !== record.text) return undefined;
    const entries = (JSON.parse(readFileSync(path, "utf8")) as { entries?: unknown }).entries;
    return Array.isArray(entries) ? (entries as MemoryEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the record; best effort: one that cannot be written means the file is checked again next time. */
function _vouch(record: { path: string; text: string }): void {
  try {
    writeTextAtomic(record.path, record.text, { verbatim: true, durable: false });
  } catch {
    // an unwritable state folder: the next read checks the file again
  }
}

function _quickSource(source: unknown): MemorySource | undefined {
  if (!isRecord(source)) return undefined;
  const out: MemorySource = {};
  for (const key of ["sessionId", "runId", "agent", "commit"] as const) {
    if (!(key in source)) continue;
    const value = source[key];
    if (typeof value !== "string") return undefined;
    out[key] = value;
  }
  if ("files" in source) {
    if (!Array.isArray(source.files)) return undefined;
    const files: { path: string; hash: string | null }[] = [];
    for (const file of source.files) {
      if (!isRecord(file) || typeof file.path !== "string" || !(typeof file.hash === "string" || file.hash === null)) return undefined;
      files.push({ path: file.path, hash: file.hash });
    }
    out.files = files;
  }
  if ("untrusted" in source) {
    if (!isStringArray(source.untrusted)) return undefined;
    out.untrusted = [...source.untrusted];
  }
  return out;
}
