/**
 * `shiro approvals [--json]`, `shiro approve <id>`, `shiro deny <id>`: the pending approvals of
 * blocked runs (`-p --approvals block`), and deciding one by its id or a unique prefix.
 */
import { defineCommand } from "citty";
import { describeSubject, renderPendingTable } from "../lib/ui/approvals-table.ts";
import { writeOut } from "../lib/ui/output.ts";
import { showControls } from "../lib/ui/terminal-text.ts";

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
      writeOut(`${status} ${shortApprovalId(record.id)}: ${showControls(record.tool)} ${describeSubject(record)}\n`);
      if (record.runId) writeOut(`resume the run with: shiro runs resume ${shortRunId(record.runId)}\n`);
    },
  });
}
