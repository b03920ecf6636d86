/** The session's run ids: the first may be given (detached runs); later turns get fresh ones. */
import { uuidv7 } from "../platform/ids.ts";

export interface RunIds {
  /** The run that is active now (or the one that will start next, before any has). */
  readonly active: string;
  /** Marks the given (or next) id active and returns it. */
  begin(runId?: string): string;
}

export function createRunIds(first?: string): RunIds {
  let next = first ?? uuidv7();
  let active = next;
  return {
    get active() {
      return active;
    },
    begin(runId) {
      active = runId ?? next;
      next = uuidv7();
      return active;
    },
  };
}
