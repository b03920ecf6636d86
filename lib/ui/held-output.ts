/**
 * Output that can be held back: while a question is open in the terminal (an approval, the ask
 * tool), what the turn writes (a subagent's live lines, a parallel tool's result) is kept in
 * order and printed once the last open question is answered, so it never lands on the question.
 */

export interface HeldOutput {
  /** Writes now, or queues while held. */
  write(text: string): void;
  /** Holds output until the returned release is called; holds nest. */
  hold(): () => void;
}

export function createHeldOutput(write: (text: string) => void): HeldOutput {
  let holds = 0;
  let queued: string[] = [];
  return {
    write(text) {
      if (holds > 0) queued.push(text);
      else write(text);
    },
    hold() {
      holds += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds -= 1;
        if (holds > 0 || queued.length === 0) return;
        const text = queued.join("");
        queued = [];
        write(text);
      };
    },
  };
}
