/**
 * Questions answered by one key on a terminal, without Enter, and the one-line sentence that may
 * follow. Keys are taken from the prompt input (prompt-input.ts `intercept`), so whatever was
 * typed ahead on the input line stays there, untouched. Ctrl-C and Esc are passed on (they end
 * the turn, which aborts `signal`): the answer is then undefined.
 */
import type { KeyHandler, KeyPress } from "./prompt-input.ts";

/** What a question needs of the input line. */
export interface KeySource {
  intercept(handler: KeyHandler | undefined): void;
}

/** The key chosen and, when the key asks for one, the sentence typed after it. */
export interface KeyChoice {
  key: string;
  sentence?: string;
}

export interface KeyChoiceOptions {
  /** Lowercase letters; "enter" for Enter. */
  keys: readonly string[];
  /** Keys after which one line is read (Backspace edits it; Enter ends it). */
  sentenceAfter?: readonly string[];
  /** Shows the key chosen (and what the sentence is for); the sentence's echo follows. */
  onChoice: (key: string) => void;
  write: (text: string) => void;
  signal?: AbortSignal;
}

/**
 * Waits for one of `keys`, then, after a `sentenceAfter` key, for one line. Keys typed in one
 * burst (`n` then the sentence then Enter) are all taken, in order. Undefined when `signal` aborts.
 */
export function readChoice(source: KeySource, options: KeyChoiceOptions): Promise<KeyChoice | undefined> {
  let chosen: string | undefined;
  let typed = "";
  return _take(source, options.signal, (text, key, done) => {
    if (_passedOn(key)) return false;
    const enter = key?.name === "return" || key?.name === "enter";
    if (chosen === undefined) {
      const letter = enter ? "enter" : text?.toLowerCase();
      if (!letter || !options.keys.includes(letter)) return true;
      chosen = letter;
      options.onChoice(letter);
      if (!options.sentenceAfter?.includes(letter)) done({ key: letter });
      return true;
    }
    if (enter) {
      options.write("\n");
      done({ key: chosen, sentence: typed });
    } else if (key?.name === "backspace") {
      if (typed.length > 0) options.write("\b \b");
      typed = typed.slice(0, -1);
    } else if (text && !key?.ctrl && !key?.meta && !text.startsWith("\x1b")) {
      const clean = text.replace(/[\r\n]+/g, " ");
      typed += clean;
      options.write(clean);
    }
    return true;
  });
}

const _passedOn = (key: KeyPress | undefined): boolean => key?.name === "escape" || (key?.ctrl === true && key.name === "c");

function _take<T>(
  source: KeySource,
  signal: AbortSignal | undefined,
  onKey: (text: string | undefined, key: KeyPress | undefined, done: (value: T) => void) => boolean,
): Promise<T | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const finish = (value: T | undefined) => {
      source.intercept(undefined);
      signal?.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = () => finish(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
    source.intercept((text, key) => onKey(text, key, finish));
  });
}
