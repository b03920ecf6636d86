/**
 * `shiro approvals [--json]`, `shiro approve <id>`, `shiro deny <id>`: the pending approvals of
 * blocked runs (`-p --approvals block`), and deciding one by its id or a unique prefix.
 */
import { defineCommand } from "citty";
import type { ApprovalRecord } from "../lib/store/approvals.ts";
import { shortRunIds, uniquePrefixes } from "../lib/store/short-ids.ts";
import { writeOut } from "./_output.ts";

const _SUBJECT_WIDTH = 80;

export default defineCommand({
  meta: { name: "approvals", description: "list pending approvals of blocked runs" },
  args: {
    json: { type: "boolean", description: "print the records as a JSON array" },
  },
  async run({ args }) {
    const approvals = await import("../lib/store/approvals.ts");
    const pending = approvals.listPending();
    if (args.json) {
      writeOut(`${JSON.stringify(pending, null, 2)}\n`);
      return;
    }
    if (pending.length === 0) {
      writeOut("no pending approvals\n");
      return;
    }
    writeOut(`${renderPendingTable(pending, Date.now())}\n`);
  },
});

export const approveCommand = _decisionCommand("approve", "approved");
export const denyCommand = _decisionCommand("deny", "denied");

function _decisionCommand(name: "approve" | "deny", status: "approved" | "denied") {
  return defineCommand({
    meta: { name, description: `${name} a pending approval by id or unique prefix` },
    args: {
      id: { type: "positional", description: "approval id or a unique prefix of it", required: true },
    },
    async run({ args }) {
      const { decide } = await import("../lib/store/approvals.ts");
      const { shortApprovalId, shortRunId } = await import("../lib/store/short-ids.ts");
      const record = decide(String(args.id), status, "cli");
      writeOut(`${status} ${shortApprovalId(record.id)}: ${record.tool} ${describeSubject(record)}\n`);
      if (record.runId) writeOut(`resume the run with: shiro runs resume ${shortRunId(record.runId)}\n`);
    },
  });
}

/** Rows of id, age, tool, subject, run and cwd; ids are shown long enough to be told apart. */
export function renderPendingTable(records: readonly ApprovalRecord[], now: number): string {
  const ids = uniquePrefixes(records.map((record) => record.id));
  const runs = shortRunIds(records.map((record) => record.runId));
  const rows = [
    ["id", "age", "tool", "subject", "run", "cwd"],
    ...records.map((record, i) => [ids[i]!, formatAge(now - Date.parse(record.requestedAt)), record.tool, describeSubject(record), runs[i]!, record.cwd]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  ")).join("\n");
}

/** The subject on one line, at most 80 characters; the input as JSON for tools without subjects. */
export function describeSubject(record: Pick<ApprovalRecord, "subject" | "input">): string {
  const text = (record.subject || JSON.stringify(record.input ?? {})).replace(/\s+/g, " ").trim();
  return text.length > _SUBJECT_WIDTH ? `${text.slice(0, _SUBJECT_WIDTH - 1)}…` : text;
}

export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}
