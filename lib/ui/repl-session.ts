/**
 * The REPL's session handling: the agent in use and how it is replaced (/provider, /resume,
 * /clear, a blocked run offered at start), and the approval question put in the terminal.
 * `ReplState` is what the REPL's parts share: the terminal and the turn in flight.
 */
import type { Interface } from "node:readline";
import { MissingKeyError } from "../agent/session-start.ts";
import { createAgent, type Agent } from "../agent/agent.ts";
import { type AgentFlags } from "../config/flags.ts";
import { findProjectRoot } from "../config/project.ts";
import { runProviderSetup } from "./onboarding.ts";
import { writeErr } from "./output.ts";
import { askApproval } from "./approval-question.ts";
import { askUserInTerminal } from "./ask-question.ts";
import { askAgentsTrust, askProjectTrust, askRepoNotesTrust, askSettingsTrust } from "./project-trust.ts";
import type { createRenderer } from "./renderer.ts";
import type { Style } from "./style.ts";
import type { KeySource } from "./key-question.ts";
import type { SessionMode } from "./session-mode.ts";
import type { ClaudeRuleTool } from "../approval/claude-rules.ts";
import type { PermissionRules } from "../approval/rules.ts";
import { findSession } from "../store/sessions.ts";
import { isInside } from "../platform/path-inside.ts";
import type { SlashOutcome } from "./slash/command.ts";
import { shortSessionId } from "../store/short-ids.ts";
import { assistantText, type Message } from "../messages.ts";

/** Flags that pin a provider, cleared once /provider (or the first-start setup) has saved one. */
export const USE_SAVED_PROVIDER: Partial<AgentFlags> = { provider: undefined, model: undefined, baseURL: undefined, protocol: undefined };
const _NO_RESUME: Partial<AgentFlags> = { continue: false, resume: undefined };

export interface ReplState {
  readonly cwd: string;
  readonly flags: AgentFlags;
  readonly write: (text: string) => void;
  readonly style: Style;
  rl?: Interface;
  /** The turn in flight; aborting it interrupts the turn. */
  running?: AbortController;
  /** Holds the turn's output while a question is open (held-output.ts). */
  holdOutput?: () => () => void;
  /** On a terminal: keys read one at a time for one-key questions. */
  keys?: KeySource;
  /** The session's approval mode (session-mode.ts). */
  mode: SessionMode;
  /** Switches the mode (and shows it in the status line). */
  setMode?: (mode: SessionMode) => void;
  /** The session's tools (project rules are spelled for them) and permission rules (every source). */
  tools?: () => readonly ClaudeRuleTool[];
  rules?: () => PermissionRules;
}

/** The first session (after the trust question for a project .mcp.json); with no key, the provider setup first. Undefined when none was set up. */
export async function openFirstAgent(state: ReplState): Promise<Agent | undefined> {
  await askProjectTrust(state.cwd, state.flags.noMcp === true, state.write, state.style);
  await askRepoNotesTrust(state.cwd, state.flags.noMemory === true, state.write, state.style);
  await askSettingsTrust(state.cwd, state.write, state.style);
  await askAgentsTrust(state.cwd, state.flags.noSubagent === true, state.write, state.style);
  try {
    return await openAgent(state);
  } catch (error) {
    if (!(error instanceof MissingKeyError)) throw error;
    state.write(`${state.style.dim(error.message)}\n`);
    if (!(await runProviderSetup())) return undefined;
    return await openAgent(state, USE_SAVED_PROVIDER);
  }
}

/** Opens a session with the start-up flags changed by `changes`; `sessionId` continues that one. */
export function openAgent(state: ReplState, changes: Partial<AgentFlags> = {}, sessionId?: string, sessionSource?: "clear"): Promise<Agent> {
  return createAgent({
    cwd: state.cwd,
    flags: { ...state.flags, ...changes },
    mode: "interactive",
    decide: (request) => askApproval(state, request),
    askUser: (question, options, signal) => askUserInTerminal(state, question, options, signal),
    writeStderr: writeErr,
    ...(sessionId ? { sessionId } : {}),
    ...(sessionSource ? { sessionSource } : {}),
  });
}

/** Runs `work` with readline paused, so @clack/prompts may own the terminal; raw mode is restored after. */
async function _withTerminal<T>(state: ReplState, work: () => Promise<T>): Promise<T> {
  state.rl?.pause();
  try {
    return await work();
  } finally {
    if (process.stdin.isTTY) process.stdin.setRawMode(true);
    state.rl?.resume();
  }
}

