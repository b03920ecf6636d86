/**
 * The live tail of a running command, shown in the REPL's footer (status-line.ts) while it runs:
 * the last `LIVE_TAIL_LINES` lines it printed past the head the renderer prints
 * (`FOLD_HEAD_LINES`, renderer.ts), the line being written included once it has text. Lines are
 * cleaned for a one-row display: escape sequences and control characters stripped (terminal-text.ts), a `\r` overwrite
 * (a progress bar) keeps what was written last, tabs are spaces. One command at a time: output of
 * another call starts a new tail.
 */
import { FOLD_HEAD_LINES } from "./folds.ts";
import { stripControls } from "./terminal-text.ts";

export const LIVE_TAIL_LINES = 5;

export interface LiveTail {
  push(callId: string, chunk: string): void;
  clear(): void;
  /** At most LIVE_TAIL_LINES lines, oldest first; none while the output fits its head. */
  lines(): string[];
}

export function createLiveTail(): LiveTail {
  let id: string | undefined;
  let complete = 0;
  let recent: string[] = [];
  let partial = "";
  const clear = () => {
    id = undefined;
    complete = 0;
    recent = [];
    partial = "";
  };
  return {
    push(callId, chunk) {
      if (callId !== id) clear();
      id = callId;
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) {
        complete += 1;
        if (complete <= FOLD_HEAD_LINES) continue;
        recent.push(_clean(line));
        if (recent.length > LIVE_TAIL_LINES) recent.shift();
      }
    },
    clear,
    lines() {
      const writing = _clean(partial);
      const all = writing && complete >= FOLD_HEAD_LINES ? [...recent, writing] : recent;
      return all.slice(-LIVE_TAIL_LINES);
    },
  };
}

function _clean(line: string): string {
  const shown = line.replace(/\r+$/, "").split("\r").at(-1) ?? "";
  // Whole escape sequences (OSC, DCS, C1 CSI included) and every control go: terminal-text.ts.
  return stripControls(shown.replace(/\t/g, "  "));
}

/** `text` cut to fit one row of a terminal `columns` wide, its last column left free (wide characters take two cells), with `…` when cut. */
export function fitColumns(text: string, columns: number): string {
  const limit = columns - 1;
  const chars = [...text];
  if (chars.reduce((sum, char) => sum + _cells(char), 0) <= limit) return text;
  let used = 0;
  let out = "";
  for (const char of chars) {
    if (used + _cells(char) > limit - 1) break;
    used += _cells(char);
    out += char;
  }
  return `${out}…`;
}

const _cells = (char: string): number => (_wide(char.codePointAt(0)!) ? 2 : 1);
const _wide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) ||
  (code >= 0x2e80 && code <= 0xa4cf) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) ||
  (code >= 0xffe0 && code <= 0xffe6) ||
  (code >= 0x1f300 && code <= 0x1faff) ||
  (code >= 0x20000 && code <= 0x3fffd);
