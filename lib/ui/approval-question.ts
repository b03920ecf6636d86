/**
 * The approval question in the REPL's terminal: the session's mode may answer it first
 * (session-mode.ts); otherwise the request is rendered (approval-view.ts) and answered on a
 * terminal by one key, no Enter: `y` (or Enter) once, `a` always, `n` deny, after which one line
 * "tell the model why" is read and reaches the model with the denial. Without a terminal (a pipe)
 * the answer is a line: `y`, `a`, `n`, or `n` followed by the sentence. Ctrl-C or Esc while it is
 * open ends the turn, which withdraws the question and denies, so the next line typed is a prompt
 * again. While it is open the turn's own output is held (held-output.ts) and printed after.
 *
 * On a terminal, when "always" can be spelled as a project rule (allowRuleFor), `p` offers it
 * for this project: the rule and the file are shown, and only `y` to `write it?` writes it
 * (lib/store/project-settings.ts addProjectAllowRule); either way the session grant is given.
 * It is offered only where the saved rule would allow the call: a deny or an ask rule of any
 * source outvotes an allow (lib/approval/rules.ts), so a rule it could not make true is not offered.
 */
import type { Interface } from "node:readline";
import { allowRuleFor, claudeRuleLayers, type ClaudeRuleTool } from "../approval/claude-rules.ts";
import { evaluatePermission, matchPattern, type PermissionRules } from "../approval/rules.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../approval/request.ts";
import { findProjectRoot } from "../config/project.ts";
import { addProjectAllowRule, LOCAL_SETTINGS_FILE } from "../store/project-settings.ts";
import { renderApprovalQuestion } from "./approval-view.ts";
import { readChoice, type KeySource } from "./key-question.ts";
import { answerByMode, type SessionMode } from "./session-mode.ts";
import type { Style } from "./style.ts";
import { showControls } from "./terminal-text.ts";

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
  /** The session's tools, which project rules are spelled for; absent: "always in this project" is not offered. */
  readonly tools?: () => readonly ClaudeRuleTool[];
  /** The session's permission rules, every source: a project rule is offered only where, saved, it would allow the call. */
  readonly rules?: () => PermissionRules;
}

export const DENY_REASON_PROMPT = "tell the model why (Enter to skip): ";

export async function askApproval(terminal: ApprovalTerminal, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const byMode = answerByMode(terminal.mode ?? "ask", request);
  if (byMode !== undefined) {
    const verb = byMode === "once" ? "allowed" : "denied";
    terminal.write(terminal.style.dim(`${terminal.mode}: ${verb} ${showControls(request.tool)} ${showControls(request.subject.slice(0, 80))}\n`));
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
  const root = findProjectRoot(terminal.cwd);
  const rule = projectRuleFor(terminal, request, root);
  const question = renderApprovalQuestion(request, terminal.cwd, style, rule);
  write(question.text);
  write(question.choice);
  const signal = terminal.running?.signal;
  const offered = [...(question.choice.includes("| a ") ? ["y", "a", "n", "enter"] : ["y", "n", "enter"]), ...(rule ? ["p"] : [])];
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
  if (choice.key === "p") return await _saveForProject(terminal, keys, rule!, root);
  return choice.sentence?.trim() ? { deny: choice.sentence.trim() } : "deny";
}

/**
 * The Claude Code rule `p` would save for `request` in the project at `root`, or undefined when
 * none is offered: no tools to spell it for, a question "always" does not answer (a possible
 * secret, a guard plugin's, the sandbox's), no spelling, or the rules (every source, the rule
 * added as `.claude/settings.local.json` would add it) would still not allow the calls it covers.
 */
export function projectRuleFor(terminal: Pick<ApprovalTerminal, "tools" | "rules" | "cwd">, request: ApprovalRequest, root: string): string | undefined {
  if (!terminal.tools || request.secret || request.plugin || request.sandbox !== undefined) return undefined;
  const places = { root, cwd: terminal.cwd };
  const rule = allowRuleFor(request.tool, request.suggestedPattern, terminal.tools(), places);
  if (!rule || !terminal.rules) return rule;
  const saved = claudeRuleLayers([{ decision: "allow", rule, source: LOCAL_SETTINGS_FILE }], terminal.tools(), places).layers;
  const covered = request.subjects.filter((subject) => matchPattern(request.suggestedPattern, subject));
  if (covered.length === 0 && request.subjects.length > 0) return undefined;
  return evaluatePermission(terminal.rules(), request.tool, covered, saved).decision === "allow" ? rule : undefined;
}

/** Shows the rule and where it goes, writes it on `y`; the call is allowed for the session either way. */
async function _saveForProject(terminal: ApprovalTerminal, keys: KeySource, rule: string, root: string): Promise<ApprovalAnswer> {
  const { write, style } = terminal;
  write(`allow in this project, added to ${LOCAL_SETTINGS_FILE}:\n  ${style.bold(`"permissions": { "allow": [${showControls(JSON.stringify(rule))}] }`)}\n`);
  write("write it? y write it | n this session only ");
  const confirmed = await readChoice(keys, {
    keys: ["y", "n"],
    write,
    signal: terminal.running?.signal,
    onChoice: (key) => write(`${key}\n`),
  });
  if (confirmed === undefined) {
    write("\n");
    return "deny";
  }
  if (confirmed.key === "n") {
    write(style.dim("not written: allowed for this session only\n"));
    return "always";
  }
  try {
    write(style.dim(`saved ${showControls(rule)} to ${addProjectAllowRule(root, rule)}\n`));
  } catch (error) {
    write(style.yellow(`not saved: ${error instanceof Error ? error.message : String(error)}; allowed for this session only\n`));
  }
  return "always";
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
