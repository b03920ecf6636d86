/**
 * The REPL's session handling: the agent in use and how it is replaced (/provider, /resume,
 * /clear, a blocked run offered at start), and the approval question put in the terminal.
 * `ReplState` is what the REPL's parts share: the terminal and the turn in flight.
 */
import type { Interface } from "node:readline";
import { createAgent, type Agent } from "../agent/agent.ts";
import { type AgentFlags } from "../config/flags.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../approval/request.ts";
import { renderApprovalQuestion } from "./approval-view.ts";
import type { createRenderer } from "./renderer.ts";
import type { Style } from "./style.ts";
import { findSession } from "../store/sessions.ts";
import { shortSessionId } from "../store/short-ids.ts";

/** Flags that pin a provider, cleared once /provider (or the first-start setup) has saved one. */
export const USE_SAVED_PROVIDER: Partial<AgentFlags> = { provider: undefined, model: undefined, baseURL: undefined, protocol: undefined };
/** A session opened mid-REPL never re-applies -c / -r. */
const _NO_RESUME: Partial<AgentFlags> = { continue: false, resume: undefined };

export interface ReplState {
  readonly cwd: string;
  readonly flags: AgentFlags;
  readonly write: (text: string) => void;
  readonly style: Style;
  rl?: Interface;
  /** The turn in flight; aborting it interrupts the turn. */
  running?: AbortController;
}

/** Puts an approval question (y once | a always | n deny); Ctrl-C while it is open denies. */
export async function askApproval(state: ReplState, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const question = renderApprovalQuestion(request, state.cwd, state.style);
  state.write(question.text);
  // The question is withdrawn on Ctrl-C, so the next line typed is a prompt again, not a late answer.
  const signal = state.running?.signal;
  if (signal?.aborted) return "deny";
  const answer = await new Promise<string | undefined>((resolve) => {
    const onAbort = () => resolve(undefined);
    signal?.addEventListener("abort", onAbort, { once: true });
    state.rl!.question(question.choice, signal ? { signal } : {}, (text) => {
      signal?.removeEventListener("abort", onAbort);
      resolve(text);
    });
  });
  if (answer === undefined) return "deny";
  const key = answer.trim().toLowerCase();
  if (key === "" || key === "y" || key === "yes") return "once";
  if (key === "a" || key === "always") return "always";
  return "deny";
}

/** Opens a session with the start-up flags changed by `changes`; `sessionId` continues that one. */
export function openAgent(state: ReplState, changes: Partial<AgentFlags> = {}, sessionId?: string): Promise<Agent> {
  return createAgent({
    cwd: state.cwd, flags: { ...state.flags, ...changes }, mode: "interactive",
    decide: (request) => askApproval(state, request), ...(sessionId ? { sessionId } : {}),
  });
}

/** After /provider saved one: the same session continues with the saved provider. */
export async function reopenWithSavedProvider(state: ReplState, agent: Agent): Promise<Agent> {
  const sessionId = agent.session.messages.length > 0 ? agent.session.id : undefined;
  agent.close();
  const next = await openAgent(state, { ...USE_SAVED_PROVIDER, ..._NO_RESUME }, sessionId);
  state.write(`now using ${next.config.preset.id}/${next.model}\n`);
  return next;
}

/** /resume and /clear: another session opens (the current one is closed, so saved); undefined when nothing changed. */
export async function switchSession(state: ReplState, agent: Agent, sessionId: string | undefined): Promise<Agent | undefined> {
  const { write, style } = state;
  let next: Agent;
  try {
    if (sessionId && findSession(sessionId).id === agent.session.id) {
      write(`already in session ${shortSessionId(agent.session.id)}\n`);
      return undefined;
    }
    next = await openAgent(state, _NO_RESUME, sessionId);
  } catch (error) {
    write(style.red(`${messageOf(error)}\n`));
    return undefined;
  }
  agent.close();
  if (sessionId) write(`resumed ${shortSessionId(next.session.id)} (${next.session.messages.length} messages): ${next.session.title}\n`);
  else write(`new session ${shortSessionId(next.session.id)}\n`);
  return next;
}

/**
 * Runs blocked on an approval in this folder (`--approvals block`) are offered at start: the
 * newest one can be approved or denied here, and its run then continues in this REPL (in its
 * own session: `swapTo` makes that the REPL's agent, the current one closed).
 */
export async function offerPendingApprovals(state: ReplState, agent: Agent, swapTo: (next: Agent) => void, renderer: ReturnType<typeof createRenderer>): Promise<void> {
  const { write, style } = state;
  const { listPending, decide } = await import("../store/approvals.ts");
  const pending = listPending({ cwd: state.cwd }).filter((record) => record.runId);
  const newest = pending.at(-1);
  if (!newest) return;
  write(style.yellow(`${pending.length} blocked run${pending.length === 1 ? " waits" : "s wait"} for an approval in this folder (shiro approvals lists them)\n`));
  const choice = await new Promise<string>((resolve) => state.rl!.question(`${newest.tool} ${newest.subject.slice(0, 80)}: y approve and continue it here | n deny and continue it here | s skip `, resolve));
  const key = choice.trim().toLowerCase();
  if (key !== "y" && key !== "n") return;
  const decision = key === "y" ? "approved" : "denied";
  let current = agent;
  try {
    decide(newest.id, decision, "user");
    const { findRun } = await import("../store/runs.ts");
    const run = findRun(newest.runId!);
    if (current.session.id !== run.sessionId) {
      current = await openAgent(state, _NO_RESUME, run.sessionId);
      swapTo(current);
    }
    state.running = new AbortController();
    for await (const event of current.resumeRun(run, decision, state.running.signal)) renderer.render(event);
  } catch (error) {
    write(style.red(`${messageOf(error)}\n`));
  } finally {
    state.running = undefined;
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
