/** How a run's stop becomes the process's exit code (headless runs, `runs tail`, `runs resume`). */
import type { StopKind } from "../lib/events.ts";
import { EXIT } from "../lib/platform/errors.ts";

export const STOP_EXIT: Record<StopKind, number> = {
  completed: EXIT.ok, error: EXIT.error, aborted: EXIT.interrupted, blocked: EXIT.blocked, "max-steps": EXIT.maxSteps,
};
