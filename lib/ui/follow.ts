/** Follows a run's event log: prints what is there, then new lines as they land, until `done`. */
import type { StopKind } from "../events.ts";
import { isUuid } from "../platform/ids.ts";
import { shortRunId } from "../store/short-ids.ts";
import { effectiveStatus, findRun, loadRun, readRunEvents, type LoggedEvent } from "../store/runs.ts";
import { createReplayPrinter } from "./print.ts";
import { onOutputLost, writeErr, writeOut } from "./output.ts";

/** A detached run's files appear a moment after its id is printed: a full id is waited for briefly. */
async function _findSoon(idOrPrefix: string, waitMs: number): Promise<ReturnType<typeof findRun>> {
  const deadline = Date.now() + (isUuid(idOrPrefix) ? waitMs : 0);
  for (;;) {
    try {
      return findRun(idOrPrefix);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * How following ended: the run's `done` stop, `lost` when nobody reads the output any more, `gone`
 * when the run's process ended without finishing.
 */
export type FollowOutcome = StopKind | "lost" | "gone";

export async function followRun(idOrPrefix: string, options: { json: boolean; pollMs?: number }): Promise<FollowOutcome> {
  const run = await _findSoon(idOrPrefix, 10_000);
  const printer = createReplayPrinter();
  let seen = 0;
  // Following is pointless once nobody reads: stop, and let the exit be quiet.
  let lost = false;
  onOutputLost(() => (lost = true));
  const show = (event: LoggedEvent) => {
    if (options.json) writeOut(`${JSON.stringify(event)}\n`);
    else printer.print(event);
  };
  for (;;) {
    if (lost) return "lost";
    const { events } = readRunEvents(run.id);
    for (const event of events.slice(seen)) {
      show(event);
      if (event.type === "done") return event.stop;
    }
    seen = events.length;
    const snapshot = loadRun(run.id);
    if (snapshot && effectiveStatus(snapshot) === "interrupted") {
      writeErr(`shiro: run ${shortRunId(run.id)} ended without finishing (its process is gone)\n`);
      return "gone";
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 150));
  }
}
