/**
 * Text that shiro did not write (notes, recalled passages, tool output, the model's answer, MCP
 * servers' names and descriptions, session titles) made safe to reach a terminal. Such text can
 * hold control sequences a terminal obeys: CSI (`ESC [`, or the one-byte C1 `\x9b`) to move the
 * cursor, clear the screen or recolour, OSC (`ESC ]`) to set the title, write the clipboard
 * (`ESC ]52;`) or plant a hyperlink (`ESC ]8;`), DCS/APC strings, BEL, and backspace or carriage
 * return to overwrite what was printed. The one rule for every printer in lib/ui: untrusted text
 * passes through here first, and shiro's own styling (lib/ui/style.ts) is added afterwards.
 *
 * Two treatments, docs/security.md "Terminal output":
 * - `showControls`, for listings and the REPL: every control character except `\n` and `\t` is
 *   replaced by its caret form, inert and visible: ESC `^[`, BEL `^G`, BS `^H`, a lone CR `^M`,
 *   NUL `^@`, DEL `^?`, and a C1 control by the 7-bit escape it stands for (`\x9b` `^[[`), so
 *   `\x1b]52;c;…\x07` prints as `^[]52;c;…^G`. A CR before LF (a Windows line end) and a CR
 *   ending the text are dropped, since neither can overwrite anything. Bidi embeddings,
 *   overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a line shows, are
 *   printed as `<U+202E>`.
 * - `createControlStripper` / `stripControls`, for the answer of `shiro -p` (and a replayed
 *   run's messages): the model's text exactly, minus what a terminal would act on: whole escape
 *   sequences (CSI, OSC, DCS, SOS, PM, APC to their terminator, two-character ESC sequences, the
 *   same introduced by C1 bytes) and every other C0 or C1 control except `\n` and `\t`. A string
 *   sequence (OSC…) left open ends at the next line break. Deltas may split a sequence: the
 *   stripper holds an unfinished one until the next chunk, and `end` drops what is still open.
 * JSON output never comes here: JSON escapes controls itself.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters being treated
const _CONTROL = /\r\n|[\x00-\x08\x0B-\x1F\x7F-\x9F]|[\u202A-\u202E\u2066-\u2069]/g;

/** `text` with every control character made visible (see the module comment). */
export function showControls(text: string): string {
  return text.replace(_CONTROL, (char: string, at: number) => {
    if (char === "\r\n") return "\n";
    if (char === "\r" && at === text.length - 1) return "";
    const code = char.charCodeAt(0);
    if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
    if (code === 0x7f) return "^?";
    if (code <= 0x9f) return `^[${String.fromCharCode(code - 0x40)}`;
    return `<U+${code.toString(16).toUpperCase()}>`;
  });
}

/** Every string inside `value` (an event, its input object) passed through `showControls`; other values as they are. */
export function showControlsDeep<T>(value: T): T {
  if (typeof value === "string") return showControls(value) as T;
  if (Array.isArray(value)) return value.map((item) => showControlsDeep(item)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = showControlsDeep(item);
    return out as T;
  }
  return value;
}

export interface ControlStripper {
  /** The printable part of `chunk`; an unfinished sequence at its end is held for the next. */
  push(chunk: string): string;
  /** Drops a sequence still unfinished; returns "" (kept for symmetry with push). */
  end(): string;
}

const _HOLD_CAP = 16 * 1024;
// biome-ignore lint/suspicious/noControlCharactersInRegex: a run of everything but the controls
const _PLAIN = /[^\x00-\x08\x0B-\x1F\x7F-\x9F]+/y;
const _ESC = "\x1b";

/** A stateful stripper for streamed text (see the module comment). */
export function createControlStripper(): ControlStripper {
  let held = "";
  return {
    push(chunk) {
      const text = held + chunk;
      held = "";
      let out = "";
      let at = 0;
      while (at < text.length) {
        _PLAIN.lastIndex = at;
        const plain = _PLAIN.exec(text);
        if (plain) {
          out += plain[0];
          at += plain[0].length;
          continue;
        }
        const end = _sequenceEnd(text, at);
        if (end === undefined) {
          // Unfinished at the end of the chunk: wait for the rest, unless it grew past reason.
          if (text.length - at <= _HOLD_CAP) held = text.slice(at);
          break;
        }
        at = end;
      }
      return out;
    },
    end() {
      held = "";
      return "";
    },
  };
}

/** `text` without terminal controls, in one piece. */
export function stripControls(text: string): string {
  const stripper = createControlStripper();
  return stripper.push(text) + stripper.end();
}

/**
 * Where the control or sequence starting at `at` ends (the index after it), or undefined when
 * the text ends before it does.
 */
function _sequenceEnd(text: string, at: number): number | undefined {
  const char = text[at]!;
  let kind: "csi" | "string" | "osc" | "escape" | "single";
  let next = at + 1;
  if (char === _ESC) {
    if (next >= text.length) return undefined;
    const second = text[next]!;
    if (second === "[") kind = "csi";
    else if (second === "]") kind = "osc";
    else if ("PX^_".includes(second)) kind = "string";
    else kind = "escape";
    if (kind !== "escape") next++;
  } else {
    const code = char.charCodeAt(0);
    kind = code === 0x9b ? "csi" : code === 0x9d ? "osc" : code === 0x90 || code === 0x98 || code === 0x9e || code === 0x9f ? "string" : "single";
  }
  if (kind === "single") return next;
  if (kind === "escape") {
    // ESC, intermediates 0x20–0x2F, a final 0x30–0x7E; anything else ends it (only the ESC goes).
    while (next < text.length && _between(text, next, 0x20, 0x2f)) next++;
    if (next >= text.length) return undefined;
    return _between(text, next, 0x30, 0x7e) ? next + 1 : at + 1;
  }
  if (kind === "csi") {
    while (next < text.length && _between(text, next, 0x30, 0x3f)) next++;
    while (next < text.length && _between(text, next, 0x20, 0x2f)) next++;
    if (next >= text.length) return undefined;
    return _between(text, next, 0x40, 0x7e) ? next + 1 : next;
  }
  // A string (OSC, DCS, SOS, PM, APC): to BEL (OSC), ST (ESC \ or 0x9C), or the next line break.
  while (next < text.length) {
    const code = text.charCodeAt(next);
    if (code === 0x9c || (code === 0x07 && kind === "osc")) return next + 1;
    if (code === 0x0a) return next;
    if (code === 0x1b) {
      if (next + 1 >= text.length) return undefined;
      return text[next + 1] === "\\" ? next + 2 : next;
    }
    next++;
  }
  return undefined;
}

function _between(text: string, at: number, low: number, high: number): boolean {
  const code = text.charCodeAt(at);
  return code >= low && code <= high;
}
