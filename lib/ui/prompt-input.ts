/**
 * Whole prompts out of readline's single lines, on a terminal:
 * - a bracketed paste is one piece of the prompt however many lines it has, shown collapsed as
 *   `[pasted 42 lines] first line`, expanded when the line is submitted;
 * - a line ending in `\`, or Alt-Enter / Ctrl-J, continues the prompt on the next line (`… `);
 * - Ctrl-R searches the history (type to narrow, Ctrl-R again for older, Enter runs, Esc keeps the line);
 * - Esc is offered to `onEscape` first (a running turn is interrupted there).
 * The Up/Down history is kept here (readline's own is off, so approval answers never enter it);
 * a prompt of several lines is one entry, recalled whole on the input line and editable on every
 * line: Up and Down move between its lines, and reach the history only from its first or last
 * line; Ctrl-J or Alt-Enter in it adds a line at the cursor. One longer than `_EDITABLE_LINES`
 * is recalled collapsed, like a paste.
 * Contract: `take` is called with every line readline submits outside a question; it returns the
 * whole prompt or undefined while the prompt continues, and records a finished one in the history.
 */
import type { Interface } from "node:readline";
import { isRemembered } from "../store/history.ts";

/** One key as readline's keypress parser reports it. */
export interface KeyPress {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}
type _Key = KeyPress;

/** Takes every key while set (a one-key question), the line being typed left as it is; false passes a key on (Ctrl-C, Esc). */
export type KeyHandler = (text: string | undefined, key: KeyPress | undefined) => boolean;

/** The parts of node's readline Interface this module drives (present in node and bun). */
interface _Readline extends Interface {
  _ttyWrite(text: string | undefined, key: _Key | undefined): void;
  _insertString(text: string): void;
  _refreshLine(): void;
  line: string;
  cursor: number;
  history: string[];
  historyIndex: number;
  prevRows?: number;
  output?: NodeJS.WriteStream;
}

export interface PromptInputOptions {
  /** The normal prompt and the one shown on continuation lines. */
  prompt: string;
  continuation: string;
  /** Older prompts, oldest first (each may have several lines). */
  history: readonly string[];
  /** Called on Esc; returns true when it used the key (a turn was interrupted). */
  onEscape: () => boolean;
  /** Offered every key before the line sees it (Shift+Tab, Ctrl-O); true when it used the key. */
  onKey?: (text: string | undefined, key: KeyPress | undefined) => boolean;
  /** Keeps a whole prompt worth remembering (not `/exit`, `/quit`) in the project's history file. */
  record: (prompt: string) => void;
}

export interface PromptInput {
  /** A submitted line → the whole prompt (pastes expanded, continued lines joined), or undefined while it continues. */
  take(line: string): string | undefined;
  /**
   * Ctrl-C with no turn running: a half-typed prompt (line, continued lines, a search) is
   * "cleared"; on an empty prompt the first is "warned", a second within 2 s means "exit".
   */
  ctrlC(now?: number): "cleared" | "warned" | "exit";
  /** Sends every key to `handler` instead of the line until called with undefined. */
  intercept(handler: KeyHandler | undefined): void;
}

const _HISTORY_SIZE = 200;
const _EXIT_WINDOW_MS = 2_000;
const _SHOWN_FIRST_LINE = 60;
const _EDITABLE_LINES = 20;