/** What a slash command asked of the REPL: another session (/resume, /clear), a provider set up (/provider), or extensions changed (/mcp add, /registry add: this session reopened with them). */
export async function applySlashOutcome(state: ReplState, agent: Agent, outcome: SlashOutcome): Promise<Agent> {
  if (outcome.kind === "switch-session") return (await switchSession(state, agent, outcome.sessionId)) ?? agent;
  if (outcome.kind === "provider-setup") return (await _withTerminal(state, runProviderSetup)) ? await reopenWithSavedProvider(state, agent) : agent;
  if (outcome.kind !== "reload") return agent;
  const changed = await _withTerminal(state, outcome.change).catch((error: unknown) => void state.write(state.style.red(`${messageOf(error)}\n`)));
  if (!changed) return agent;
  const sessionId = agent.session.messages.length > 0 ? agent.session.id : undefined;
  agent.close();
  const next = await openAgent(state, _NO_RESUME, sessionId);
  state.write(
    state.style.dim(`reloaded: ${next.skills.length} skills, ${next.mcpStatus().length} MCP servers (connecting in the background), the same session\n`),
  );
  return next;
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
    const target = sessionId ? findSession(sessionId) : undefined;
    if (target?.id === agent.session.id) {
      write(`already in session ${shortSessionId(agent.session.id)}\n`);
      return undefined;
    }
    // A session of another folder is asked about: its paths and its memory belong to that project.
    if (target && !isInside(findProjectRoot(state.cwd), target.cwd)) {
      const answer = await new Promise<string>((resolve) =>
        state.rl!.question(`session ${shortSessionId(target.id)} was started in ${target.cwd}; continue it here? y | n `, resolve),
      );
      if (!["y", "yes"].includes(answer.trim().toLowerCase())) return void write("not resumed\n");
    }
    next = await openAgent(state, _NO_RESUME, sessionId, sessionId ? undefined : "clear");
  } catch (error) {
    write(style.red(`${messageOf(error)}\n`));
    return undefined;
  }
  agent.close(sessionId ? "other" : "clear");
  if (sessionId) {
    write(`resumed ${shortSessionId(next.session.id)} (${next.session.messages.length} messages): ${next.session.title}\n`);
    write(style.dim(formatRecap(next.session.messages)));
  } else write(`new session ${shortSessionId(next.session.id)}\n`);
  return next;
}

/**
 * Runs blocked on an approval in this folder (`--approvals block`) are offered at start: the
 * newest one can be approved or denied here, and its run then continues in this REPL (in its
 * own session: `swapTo` makes that the REPL's agent, the current one closed). A line typed that
 * is no answer (`y`, `n`, `s` or nothing) is returned: it was a prompt, and the REPL runs it.
 */
export async function offerPendingApprovals(
  state: ReplState,
  agent: Agent,
  swapTo: (next: Agent) => void,
  renderer: ReturnType<typeof createRenderer>,
): Promise<string | undefined> {
  const { write, style } = state;
  const { listPending, decide } = await import("../store/approvals.ts");
  const pending = listPending({ cwd: state.cwd }).filter((record) => record.runId);
  const newest = pending.at(-1);
  if (!newest) return;
  write(
    style.yellow(`${pending.length} blocked run${pending.length === 1 ? " waits" : "s wait"} for an approval in this folder (shiro approvals lists them)\n`),
  );
  const choice = await new Promise<string>((resolve) =>
    state.rl!.question(`${newest.tool} ${newest.subject.slice(0, 80)}: y approve and continue it here | n deny and continue it here | s skip `, resolve),
  );
  const key = choice.trim().toLowerCase();
  if (!["", "y", "n", "s", "yes", "no", "skip"].includes(key)) {
    write(style.dim("not an answer, so the blocked run waits (shiro approvals); your line runs as a prompt\n"));
    return choice.trim();
  }
  const decision = key === "y" || key === "yes" ? "approved" : key === "n" || key === "no" ? "denied" : undefined;
  if (!decision) return;
  let current = agent;
  try {
    decide(newest.id, decision, "user");
    const run = (await import("../store/runs.ts")).findRun(newest.runId!);
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

const _RECAP_CHARS = 160;

/** The last exchange of a session, two dim lines: `you: …` and `shiro: …` (empty when there is none). */
export function formatRecap(messages: readonly Message[]): string {
  const lastUser = messages.findLastIndex((message) => message.role === "user" && !message.content.startsWith("["));
  if (lastUser < 0) return "";
  const user = messages[lastUser] as Extract<Message, { role: "user" }>;
  const answer = messages
    .slice(lastUser + 1)
    .filter((message): message is Extract<Message, { role: "assistant" }> => message.role === "assistant")
    .map((message) => assistantText(message).trim())
    .filter((text) => text !== "")
    .at(-1);
  const cut = (text: string) => {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > _RECAP_CHARS ? `${flat.slice(0, _RECAP_CHARS - 1)}…` : flat;
  };
  return `  you: ${cut(user.content)}\n${answer ? `  shiro: ${cut(answer)}\n` : ""}`;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
