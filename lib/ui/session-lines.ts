/** A saved session as one line of `shiro sessions` and `/sessions`, and times as they show there. */
import { shortSessionId } from "../store/short-ids.ts";
import type { SessionSummary } from "../store/session-record.ts";

/**
 * `<id8>  <YYYY-MM-DD HH:MM>  <n>msg  <title>`, the time in local time. The id is shown as long as
 * it must be to name one saved session (8 characters at least): ids made within about a minute
 * share their first 8, and the shown id is what `-r` is given. `idWidth` pads the id, so a list's
 * columns line up (formatSessionLines).
 */
export function formatSessionLine(summary: SessionSummary, idWidth = 0): string {
  return `${shortSessionId(summary.id).padEnd(idWidth)}  ${formatLocalMinute(summary.updatedAt)}  ${summary.messageCount}msg  ${summary.title}`;
}

/** A list of sessions, one formatSessionLine each, the ids padded to the longest. */
export function formatSessionLines(summaries: readonly SessionSummary[]): string[] {
  const width = Math.max(0, ...summaries.map((summary) => shortSessionId(summary.id).length));
  return summaries.map((summary) => formatSessionLine(summary, width));
}

export function formatLocalMinute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
