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
  const sentence = _sentence(options.write);
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
    const line = sentence(text, key);
    if (line !== undefined) done({ key: chosen, sentence: line });
    return true;
  });
}

/**
 * One line typed after `prompt`, read from the input line's keys (Backspace and Ctrl-U edit it,
 * Enter ends it), so text typed ahead on the input line stays there for the next prompt.
 * Undefined when `signal` aborts (Ctrl-C, Esc).
 */
export function readLine(source: KeySource, options: { prompt: string; write: (text: string) => void; signal?: AbortSignal }): Promise<string | undefined> {
  options.write(options.prompt);
  const sentence = _sentence(options.write);
  return _take(source, options.signal, (text, key, done) => {
    if (_passedOn(key)) return false;
    const line = sentence(text, key);
    if (line !== undefined) done(line);
    return true;
  });
}

/** Echoes and edits one line key by key; returns the line on Enter, else undefined. */
function _sentence(write: (text: string) => void): (text: string | undefined, key: KeyPress | undefined) => string | undefined {
  let typed = "";
  return (text, key) => {
    if (key?.name === "return" || key?.name === "enter") {
      write("\n");
      return typed;
    }
    if (key?.name === "backspace") {
      const last = [...typed].at(-1) ?? "";
      if (last) write("\b \b");
      typed = typed.slice(0, typed.length - last.length);
    } else if (key?.ctrl && key.name === "u") {
      write("\b \b".repeat([...typed].length));
      typed = "";
    } else if (text && !key?.ctrl && !key?.meta && !text.startsWith("\x1b")) {
      const clean = text.replace(/[\r\n]+/g, " ");
      typed += clean;
      write(clean);
    }
    return undefined;
  };
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
