/** A saved session as one line of `shiro sessions` and `/sessions`, and times as they show there. */
import { shortSessionId } from "../store/short-ids.ts";
import type { SessionSummary } from "../store/session-record.ts";

/**
 * `<id8>  <YYYY-MM-DD HH:MM>  <n>msg  <title>`, the time in local time. The id is shown as long as
 * it must be to name one saved session (8 characters at least): ids made within about a minute
 * share their first 8, and the shown id is what `-r` is given.
 */
export function formatSessionLine(summary: SessionSummary): string {
  return `${shortSessionId(summary.id)}  ${formatLocalMinute(summary.updatedAt)}  ${summary.messageCount}msg  ${summary.title}`;
}

export function formatLocalMinute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
