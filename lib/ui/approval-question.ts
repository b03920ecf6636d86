/**
 * The approval question in the REPL's terminal: the session's mode may answer it first
 * (session-mode.ts); otherwise the request is rendered (approval-view.ts) and answered on a
 * terminal by one key, no Enter: `y` (or Enter) once, `a` always, `n` deny, after which one line
 * "tell the model why" is read and reaches the model with the denial. Without a terminal (a pipe)
 * the answer is a line: `y`, `a`, `n`, or `n` followed by the sentence. Ctrl-C or Esc while it is
 * open ends the turn, which withdraws the question and denies, so the next line typed is a prompt
 * again. While it is open the turn's own output is held (held-output.ts) and printed after.
 */
import type { Interface } from "node:readline";
import type { ApprovalAnswer, ApprovalRequest } from "../approval/request.ts";
import { renderApprovalQuestion } from "./approval-view.ts";
import { readChoice, type KeySource } from "./key-question.ts";
import { answerByMode, type SessionMode } from "./session-mode.ts";
import type { Style } from "./style.ts";

/** What the question needs of the REPL: its terminal and the turn in flight. */
export interface ApprovalTerminal {
  readonly cwd: string;
  readonly write: (text: string) => void;
  readonly style: Style;
  readonly rl?: Interface;
  /** On a terminal: keys read one at a time from the input line. */
  readonly keys?: KeySource;
  /** The session's approval mode; absent means `ask`. */
  readonly mode?: SessionMode;
  readonly running?: AbortController;
  /** Holds the turn's output while the question is open; the returned function releases it. */
  readonly holdOutput?: () => () => void;
}

export const DENY_REASON_PROMPT = "tell the model why (Enter to skip): ";

export async function askApproval(terminal: ApprovalTerminal, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const byMode = answerByMode(terminal.mode ?? "ask", request);
  if (byMode !== undefined) {
    const verb = byMode === "once" ? "allowed" : "denied";
    terminal.write(terminal.style.dim(`${terminal.mode}: ${verb} ${request.tool} ${request.subject.slice(0, 80)}\n`));
    return byMode;
  }
  const release = terminal.holdOutput?.();
  try {
    return terminal.keys ? await _askByKey(terminal, terminal.keys, request) : await _askByLine(terminal, request);
  } finally {
    release?.();
  }
}

async function _askByKey(terminal: ApprovalTerminal, keys: KeySource, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const { write, style } = terminal;
  const question = renderApprovalQuestion(request, terminal.cwd, style);
  write(question.text);
  write(question.choice);
  const signal = terminal.running?.signal;
  const offered = question.choice.includes("| a ") ? ["y", "a", "n", "enter"] : ["y", "n", "enter"];
  const choice = await readChoice(keys, {
    keys: offered,
    sentenceAfter: ["n"],
    write,
    signal,
    onChoice: (key) => write(`${key === "enter" ? "y" : key}\n${key === "n" ? style.dim(DENY_REASON_PROMPT) : ""}`),
  });
  if (choice === undefined) {
    write("\n");
    return "deny";
  }
  if (choice.key === "y" || choice.key === "enter") return "once";
  if (choice.key === "a") return "always";
  return choice.sentence?.trim() ? { deny: choice.sentence.trim() } : "deny";
}

async function _askByLine(terminal: ApprovalTerminal, request: ApprovalRequest): Promise<ApprovalAnswer> {
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
  return parseApprovalLine(answer);
}

/** A typed answer: empty, `y`, `yes` → once; `a`, `always` → always; `n <sentence>` → a denial with it; anything else denies. */
export function parseApprovalLine(answer: string | undefined): ApprovalAnswer {
  const text = answer?.trim() ?? "n";
  const key = text.toLowerCase();
  if (key === "" || key === "y" || key === "yes") return "once";
  if (key === "a" || key === "always") return "always";
  const sentence = /^(?:n|no)\b[\s,:.-]*(.+)$/i.exec(text)?.[1];
  return sentence ? { deny: sentence } : "deny";
}
