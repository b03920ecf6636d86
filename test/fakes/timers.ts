/**
 * Fake timers: a clock that moves only when the test says so. Code that waits (a debounce, a
 * deadline) takes a `Timers` and the test passes this one, so a test proves "one write per window"
 * or "nothing after the window" by advancing the clock, never by sleeping.
 */

/** What a module that waits takes: `setTimeout`/`clearTimeout` in production. */
export interface Timers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface FakeTimers extends Timers {
  /** Milliseconds since the fake clock started. */
  readonly now: number;
  /** Timers not yet fired. */
  readonly pending: number;
  /** Moves the clock `ms` forward, firing every timer due on the way, in order. */
  advance(ms: number): void;
}

export function createFakeTimers(): FakeTimers {
  let now = 0;
  let nextId = 1;
  const due = new Map<number, { at: number; callback: () => void }>();
  return {
    get now() {
      return now;
    },
    get pending() {
      return due.size;
    },
    set(callback, ms) {
      const id = nextId++;
      due.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clear(handle) {
      due.delete(handle as number);
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        let first: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of due) if (entry[1].at <= end && (!first || entry[1].at < first[1].at)) first = entry;
        if (!first) break;
        due.delete(first[0]);
        now = first[1].at;
        first[1].callback();
      }
      now = end;
    },
  };
}
