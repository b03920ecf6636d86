/**
 * `shiro runs`: the durable run log. list, show, events, tail (follow a live run), cancel (a
 * cross-process request through the state folder) and resume (continue a run that blocked on
 * an approval, once the approval is decided).
 */
import { defineCommand } from "citty";
import { UserError } from "../lib/platform/errors.ts";
import { writeOut } from "../lib/ui/output.ts";
import { events, list, search, show } from "../lib/ui/runs-read.ts";

const tail = defineCommand({
  meta: { name: "tail", description: "follow a run's events until it ends" },
  args: {
    id: { type: "positional", description: "run id or unique prefix" },
    json: { type: "boolean", description: "print the stored lines as they are" },
  },
  async run({ args }) {
    const { followRun } = await import("../lib/ui/follow.ts");
    const { exitCodeOf } = await import("./_exit-codes.ts");
    process.exitCode = exitCodeOf(await followRun(String(args.id), { json: Boolean(args.json) }));
  },
});

const cancel = defineCommand({
  meta: { name: "cancel", description: "stop a running run, or give up a blocked one (either ends with a cancelled done event)" },
  args: { id: { type: "positional", description: "run id or unique prefix" } },
  async run({ args }) {
    const { findRun, effectiveStatus, requestCancel } = await import("../lib/store/runs.ts");
    const { shortRunId } = await import("../lib/store/short-ids.ts");
    const run = findRun(String(args.id));
    const status = effectiveStatus(run);
    if (status === "blocked") {
      const { cancelBlockedRun } = await import("../lib/store/runs.ts");
      const { decide, get } = await import("../lib/store/approvals.ts");
      const approvalId = run.suspended?.approvalId;
      if (approvalId && get(approvalId)?.status === "pending") decide(approvalId, "denied", "cli");
      cancelBlockedRun(run);
      writeOut(`cancelled blocked run ${shortRunId(run.id)}${approvalId ? "; its pending approval was denied" : ""}\n`);
      return;
    }
    if (status !== "running") throw new UserError(`run ${shortRunId(run.id)} is not running (${status})`);
    requestCancel(run.id);
    writeOut(`cancel requested for run ${shortRunId(run.id)}\n`);
  },
});

const resume = defineCommand({
  meta: { name: "resume", description: "continue a run that blocked on an approval, once it is decided" },
  args: {
    id: { type: "positional", description: "run id or unique prefix" },
    json: { type: "boolean", description: "print one JSON event per line" },
  },
  async run({ args }) {
    const { resumeBlockedRun } = await import("./_resume.ts");
    process.exitCode = await resumeBlockedRun(String(args.id), { json: Boolean(args.json) });
  },
});

export default defineCommand({
  meta: { name: "runs", description: "the run log: list, show, events, search, tail, cancel, resume" },
  subCommands: { list, show, events, tail, cancel, resume, search },
  async run({ rawArgs }) {
    if (rawArgs.length === 0) await list.run!({ args: { _: [] } as never, rawArgs: [], cmd: list });
  },
});
