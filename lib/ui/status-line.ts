/**
 * A sign of life while a turn runs, on a terminal only: one line, `… 12s · ~340 tokens · bash`,
 * with the seconds since the turn started, the tokens streamed so far (estimated at 4 characters
 * each until the turn's usage arrives) and the tool running, if any. It is redrawn every second
 * while the cursor is at the start of a line and no question is open, and erased before anything
 * else is written, so output and questions never land on it. `wrapWrite` is the REPL's one writer
 * with that rule built in.
 */
import type { Interface } from "node:readline";
import type { AgentEvent } from "../events.ts";
import type { Style } from "./style.ts";

export interface StatusLine {
  /** The writer to use for everything else: it erases the status line first. */
  write(text: string): void;
  /** A turn started (true) or ended (false). */
  running(on: boolean): void;
  /** Follows the turn's events (tokens, the running tool). */
  observe(event: AgentEvent): void;
  /** While a readline question is open, or after a key was typed, the line is not drawn (wraps `rl.question`). */
  holdDuringQuestions(rl: Interface): void;
}

const _TICK_MS = 1_000;
const _CLEAR = "\r\x1b[K";

export function createStatusLine(write: (text: string) => void, style: Style, enabled: boolean): StatusLine {
  let drawn = false;
  let atLineStart = true;
  let questions = 0;
  let started = 0;
  let chars = 0;
  let tool: string | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;

  const erase = () => {
    if (!drawn) return;
    write(_CLEAR);
    drawn = false;
  };
  const draw = () => {
    if (!atLineStart || questions > 0) return;
    const seconds = Math.floor((Date.now() - started) / 1_000);
    const parts = [`${seconds}s`, ...(chars > 0 ? [`~${Math.ceil(chars / 4)} tokens`] : []), ...(tool ? [tool] : [])];
    write(`${_CLEAR}${style.dim(`… ${parts.join(" · ")}`)}`);
    drawn = true;
  };
  return {
    write(text) {
      if (!text) return;
      erase();
      write(text);
      atLineStart = text.endsWith("\n");
    },
    running(on) {
      if (!enabled) return;
      if (timer) clearInterval(timer);
      timer = undefined;
      erase();
      if (!on) return;
      started = Date.now();
      chars = 0;
      tool = undefined;
      timer = setInterval(draw, _TICK_MS);
      timer.unref?.();
    },
    observe(event) {
      if (event.type === "text" || event.type === "reasoning") chars += event.text.length;
      else if (event.type === "tool-call") tool = event.name;
      else if (event.type === "tool-result" || event.type === "tool-error" || event.type === "tool-denied") tool = undefined;
    },
    holdDuringQuestions(rl) {
      // Keys typed during a turn are echoed by readline: erase first, and draw nothing over them.
      process.stdin.prependListener("keypress", (_text: string, key: { name?: string } | undefined) => {
        erase();
        atLineStart = key?.name === "return" || key?.name === "enter";
      });
      const question = rl.question.bind(rl) as (...args: unknown[]) => void;
      (rl as { question: (...args: unknown[]) => void }).question = (...args: unknown[]) => {
        erase();
        questions += 1;
        const callback = args.pop() as (answer: string) => void;
        let settled = false;
        const settle = () => {
          if (!settled) questions -= 1;
          settled = true;
        };
        const options = args[1] as { signal?: AbortSignal } | undefined;
        options?.signal?.addEventListener("abort", settle, { once: true });
        question(...args, (answer: string) => {
          settle();
          atLineStart = true;
          callback(answer);
        });
      };
    },
  };
}
