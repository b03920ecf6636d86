/**
 * `shiro runs resume <id>`: continues a run suspended on an approval, in this process. A run
 * started with `--output-schema` has its answer checked as `-p` checks it (one repair turn unless
 * the resumed run was that repair turn, then exit 1 and the errors).
 */
import { createAgent } from "../lib/agent/agent.ts";
import { loadOutputSchema } from "../lib/agent/output-schema.ts";
import { flagsFromRunOptions } from "../lib/config/flags.ts";
import { EXIT, UserError } from "../lib/platform/errors.ts";
import { describeNotices } from "../lib/ui/notices.ts";
import { get as getApproval } from "../lib/store/approvals.ts";
import { effectiveStatus, findRun } from "../lib/store/runs.ts";
import { shortApprovalId, shortRunId } from "../lib/store/short-ids.ts";
import { onOutputLost, writeErr } from "../lib/ui/output.ts";
import { checkSchemaAnswer, schemaStop } from "../lib/ui/headless-run.ts";
import { printRun } from "../lib/ui/print.ts";
import { exitCodeOf } from "./_exit-codes.ts";

export async function resumeBlockedRun(idOrPrefix: string, options: { json: boolean }): Promise<number> {
  const run = findRun(idOrPrefix);
  if (effectiveStatus(run) !== "blocked" || !run.suspended)
    throw new UserError(`run ${shortRunId(run.id)} is not waiting for an approval (${effectiveStatus(run)})`);
  const approval = getApproval(run.suspended.approvalId);
  if (!approval) throw new UserError(`approval ${shortApprovalId(run.suspended.approvalId)} of run ${shortRunId(run.id)} is missing from approvals.json`);
  if (approval.status === "pending") {
    const short = shortApprovalId(approval.id);
    throw new UserError(`approval ${short} is still pending: shiro approve ${short} or shiro deny ${short} first`);
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on("SIGINT", onSignal);
  const stopListening = onOutputLost(() => controller.abort());
  const flags = flagsFromRunOptions(run.options);
  const agent = await createAgent({ cwd: run.cwd, flags, mode: "headless", sessionId: run.sessionId, writeStderr: writeErr });
  try {
    const decision = approval.status === "approved" ? "approved" : "denied";
    const runs = [await printRun(agent.resumeRun(run, decision, controller.signal, { notices: describeNotices(agent.startupNotices()) }), options)];
    const schema = flags.outputSchema ? loadOutputSchema(run.cwd, flags.outputSchema) : undefined;
    const check = await checkSchemaAnswer(agent, runs, controller.signal, {
      schema,
      print: options,
      announce: !options.json,
      repaired: schema?.isRepairPrompt(run.prompt),
    });
    return schemaStop(check) ? EXIT.error : exitCodeOf(runs.at(-1)!.stop);
  } finally {
    agent.close();
    await agent.closed;
    process.off("SIGINT", onSignal);
    stopListening();
  }
}
