/** Follows a run's event log: prints what is there, then new lines as they land, until `done`. */
import { EXIT } from "../platform/errors.ts";
import { isUuid } from "../platform/ids.ts";
import { shortRunId } from "../store/short-ids.ts";
import { effectiveStatus, findRun, loadRun, readRunEvents, type LoggedEvent } from "../store/runs.ts";
import { createReplayPrinter } from "./print.ts";
import { STOP_EXIT } from "../../cmd/_exit-codes.ts";
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

export async function followRun(idOrPrefix: string, options: { json: boolean; pollMs?: number }): Promise<number> {
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
    if (lost) return EXIT.ok;
    const { events } = readRunEvents(run.id);
    for (const event of events.slice(seen)) {
      show(event);
      if (event.type === "done") return STOP_EXIT[event.stop];
    }
    seen = events.length;
    const snapshot = loadRun(run.id);
    if (snapshot && effectiveStatus(snapshot) === "interrupted") {
      writeErr(`shiro: run ${shortRunId(run.id)} ended without finishing (its process is gone)\n`);
      return EXIT.error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 150));
  }
}
