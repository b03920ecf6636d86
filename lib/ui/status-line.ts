/**
 * The REPL's footer while a turn runs, on a terminal only: a status line, `… 12s · ~340 tokens ·
 * bash · accept-edits`, with the seconds since the turn started, the tokens streamed so far
 * (estimated at 4 characters each until the turn's usage arrives), the tool running and the
 * session's mode; above it, while a command runs, its live tail (live-tail.ts: the last 5 lines
 * past the head renderer.ts prints, redrawn in place, gone when it ends and its output is
 * folded); below it the input line (readline's prompt and what you have typed ahead), the cursor
 * where you left it. Every footer row is cut to the terminal's width, so none wraps.
 *
 * `write` is the REPL's one writer with that rule built in: while the footer shows, output is
 * written in whole lines above it (a partial line waits for its end, or for the footer to go),
 * so nothing the turn prints lands on the input line and nothing typed lands in the output.
 * While a question is open (`suspend`, or a readline question) the footer is gone and output
 * passes straight through. Off a terminal the footer is never drawn and `write` passes through.
 */
import type { Interface } from "node:readline";
import type { AgentEvent } from "../events.ts";
import { createLiveTail, fitColumns } from "./live-tail.ts";
import type { Style } from "./style.ts";
import { showControls } from "./terminal-text.ts";

export interface StatusLine {
  /** The writer to use for everything else: output goes above the footer. */
  write(text: string): void;
  /** A turn started (true) or ended (false). */
  running(on: boolean): void;
  /** Follows the turn's events (tokens, the running tool). */
  observe(event: AgentEvent): void;
  /** The footer's readline: its questions suspend the footer (wraps `rl.question`). */
  attach(rl: Interface): void;
  /** Takes the footer away until the returned function is called (a question is open); nests. */
  suspend(): () => void;
  /** A line was submitted while the footer showed: it is shown as queued, and the footer redrawn. */
  queued(line: string): void;
  /** A word shown at the end of the status (the session's mode); undefined shows none. */
  tag(text: string | undefined): void;
}

/** The parts of node's readline Interface the footer drives (present in node and bun). */
interface _Readline extends Interface {
  _refreshLine(): void;
  prevRows?: number;
  line: string;
}

const _TICK_MS = 1_000;
/** A command's output redraws the footer at most this often. */
const _TAIL_REDRAW_MS = 50;

export function createStatusLine(output: (text: string) => void, style: Style, enabled: boolean): StatusLine {
  let midLine = false;
  const write = (text: string) => {
    output(text);
    midLine = !text.endsWith("\n");
  };
  let rl: _Readline | undefined;
  let on = false;
  let drawn = false;
  let suspended = 0;
  let partial = "";
  let started = 0;
  let chars = 0;
  let tool: string | undefined;
  let mode: string | undefined;
  const tail = createLiveTail();
  let timer: ReturnType<typeof setInterval> | undefined;
  let tailTimer: ReturnType<typeof setTimeout> | undefined;
  /** Rows the footer holds above the input line, as last drawn. */
  let footerRows = 0;

  const footerText = () => {
    const columns = process.stdout.columns || 80;
    const seconds = Math.floor((Date.now() - started) / 1_000);
    const parts = [`${seconds}s`, ...(chars > 0 ? [`~${Math.ceil(chars / 4)} tokens`] : []), ...(tool ? [tool] : []), ...(mode ? [mode] : [])];
    const rows = [...(tool ? tail.lines().map((line) => `  │ ${line}`) : []), `… ${parts.join(" · ")}`];
    return rows.map((row) => style.dim(fitColumns(row, columns)));
  };
  const erase = () => {
    if (!drawn) return;
    const rows = rl ? rl.getCursorPos().rows : 0;
    output(`\x1b[${rows + footerRows}A\r\x1b[J`);
    midLine = false;
    if (rl) rl.prevRows = 0;
    drawn = false;
  };
  const draw = () => {
    if (!on || suspended > 0 || !rl) return;
    const rows = footerText();
    write(`${midLine ? "\n" : "\r\x1b[K"}${rows.join("\n")}\n`);
    footerRows = rows.length;
    rl.prevRows = 0;
    rl._refreshLine();
    drawn = true;
  };
  const redrawSoon = () => {
    if (tailTimer || !drawn) return;
    tailTimer = setTimeout(() => {
      tailTimer = undefined;
      redraw();
    }, _TAIL_REDRAW_MS);
    tailTimer.unref?.();
  };
  const redraw = () => {
    if (!drawn) return;
    erase();
    draw();
  };
  const flushPartial = () => {
    if (!partial) return;
    write(partial);
    partial = "";
  };
  const showing = () => enabled && on && suspended === 0 && rl !== undefined;

  return {
    write(text) {
      if (!text) return;
      if (!showing()) {
        flushPartial();
        write(text);
        return;
      }
      const all = partial + text;
      const end = all.lastIndexOf("\n");
      if (end < 0) {
        partial = all;
        return;
      }
      partial = all.slice(end + 1);
      erase();
      write(all.slice(0, end + 1));
      draw();
    },
    running(next) {
      if (!enabled) return;
      if (timer) clearInterval(timer);
      if (tailTimer) clearTimeout(tailTimer);
      timer = undefined;
      tailTimer = undefined;
      erase();
      on = next;
      if (!next) return flushPartial();
      started = Date.now();
      chars = 0;
      tool = undefined;
      draw();
      timer = setInterval(redraw, _TICK_MS);
      timer.unref?.();
    },
    observe(event) {
      if (event.type === "text" || event.type === "reasoning") chars += event.text.length;
      else if (event.type === "tool-call") {
        tool = showControls(event.name);
        tail.clear();
      } else if (event.type === "tool-output") {
        tail.push(event.id, event.chunk);
        redrawSoon();
      } else if (event.type === "tool-result" || event.type === "tool-error" || event.type === "tool-denied") {
        tool = undefined;
        tail.clear();
      }
    },
    attach(readline) {
      rl = readline as _Readline;
      if (!enabled) return;
      const question = rl.question.bind(rl) as (...args: unknown[]) => void;
      (rl as { question: (...args: unknown[]) => void }).question = (...args: unknown[]) => {
        const resume = this.suspend();
        const callback = args.pop() as (answer: string) => void;
        let settled = false;
        const settle = () => {
          if (!settled) resume();
          settled = true;
        };
        const options = args[1] as { signal?: AbortSignal } | undefined;
        options?.signal?.addEventListener("abort", settle, { once: true });
        question(...args, (answer: string) => {
          settle();
          callback(answer);
        });
      };
    },
    suspend() {
      erase();
      flushPartial();
      suspended += 1;
      let resumed = false;
      return () => {
        if (resumed) return;
        resumed = true;
        suspended -= 1;
        if (suspended === 0 && on) draw();
      };
    },
    queued(line) {
      if (!drawn || !rl) return;
      // readline left the submitted line on screen and moved below it: that row and the status row go.
      const columns = process.stdout.columns || 80;
      const prompt = _visibleLength(rl.getPrompt());
      const rows = line.split("\n").reduce((sum, piece, index) => sum + Math.floor(((index === 0 ? prompt : 0) + piece.length) / columns) + 1, 0);
      write(`\x1b[${rows + footerRows}A\r\x1b[J${style.dim(`queued: ${line.split("\n")[0]}`)}\n`);
      rl.prevRows = 0;
      drawn = false;
      draw();
    },
    tag(text) {
      mode = text;
      redraw();
    },
  };
}

// eslint-disable-next-line no-control-regex
const _visibleLength = (text: string): number => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").length;
