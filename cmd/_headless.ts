/** One headless turn: builds the agent, prints its events, and maps the stop to an exit code. */
import { createAgent } from "../lib/agent/agent.ts";
import { type AgentFlags } from "../lib/config/flags.ts";
import { EXIT } from "../lib/platform/errors.ts";
import { describeNotices } from "../lib/ui/notices.ts";
import { shortSessionId } from "../lib/store/short-ids.ts";
import { printRun } from "../lib/ui/print.ts";
import { exitCodeOf } from "./_exit-codes.ts";
import { onOutputLost, writeErr } from "../lib/ui/output.ts";

export interface HeadlessOptions {
  json: boolean;
}

export async function runHeadless(prompt: string, flags: AgentFlags, options: HeadlessOptions): Promise<number> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    // A second Ctrl-C leaves at once, without waiting for a reader that may never read.
    if (interrupts > 1) process.exit(EXIT.interrupted);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  // Nobody can receive the answer any more (the reader went away, stdout failed): stop the run.
  const stopListening = onOutputLost(() => controller.abort());
  // Start-up notices arrive as `notice` events of the run (`[notice] …` on stderr in text mode).
  const agent = await createAgent({
    cwd: process.cwd(),
    flags,
    mode: "headless",
    runId: process.env.SHIRO_RUN_ID,
    detached: process.env.SHIRO_DETACHED === "1",
    writeStderr: writeErr,
  });
  try {
    return exitCodeOf(await printRun(agent.turn(prompt, controller.signal, { notices: describeNotices(agent.startupNotices()) }), options));
  } finally {
    const saved = agent.close();
    await agent.closed;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    stopListening();
    if (saved) {
      const short = shortSessionId(saved);
      writeErr(`shiro: session ${short} saved. Resume it with: shiro -c  (newest in this directory)  or  shiro -r ${short}\n`);
    }
  }
}
