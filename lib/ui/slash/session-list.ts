/**
 * Sessions by folder, for `/sessions`, `/resume` and `shiro sessions`: by default only the
 * sessions started inside this project (the git root, or the folder outside a repository), each
 * row with its folder relative to the project (`.` for the root); `all` lists every folder, with
 * absolute folders. Rows may be numbered (`/resume` without an id), and `pickNumbered` turns
 * `/resume 2` into the second row of that same listing.
 */
import { relative } from "node:path";
import { findProjectRoot } from "../../config/project.ts";
import { listSessions } from "../../store/sessions.ts";
import type { SessionSummary } from "../../store/session-record.ts";
import { formatSessionLines } from "../session-lines.ts";
import { showControls } from "../terminal-text.ts";
import { isInside } from "../../platform/path-inside.ts";

export const SESSION_ROWS = 15;

export interface SessionListing {
  sessions: SessionSummary[];
  notices: string[];
  root: string;
  all: boolean;
}

/** This project's newest sessions (or every folder's with `all`), at most SESSION_ROWS. */
export function listFolderSessions(cwd: string, all = false): SessionListing {
  const root = findProjectRoot(cwd);
  const { sessions, notices } = listSessions(all ? SESSION_ROWS : Number.POSITIVE_INFINITY);
  const shown = all ? sessions : sessions.filter((session) => isInside(root, session.cwd)).slice(0, SESSION_ROWS);
  return { sessions: shown, notices, root, all };
}

/** One row per session: `[n.] <id>  <time>  <n>msg  <folder>  <title>`. */
export function renderSessionRows(listing: SessionListing, numbered = false): string {
  if (listing.sessions.length === 0) return listing.all ? "no saved sessions" : "no saved sessions in this project (/sessions all lists every folder)";
  const lines = formatSessionLines(listing.sessions);
  return showControls(
    listing.sessions
      .map((session, index) => {
        const folder = listing.all ? session.cwd : relative(listing.root, session.cwd) || ".";
        const line = lines[index]!.replace(/(\d+msg)  /, `$1  ${folder}  `);
        return numbered ? `${String(index + 1).padStart(2)}. ${line}` : line;
      })
      .join("\n"),
  );
}

/** `/resume 2`: the id of row 2 of this project's listing; undefined when `text` is no row number. */
export function pickNumbered(cwd: string, text: string): string | undefined {
  if (!/^\d{1,2}$/.test(text)) return undefined;
  return listFolderSessions(cwd).sessions[Number(text) - 1]?.id;
}