export function attachPromptInput(readline: Interface, options: PromptInputOptions): PromptInput {
  const rl = readline as _Readline;
  const original = rl._ttyWrite.bind(rl);
  /** Collapsed text shown in the line → the text it stands for. */
  const expansions = new Map<string, string>();
  const parts: string[] = [];
  let pasting: string | undefined;
  let continueNext = false;
  let lastIdleCtrlC = Number.NEGATIVE_INFINITY;
  let search: { query: string; at: number; line: string; cursor: number } | undefined;
  let interceptor: KeyHandler | undefined;

  const collapse = (text: string, label: string): string => {
    const lines = text.split("\n");
    const first = lines.find((line) => line.trim() !== "")?.trim() ?? "";
    const head = label ? `${label} ` : "";
    let shown = `[${head}${lines.length} lines] ${first.slice(0, _SHOWN_FIRST_LINE)}${first.length > _SHOWN_FIRST_LINE ? "…" : ""}`;
    for (let n = 2; expansions.has(shown) && expansions.get(shown) !== text; n++)
      shown = `[${head}${lines.length} lines #${n}] ${first.slice(0, _SHOWN_FIRST_LINE)}`;
    expansions.set(shown, text);
    return shown;
  };
  const expand = (line: string): string => {
    let text = line;
    for (const [shown, full] of expansions) if (text.includes(shown)) text = text.split(shown).join(full);
    return text;
  };
  const setLine = (line: string) => {
    rl.line = line;
    rl.cursor = line.length;
    rl._refreshLine();
  };
  const remember = (prompt: string) => {
    const entry = prompt.split("\n").length > _EDITABLE_LINES ? collapse(prompt, "") : prompt;
    if (rl.history[0] === entry) return;
    rl.history.unshift(entry);
    if (rl.history.length > _HISTORY_SIZE) rl.history.length = _HISTORY_SIZE;
  };
  // A terminal reflows a wrapped line to its new width, cursor included; readline would redraw
  // from the row the cursor had at the old width, leaving part of the old line (or eating the
  // rows above it). Runs before readline's own resize handler.
  rl.output?.prependListener?.("resize", () => {
    rl.prevRows = rl.getCursorPos().rows;
  });
  rl.setPrompt(options.prompt);
  rl.history = [];
  for (const prompt of options.history) remember(prompt);

  const findOlder = (from: number): number => {
    const wanted = search!.query.toLowerCase();
    for (let index = from; index < rl.history.length; index++) if (expand(rl.history[index]!).toLowerCase().includes(wanted)) return index;
    return -1;
  };
  const showSearch = (failed = false) => {
    rl.setPrompt(`(search${failed ? ", no match" : ""}) '${search!.query}': `);
    setLine(search!.at >= 0 ? rl.history[search!.at]! : "");
  };
  const endSearch = (restore: boolean) => {
    const kept = restore ? search! : undefined;
    search = undefined;
    rl.setPrompt(parts.length > 0 ? options.continuation : options.prompt);
    if (kept) {
      rl.line = kept.line;
      rl.cursor = kept.cursor;
    }
    rl._refreshLine();
  };
  const onSearchKey = (text: string | undefined, key: _Key | undefined): boolean => {
    if (key?.ctrl && key.name === "r") {
      const next = findOlder(search!.at + 1);
      if (next >= 0) search!.at = next;
      showSearch(next < 0);
      return true;
    }
    if (key?.name === "escape" || (key?.ctrl && (key.name === "g" || key.name === "c"))) {
      endSearch(true);
      return true;
    }
    if (key?.name === "backspace") {
      search!.query = search!.query.slice(0, -1);
      search!.at = findOlder(0);
      showSearch(search!.at < 0);
      return true;
    }
    if (text && text.length === 1 && text >= " " && !key?.ctrl && !key?.meta) {
      search!.query += text;
      const next = findOlder(Math.max(0, search!.at));
      search!.at = next;
      showSearch(next < 0);
      return true;
    }
    endSearch(false);
    return false;
  };

  /** Moves the cursor to the line above (-1) or below (1) in a line of several, same column or its end; false on the edge line. */
  const moveLine = (direction: -1 | 1): boolean => {
    const line = rl.line;
    const start = line.lastIndexOf("\n", rl.cursor - 1) + 1;
    const column = rl.cursor - start;
    if (direction < 0) {
      if (start === 0) return false;
      const above = line.lastIndexOf("\n", start - 2) + 1;
      rl.cursor = above + Math.min(column, start - 1 - above);
    } else {
      const end = line.indexOf("\n", rl.cursor);
      if (end < 0) return false;
      const next = line.indexOf("\n", end + 1);
      rl.cursor = end + 1 + Math.min(column, (next < 0 ? line.length : next) - end - 1);
    }
    rl._refreshLine();
    return true;
  };

  rl._ttyWrite = (text, key) => {
    if (interceptor?.(text, key)) return;
    if (key?.name === "paste-start") {
      pasting = "";
      return;
    }
    if (pasting !== undefined) {
      if (key?.name !== "paste-end") {
        pasting += text ?? "";
        return;
      }
      const pasted = pasting.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
      pasting = undefined;
      rl._insertString(pasted.includes("\n") ? collapse(pasted, "pasted") : pasted);
      return;
    }
    if (search && onSearchKey(text, key)) return;
    if (key?.ctrl && key.name === "r" && rl.history.length > 0) {
      search = { query: "", at: 0, line: rl.line, cursor: rl.cursor };
      showSearch();
      return;
    }
    if (key?.name === "escape" && options.onEscape()) return;
    if (options.onKey?.(text, key)) return;
    const several = rl.line.includes("\n");
    if (several && !key?.ctrl && !key?.meta && (key?.name === "up" || key?.name === "down") && moveLine(key.name === "up" ? -1 : 1)) return;
    // Alt-Enter arrives as ESC CR, Ctrl-J as a bare LF ("enter"); Enter itself sends CR ("return").
    const newLine = (key?.name === "return" && key.meta) || (key?.name === "enter" && text === "\n");
    if (newLine && several) {
      rl._insertString("\n");
      return;
    }
    if (newLine) {
      continueNext = true;
      original("\r", { name: "return" });
      return;
    }
    original(text, key);
  };

  return {
    take(line) {
      // readline's own history is off, so it never resets where Up starts: the newest entry, after every line.
      rl.historyIndex = -1;
      const expanded = expand(line);
      const byKey = continueNext;
      continueNext = false;
      if (byKey || /(?<!\\)\\$/.test(line)) {
        parts.push(byKey ? expanded : expanded.replace(/\\$/, ""));
        rl.setPrompt(options.continuation);
        return undefined;
      }
      const whole = [...parts, expanded].join("\n");
      parts.length = 0;
      rl.setPrompt(options.prompt);
      if (isRemembered(whole)) {
        options.record(whole.trim());
        remember(whole.trim());
      }
      return whole;
    },
    intercept(handler) {
      interceptor = handler;
    },
    ctrlC(now = Date.now()) {
      if (search) endSearch(true);
      if (rl.line !== "" || parts.length > 0) {
        parts.length = 0;
        continueNext = false;
        rl.line = "";
        rl.cursor = 0;
        rl.setPrompt(options.prompt);
        return "cleared";
      }
      if (now - lastIdleCtrlC < _EXIT_WINDOW_MS) return "exit";
      lastIdleCtrlC = now;
      return "warned";
    },
  };
}
