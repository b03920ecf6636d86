/** One headless turn: builds the agent, prints its events, and maps the stop to an exit code. */
import { createAgent, type AgentFlags } from "../lib/agent/agent.ts";
import type { AgentEvent } from "../lib/agent/events.ts";
import { EXIT } from "../lib/errors.ts";
import { createTextPrinter } from "./_print.ts";
import { STOP_EXIT } from "./_start.ts";

export interface HeadlessOptions {
  json: boolean;
}

export function writeEventLine(event: AgentEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
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
  const printer = createTextPrinter({ out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) }, { streamText: true });
  if (!options.json) {
    for (const line of agent.startupNotices()) process.stderr.write(`shiro: ${line}\n`);
  }
  let code: number = EXIT.error;
  try {
    for await (const event of agent.turn(prompt, controller.signal)) {
      if (options.json) writeEventLine(event);
      else printer.print(event);
      if (event.type === "done") code = STOP_EXIT[event.stop];
    }
  } finally {
    const saved = agent.close();
    await agent.closed;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (saved) {
      const { shortSessionId } = await import("../lib/store/short-ids.ts");
      const short = shortSessionId(saved);
      process.stderr.write(`shiro: session ${short} saved. Resume it with: shiro -c  (newest in this directory)  or  shiro -r ${short}\n`);
    }
  }
  return code;
}
