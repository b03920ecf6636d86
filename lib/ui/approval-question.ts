/**
 * The approval question in the REPL's terminal: the request rendered (approval-view.ts),
 * then `y once | a always | n deny` read through readline. Ctrl-C or Esc while it is open ends the
 * turn, which withdraws the question and denies, so the next line typed is a prompt again, not a
 * late answer.
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
}

export async function askApproval(terminal: ApprovalTerminal, request: ApprovalRequest): Promise<ApprovalAnswer> {
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
