/**
 * The `ask` tool's question in the REPL: the question, its options numbered `1.`…`9.`, then
 * `answer (a number or your own words) ` read through readline. Ctrl-C or Esc ends the turn,
 * which withdraws the question (undefined: the tool reports the interruption).
 */
import type { Interface } from "node:readline";
import type { Style } from "./style.ts";

export interface AskTerminal {
  readonly write: (text: string) => void;
  readonly style: Style;
  readonly rl?: Interface;
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
  return await new Promise<string | undefined>((resolve) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    terminal.rl!.question(options.length > 0 ? "answer (a number or your own words) " : "answer ", { signal }, (text) => {
      signal.removeEventListener("abort", onAbort);
      resolve(text);
    });
  });
}
