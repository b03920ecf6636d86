/** `shiro runs resume <id>`: continues a run suspended on an approval, in this process. */
import { createAgent, type AgentFlags } from "../lib/agent/agent.ts";
import { EXIT, UserError } from "../lib/errors.ts";
import { get as getApproval } from "../lib/store/approvals.ts";
import { effectiveStatus, findRun } from "../lib/store/runs.ts";
import { shortApprovalId, shortRunId } from "../lib/store/short-ids.ts";
import { writeEventLine } from "./_headless.ts";
import { createTextPrinter } from "./_print.ts";
import { STOP_EXIT } from "./_start.ts";

export async function resumeBlockedRun(idOrPrefix: string, options: { json: boolean }): Promise<number> {
  const run = findRun(idOrPrefix);
  if (effectiveStatus(run) !== "blocked" || !run.suspended) throw new UserError(`run ${shortRunId(run.id)} is not waiting for an approval (${effectiveStatus(run)})`);
  const approval = getApproval(run.suspended.approvalId);
  if (!approval) throw new UserError(`approval ${shortApprovalId(run.suspended.approvalId)} of run ${shortRunId(run.id)} is missing from approvals.json`);
  if (approval.status === "pending") {
    const short = shortApprovalId(approval.id);
    throw new UserError(`approval ${short} is still pending: shiro approve ${short} or shiro deny ${short} first`);
  }
  const saved = run.options;
  const flags: AgentFlags = {
    provider: saved.provider, protocol: saved.protocol, model: saved.model, baseURL: saved.baseURL, agent: saved.agent, think: saved.think,
    yolo: saved.yolo ?? false, approvals: saved.approvals === "block" ? "block" : "deny", continue: false,
    noMcp: saved.noMcp ?? false, noSubagent: saved.noSubagent ?? false, noInstructions: saved.noInstructions ?? false,
    noSkills: saved.noSkills ?? false, noPlugins: saved.noPlugins ?? false, noMemory: saved.noMemory ?? false,
  };
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on("SIGINT", onSignal);
  const agent = await createAgent({ cwd: run.cwd, flags, mode: "headless", sessionId: run.sessionId });
  const printer = createTextPrinter({ out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }, { streamText: true });
  let code: number = EXIT.error;
  try {
    for await (const event of agent.resumeRun(run, approval.status === "approved" ? "approved" : "denied", controller.signal)) {
      if (options.json) writeEventLine(event);
      else printer.print(event);
      if (event.type === "done") code = STOP_EXIT[event.stop];
    }
  } finally {
    agent.close();
    await agent.closed;
    process.off("SIGINT", onSignal);
  }
  return code;
}
