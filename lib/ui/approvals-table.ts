/** Pending approvals as `shiro approvals` prints them: a table, each subject on one line, ages. */
import type { ApprovalRecord } from "../store/approvals.ts";
import { shortRunIds, uniquePrefixes } from "../store/short-ids.ts";
import { showControls } from "./terminal-text.ts";

const _SUBJECT_WIDTH = 80;

/** Rows of id, age, tool, subject, run and cwd; ids are shown long enough to be told apart. */
export function renderPendingTable(records: readonly ApprovalRecord[], now: number): string {
  const ids = uniquePrefixes(records.map((record) => record.id));
  const runs = shortRunIds(records.map((record) => record.runId));
  const rows = [
    ["id", "age", "tool", "subject", "run", "cwd"],
    ...records.map((record, i) => [
      ids[i]!,
      formatAge(now - Date.parse(record.requestedAt)),
      showControls(record.tool),
      describeSubject(record),
      runs[i]!,
      showControls(record.cwd),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n");
}

/** The subject on one line, at most 80 characters, controls in caret form; the input as JSON for tools without subjects. */
export function describeSubject(record: Pick<ApprovalRecord, "subject" | "input">): string {
  const text = showControls((record.subject || JSON.stringify(record.input ?? {})).replace(/\s+/g, " ").trim());
  return text.length > _SUBJECT_WIDTH ? `${text.slice(0, _SUBJECT_WIDTH - 1)}…` : text;
}

export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
