/**
 * The context window of the session's model, and the compaction threshold that follows it.
 *
 * Where the window comes from, in order: what the model taught us (the limit its context-length
 * error stated, or, when it stated none, three quarters of the request that overflowed); config
 * `contextWindow`; what the provider reported (`report`, asked once per model for models the
 * table does not know); the family table (lib/providers/windows.ts); UNKNOWN_MODEL_WINDOW. What was
 * learned is kept per model for the session and only ever shrinks the window. The threshold is
 * (window - output reserve) * 0.8, where the reserve is the family's output limit capped at a
 * quarter of the window; config `compaction.threshold` replaces it until a window is learned,
 * then caps it. All numbers are tokens, estimated as JSON length / 4.
 */
import { lookupModelWindow, readWindowFromError, UNKNOWN_MODEL_WINDOW } from "../../providers/windows.ts";

export type WindowSource = "config" | "learned" | "provider" | "model table" | "default";

export interface ContextWindowOptions {
  model: () => string;
  /** Config `contextWindow`. */
  configured?: number;
  /** Config `compaction.threshold`. */
  threshold?: number;
}

export interface ContextWindow {
  /** Tokens the current model accepts, and where that number comes from. */
  current(): { window: number; source: WindowSource };
  /** Estimated tokens above which the wire is compacted. */
  threshold(): number;
  /**
   * Learns from a context-length error on a request estimated at `estimate` tokens. Returns the
   * window now assumed. A stated limit wins; without one the window shrinks below the request.
   */
  learn(message: string, estimate: number): number;
  /** Records the window the provider reported for `model`. */
  report(model: string, window: number): void;
  /** True when the window of the current model comes from neither config, a lesson, a report nor the table: worth asking the provider. */
  unknown(): boolean;
}

export const THRESHOLD_SHARE = 0.8;

export function createContextWindow(options: ContextWindowOptions): ContextWindow {
  const learned = new Map<string, number>();
  const reported = new Map<string, number>();
  const current = (): { window: number; source: WindowSource } => {
    const model = options.model();
    const taught = learned.get(model);
    if (taught !== undefined) return { window: taught, source: "learned" };
    if (options.configured !== undefined) return { window: options.configured, source: "config" };
    const told = reported.get(model);
    if (told !== undefined) return { window: told, source: "provider" };
    const known = lookupModelWindow(model);
    return known ? { window: known.window, source: "model table" } : { window: UNKNOWN_MODEL_WINDOW.window, source: "default" };
  };
  return {
    current,
    threshold() {
      const { window, source } = current();
      if (options.threshold !== undefined && source !== "learned") return options.threshold;
      const output = lookupModelWindow(options.model())?.output ?? UNKNOWN_MODEL_WINDOW.output;
      const follows = Math.floor((window - Math.min(output, window / 4)) * THRESHOLD_SHARE);
      return Math.min(follows, options.threshold ?? follows);
    },
    learn(message, estimate) {
      const stated = readWindowFromError(message);
      const before = current().window;
      const next = stated !== undefined && stated < before ? stated : Math.min(before, Math.floor(estimate * 0.75));
      learned.set(options.model(), next);
      return next;
    },
    report(model, window) {
      reported.set(model, window);
    },
    unknown: () => current().source === "default",
  };
}
