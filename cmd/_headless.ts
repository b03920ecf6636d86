/** One headless command: builds the agent, runs its turns (lib/ui/headless-run.ts), and maps the stop to an exit code. */
import { createAgent } from "../lib/agent/agent.ts";
import { type AgentFlags } from "../lib/config/flags.ts";
import { EXIT } from "../lib/platform/errors.ts";
import { listSessionAndRunIds, type NearIds, shortIdAmong, shortSessionId } from "../lib/store/short-ids.ts";
import { runHeadlessTurns, type OutputFormat } from "../lib/ui/headless-run.ts";
import { exitCodeOf } from "./_exit-codes.ts";
import { onOutputLost, writeErr } from "../lib/ui/output.ts";

export interface HeadlessOptions {
  format: OutputFormat;
  /** `--output-last-message`, absolute (resolved where shiro was started). */
  lastMessageFile?: string;
  /** `-i` images, workspace paths. */
  images: readonly string[];
  startedAt: number;
}

export async function runHeadless(prompt: string, flags: AgentFlags, options: HeadlessOptions): Promise<number> {
  let listed: Promise<NearIds> | undefined;
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
  // The agent tells the model the schema (flags.outputSchema, absolute); this copy checks the answers.
  const schema = flags.outputSchema ? (await import("../lib/agent/output-schema.ts")).loadOutputSchema(process.cwd(), flags.outputSchema) : undefined;
  // Start-up notices arrive as `notice` events of the run (`[notice] …` on stderr in text mode).
  const agent = await createAgent({
    cwd: process.cwd(),
    flags,
    mode: "headless",
    runId: process.env.SHIRO_RUN_ID,
    detached: process.env.SHIRO_DETACHED === "1",
    writeStderr: writeErr,
    // The saved line's short id: a long history is listed while the model answers, not before the request is sent nor after.
    afterFirstRequest: (sessionId) => (listed = listSessionAndRunIds(sessionId)),
  });
  try {
    const stop = await runHeadlessTurns(agent, prompt, controller.signal, {
      format: options.format,
      lastMessageFile: options.lastMessageFile,
      schema,
      images: options.images,
      root: process.cwd(),
      startedAt: options.startedAt,
    });
    return stop === "schema-failed" ? EXIT.error : exitCodeOf(stop);
  } finally {
    const saved = agent.close();
    await agent.closed;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    stopListening();
    if (saved) {
      const made = [agent.session.id, ...agent.session.exchanges.map((exchange) => exchange.runId)];
      const short = listed ? shortIdAmong(saved, await listed, made) : shortSessionId(saved);
      writeErr(`shiro: session ${short} saved. Resume it with: shiro -c  (newest in this directory)  or  shiro -r ${short}\n`);
    }
  }
}
