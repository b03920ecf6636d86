/** How a run's outcome becomes the process's exit code (headless runs, `runs tail`, `runs resume`). */
import type { StopKind } from "../lib/events.ts";
import { EXIT } from "../lib/platform/errors.ts";
import type { FollowOutcome } from "../lib/ui/follow.ts";

const _STOP_EXIT: Record<StopKind, number> = {
  completed: EXIT.ok,
  error: EXIT.error,
  aborted: EXIT.interrupted,
  blocked: EXIT.blocked,
  "max-steps": EXIT.maxSteps,
  "max-cost": EXIT.maxSteps,
};

/** A run's stop as an exit code; no stop (events ended without `done`) or a vanished run is an error. */
export function exitCodeOf(outcome: FollowOutcome | undefined): number {
  if (outcome === "lost") return EXIT.ok;
  if (outcome === undefined || outcome === "gone") return EXIT.error;
  return _STOP_EXIT[outcome];
}
