/**
 * Trust in a repository's own notes, `.shiro/notes.json`: a cloned repository's notes reach the
 * prompt and recall only after the user trusted that exact file content (trusted-files.ts, the same
 * trust `.mcp.json` needs). A missing file is trusted (there is nothing to inject), so notes shiro
 * itself writes into a new file are trusted. A write by shiro into a trusted file keeps it trusted
 * (the new content is recorded); any other change to the file, by a command, a pull or an editor,
 * makes it untrusted until the user is asked again. Judged on every use, not once per session.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { contentHash, isTrustedContent, trustContent } from "./trusted-files.ts";

/** Where a repository keeps the notes it shares through git. */
export const REPO_NOTES_PATH = ".shiro/notes.json";

export interface RepoNotesFile {
  path: string;
  sha256: string;
  /** How many notes the file lists (0 when it cannot be parsed). */
  count: number;
  trusted: boolean;
}

export interface RepoNotesTrust {
  /** True when the file is missing or its exact content is trusted. */
  trusted(): boolean;
  /** Before shiro writes the file: remembers whether it was trusted. */
  beforeWrite(): void;
  /** After shiro wrote it: trusts the new content when the old one was. */
  afterWrite(): void;
}

/** The repository's notes file as the trust question shows it, or undefined when there is none. */
export function readRepoNotesFile(projectRoot: string): RepoNotesFile | undefined {
  const path = join(projectRoot, REPO_NOTES_PATH);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const sha256 = contentHash(text);
  return { path, sha256, count: _count(text), trusted: isTrustedContent(projectRoot, REPO_NOTES_PATH, sha256) };
}

/** Records that the user trusts this content of the repository's notes. */
export function trustRepoNotes(projectRoot: string, file: RepoNotesFile): void {
  trustContent(projectRoot, REPO_NOTES_PATH, file.sha256);
  file.trusted = true;
}

export function openRepoNotesTrust(projectRoot: string): RepoNotesTrust {
  let before = false;
  const trusted = () => readRepoNotesFile(projectRoot)?.trusted ?? true;
  return {
    trusted,
    beforeWrite: () => void (before = trusted()),
    afterWrite() {
      const now = readRepoNotesFile(projectRoot);
      if (before && now && !now.trusted) trustRepoNotes(projectRoot, now);
    },
  };
}

function _count(text: string): number {
  try {
    const parsed = JSON.parse(text) as { entries?: unknown } | unknown[];
    const entries = Array.isArray(parsed) ? parsed : (parsed as { entries?: unknown }).entries;
    return Array.isArray(entries) ? entries.length : 0;
  } catch {
    return 0;
  }
}
