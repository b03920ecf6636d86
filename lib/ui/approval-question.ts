/**
 * The approval question in the REPL's terminal: the request rendered (approval-view.ts),
 * then `y once | a always | n deny` read through readline. Ctrl-C or Esc while it is open ends the
 * turn, which withdraws the question and denies, so the next line typed is a prompt again, not a
 * late answer. While it is open the turn's own output is held (held-output.ts) and printed after.
 */
import type { Interface } from "node:readline";
import type { ApprovalAnswer, ApprovalRequest } from "../approval/request.ts";
import { renderApprovalQuestion } from "./approval-view.ts";
import type { Style } from "./style.ts";

/** What the question needs of the REPL: its terminal and the turn in flight. */
export interface ApprovalTerminal {
  readonly cwd: string;
  readonly write: (text: string) => void;
  readonly style: Style;
  readonly rl?: Interface;
  readonly running?: AbortController;
  /** Holds the turn's output while the question is open; the returned function releases it. */
  readonly holdOutput?: () => () => void;
}

export async function askApproval(terminal: ApprovalTerminal, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const release = terminal.holdOutput?.();
  try {
    return await _ask(terminal, request);
  } finally {
    release?.();
  }
}

async function _ask(terminal: ApprovalTerminal, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const question = renderApprovalQuestion(request, terminal.cwd, terminal.style);
  terminal.write(question.text);
  const signal = terminal.running?.signal;
  if (signal?.aborted) return "deny";
  const answer = await new Promise<string | undefined>((resolve) => {
    const onAbort = () => resolve(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
    terminal.rl!.question(question.choice, signal ? { signal } : {}, (text) => {
      signal?.removeEventListener("abort", onAbort);
      resolve(text);
    });
  });
  const key = answer?.trim().toLowerCase() ?? "n";
  if (key === "" || key === "y" || key === "yes") return "once";
  if (key === "a" || key === "always") return "always";
  return "deny";
}
