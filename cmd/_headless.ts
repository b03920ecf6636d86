/** One headless turn: builds the agent, prints its events, and maps the stop to an exit code. */
import { createAgent, type AgentFlags } from "../lib/agent/agent.ts";
import { EXIT } from "../lib/errors.ts";
import { shortSessionId } from "../lib/store/short-ids.ts";
import { printRun } from "./_print.ts";

export interface HeadlessOptions {
  json: boolean;
}

export async function runHeadless(prompt: string, flags: AgentFlags, options: HeadlessOptions): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const agent = await createAgent({ cwd: process.cwd(), flags, mode: "headless", runId: process.env.SHIRO_RUN_ID, detached: process.env.SHIRO_DETACHED === "1" });
  if (!options.json) {
    for (const line of agent.startupNotices()) process.stderr.write(`shiro: ${line}\n`);
  }
  try {
    return await printRun(agent.turn(prompt, controller.signal), options);
  } finally {
    const saved = agent.close();
    await agent.closed;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (saved) {
      const short = shortSessionId(saved);
      process.stderr.write(`shiro: session ${short} saved. Resume it with: shiro -c  (newest in this directory)  or  shiro -r ${short}\n`);
    }
  }
}
