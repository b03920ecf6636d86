/**
 * The `ask` tool's question in the REPL: the question, its options numbered `1.`…`9.`, then
 * `answer (a number or your own words) `. On a terminal the answer is read from the input line's
 * keys (key-question.ts readLine), not by a readline question, so a prompt typed ahead while the
 * turn ran stays on the input line, whole, for after the turn; off a terminal it is the next
 * line. Ctrl-C or Esc ends the turn, which withdraws the question (undefined: the tool reports
 * the interruption).
 */
import type { Interface } from "node:readline";
import { readLine, type KeySource } from "./key-question.ts";
import type { Style } from "./style.ts";

export interface AskTerminal {
  readonly write: (text: string) => void;
  readonly style: Style;
  readonly rl?: Interface;
  /** On a terminal: keys read one at a time from the input line. */
  readonly keys?: KeySource;
  /** Holds the turn's output while the question is open; the returned function releases it. */
  readonly holdOutput?: () => () => void;
}

export async function askUserInTerminal(terminal: AskTerminal, question: string, options: readonly string[], signal: AbortSignal): Promise<string | undefined> {
  const release = terminal.holdOutput?.();
  try {
    return await _ask(terminal, question, options, signal);
  } finally {
    release?.();
  }
}

async function _ask(terminal: AskTerminal, question: string, options: readonly string[], signal: AbortSignal): Promise<string | undefined> {
  const { write, style } = terminal;
  write(`${style.yellow("? ")}${question}\n`);
  options.forEach((option, index) => write(`  ${index + 1}. ${option}\n`));
  if (signal.aborted) return undefined;
  const prompt = options.length > 0 ? "answer (a number or your own words) " : "answer ";
  if (terminal.keys) return await readLine(terminal.keys, { prompt, write, signal });
  return await new Promise<string | undefined>((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    terminal.rl!.question(prompt, { signal }, (text) => {
      signal.removeEventListener("abort", onAbort);
      resolve(text);
    });
  });
}
