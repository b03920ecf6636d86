/**
 * Where a note came from, and whether the code it speaks of still looks the same.
 *
 * Provenance (`MemorySource`): the session, run and agent; the git commit at the time (`HEAD`,
 * absent outside git); and up to 8 files, each `{path, hash}` — the files the note's text names
 * that exist in the project, then the files the turn had read or changed — `hash` being the first
 * 16 hex digits of the SHA-256 of the content then (null: missing then). `untrusted` lists what
 * untrusted content the context held when the note was written, as the caller observed it
 * (lib/agent/memory-session.ts: `bash`, `web_fetch`, `read_file README.md`, `mcp__srv__tool`…).
 *
 * Staleness: a note is possibly stale when a recorded file's hash differs now, or the file is gone.
 * Nothing here writes; git is run read-only through the safe runner (lib/shell/safe-git.ts: no
 * repository config can start a program), with a 3-second cap, and its failure is no error.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { runGitSync } from "../shell/safe-git.ts";
import { sha256Hex } from "../platform/sha256.ts";
import type { MemoryEntry, MemorySource } from "./memory-file.ts";
import { statStamp } from "../state-file/file-stamp.ts";

export const PROVENANCE_FILE_CAP = 8;
const _GIT_TIMEOUT_MS = 3_000;
const _HASH_BYTES_CAP = 8 * 1024 * 1024;

/** What the turn that wrote the note had done, as shiro observed it. */
export interface TurnObservation {
  sessionId?: string;
  runId?: string;
  agent?: string;
  /** Files the turn read or changed, relative to the project root or absolute. */
  files?: readonly string[];
  /** What put untrusted text in the context, recorded as given. */
  untrusted?: readonly string[];
}

/** The provenance of a note with `text`, written in a turn that did `turn`. */
export function buildProvenance(projectRoot: string, text: string, turn: TurnObservation = {}): MemorySource {
  const named = namedFiles(projectRoot, text);
  const files = [...new Set([...named, ...(turn.files ?? []).map((path) => _relative(projectRoot, path))])]
    .filter((path) => path && !path.startsWith(".."))
    .slice(0, PROVENANCE_FILE_CAP);
  const commit = gitHead(projectRoot);
  const untrusted = [...(turn.untrusted ?? [])];
  return {
    ...(turn.sessionId ? { sessionId: turn.sessionId } : {}),
    ...(turn.runId ? { runId: turn.runId } : {}),
    ...(turn.agent ? { agent: turn.agent } : {}),
    ...(commit ? { commit } : {}),
    ...(files.length > 0 ? { files: files.map((path) => ({ path, hash: hashFile(resolve(projectRoot, path)) })) } : {}),
    ...(untrusted.length > 0 ? { untrusted } : {}),
  };
}

/** The recorded files re-hashed now, and the commit now: what `verify` stores. */
export function refreshProvenance(projectRoot: string, entry: MemoryEntry): MemorySource {
  const commit = gitHead(projectRoot);
  const files = entry.source?.files?.map((file) => ({ path: file.path, hash: hashFile(resolve(projectRoot, file.path)) }));
  return { ...(commit ? { commit } : {}), ...(files ? { files } : {}) };
}

let _checked = 0;

/** How many notes with recorded files `staleNote` has checked in this process: what a prompt's staleness work is measured by. */
export function staleNoteChecks(): number {
  return _checked;
}

/** `(possibly stale: settings.ts changed since this note)`, or undefined when every recorded file is as it was. */
export function staleNote(entry: MemoryEntry, projectRoot: string): string | undefined {
  const changed: string[] = [];
  const gone: string[] = [];
  if (entry.source?.files?.length) _checked += 1;
  for (const file of entry.source?.files ?? []) {
    const now = hashFile(resolve(projectRoot, file.path));
    if (now === file.hash) continue;
    (now === null ? gone : changed).push(basename(file.path));
  }
  const parts = [
    ...(changed.length > 0 ? [`${changed.join(", ")} changed`] : []),
    ...(gone.length > 0 ? [`${gone.join(", ")} ${gone.length === 1 ? "was" : "were"} deleted`] : []),
  ];
  return parts.length > 0 ? `(possibly stale: ${parts.join("; ")} since this note)` : undefined;
}

/** Files of the project the text names: path-like words (`lib/a.ts`, `settings.ts`) that exist. */
export function namedFiles(projectRoot: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/[\w@~.\-/]*[\w-]\.[A-Za-z0-9]{1,8}\b|[\w.\-]+(?:\/[\w.\-]+)+/g)) {
    const word = match[0].replace(/^[`'"(]+|[`'"),.:;]+$/g, "");
    if (!word || word.includes("://")) continue;
    const path = _relative(projectRoot, word);
    if (path.startsWith("..") || isAbsolute(path)) continue;
    try {
      if (statSync(resolve(projectRoot, path)).isFile() && !found.includes(path)) found.push(path);
    } catch {
      // Not a file of this project: an ordinary word with a dot in it.
    }
  }
  return found;
}

/** Hashes by path, valid while the file's inode, size and modification time hold (a prompt checks many notes naming one file). */
const _hashes = new Map<string, { stamp: string; hash: string }>();

/** First 16 hex digits of the SHA-256 of the file, or null when it is missing, not a file or too large to hash. */
export function hashFile(path: string): string | null {
  try {
    const stat = statSync(path);
    if (!stat.isFile() || stat.size > _HASH_BYTES_CAP) return null;
    const stamp = statStamp(stat);
    const known = _hashes.get(path);
    if (known?.stamp === stamp) return known.hash;
    const hash = sha256Hex(readFileSync(path)).slice(0, 16);
    _hashes.set(path, { stamp, hash });
    return hash;
  } catch {
    return null;
  }
}

/** `HEAD`'s commit, or undefined outside a git work tree (or when git is missing). */
export function gitHead(projectRoot: string): string | undefined {
  try {
    const out = runGitSync(projectRoot, "rev-parse", ["--verify", "-q", "HEAD"], _GIT_TIMEOUT_MS);
    return /^[0-9a-f]{40,64}$/.test(out.trim()) ? out.trim() : undefined;
  } catch {
    return undefined;
  }
}

function _relative(projectRoot: string, path: string): string {
  const inside = relative(projectRoot, resolve(projectRoot, path));
  return isAbsolute(inside) ? inside : inside.split(sep).join("/");
}
