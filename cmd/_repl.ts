/**
 * The interactive line-mode REPL: a banner, a readline prompt, slash commands, approval
 * questions (y once | a always | n deny), and a prompt queue for lines typed during a turn
 * (kept in memory only). Ctrl-C interrupts a running turn; with nothing running it exits.
 */
import { createInterface, type Interface } from "node:readline";
import { MissingKeyError, createAgent, type Agent, type AgentFlags } from "../lib/agent/agent.ts";
import { renderApprovalQuestion } from "../lib/repl/approval-view.ts";
import { createCompleter } from "../lib/repl/completer.ts";
import { runProviderSetup } from "../lib/repl/onboarding.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../lib/approval.ts";
import { EXIT } from "../lib/errors.ts";
import { appendHistory, loadHistory } from "../lib/store/history.ts";
import { findSession } from "../lib/store/sessions.ts";
import { shortSessionId } from "../lib/store/short-ids.ts";
import { renderProgressBar } from "../lib/store/notebook.ts";
import { createRenderer } from "../lib/repl/renderer.ts";
import { colourEnabled, createStyle } from "../lib/repl/style.ts";
import { PRODUCT, VERSION } from "../lib/version.ts";
import { describeSandbox } from "../lib/sandbox/detect.ts";
import { SLASH_COMMANDS, runSlashCommand, type SlashOutcome } from "./_slash.ts";
import { exitAfterOutput, writeOut } from "./_output.ts";

/** Flags that pin a provider, cleared once /provider (or the first-start setup) has saved one. */
const _USE_SAVED_PROVIDER: Partial<AgentFlags> = { provider: undefined, model: undefined, baseURL: undefined, protocol: undefined };
/** A session opened mid-REPL never re-applies -c / -r. */
const _NO_RESUME: Partial<AgentFlags> = { continue: false, resume: undefined };

export async function startRepl(flags: AgentFlags): Promise<number> {
  const style = createStyle(colourEnabled());
  const write = (text: string) => writeOut(text);
  const cwd = process.cwd();
  let rl: Interface | undefined;

  const askApproval = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    const question = renderApprovalQuestion(request, cwd, style);
    write(question.text);
    // Ctrl-C while the question is open denies the call and ends the turn; the question is
    // withdrawn, so the next line typed is a prompt again, not a late answer.
    const signal = running?.signal;
    if (signal?.aborted) return "deny";
    const answer = await new Promise<string | undefined>((resolve) => {
      const onAbort = () => resolve(undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
      rl!.question(question.choice, signal ? { signal } : {}, (text) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(text);
      });
    });
    if (answer === undefined) return "deny";
    const key = answer.trim().toLowerCase();
    if (key === "" || key === "y" || key === "yes") return "once";
    if (key === "a" || key === "always") return "always";
    return "deny";
  };

  /** Opens a session with the start-up flags changed by `changes`; `sessionId` continues that one. */
  const openAgent = (changes: Partial<AgentFlags> = {}, sessionId?: string): Promise<Agent> =>
    createAgent({ cwd, flags: { ...flags, ...changes }, mode: "interactive", decide: askApproval, ...(sessionId ? { sessionId } : {}) });

  let agent: Agent;
  try {
    agent = await openAgent();
  } catch (error) {
    // No key is not fatal in a terminal: set a provider up, then start.
    if (!(error instanceof MissingKeyError)) throw error;
    write(`${style.dim(error.message)}\n`);
    if (!(await runProviderSetup())) {
      write("no provider configured yet - run shiro again to set one up\n");
      return EXIT.error;
    }
    agent = await openAgent(_USE_SAVED_PROVIDER);
  }
  const renderer = createRenderer(write, style, () => agent.model);
  _banner(agent, write, style.dim);

  /** Closes the current session (it is saved) and continues with `next`. */
  const swapTo = (next: Agent): void => {
    agent.close();
    agent = next;
  };

  /** /provider: set a provider up (readline paused while @clack/prompts owns the terminal), then continue this session with it. */
  const setUpProvider = async (): Promise<void> => {
    rl?.pause();
    let result: Awaited<ReturnType<typeof runProviderSetup>>;
    try {
      result = await runProviderSetup();
    } finally {
      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      rl?.resume();
    }
    if (!result) return;
    const sessionId = agent.session.messages.length > 0 ? agent.session.id : undefined;
    agent.close();
    agent = await openAgent({ ..._USE_SAVED_PROVIDER, ..._NO_RESUME }, sessionId);
    write(`now using ${agent.config.preset.id}/${agent.model}\n`);
  };

  /**
   * Runs blocked on an approval in this folder (`--approvals block`) are offered at start: the
   * newest one can be approved or denied here, and its run then continues in this REPL.
   */
  const offerPendingApprovals = async (): Promise<void> => {
    const { listPending, decide } = await import("../lib/store/approvals.ts");
    const pending = listPending({ cwd }).filter((record) => record.runId);
    const newest = pending.at(-1);
    if (!newest) return;
    write(style.yellow(`${pending.length} blocked run${pending.length === 1 ? " waits" : "s wait"} for an approval in this folder (shiro approvals lists them)\n`));
    const choice = await new Promise<string>((resolve) => rl!.question(`${newest.tool} ${newest.subject.slice(0, 80)}: y approve and continue it here | n deny and continue it here | s skip `, resolve));
    const key = choice.trim().toLowerCase();
    if (key !== "y" && key !== "n") return;
    const decision = key === "y" ? "approved" : "denied";
    try {
      decide(newest.id, decision, "user");
      const { findRun } = await import("../lib/store/runs.ts");
      const run = findRun(newest.runId!);
      if (agent.session.id !== run.sessionId) swapTo(await openAgent(_NO_RESUME, run.sessionId));
      running = new AbortController();
      for await (const event of agent.resumeRun(run, decision, running.signal)) renderer.render(event);
    } catch (error) {
      write(style.red(`${_message(error)}\n`));
    } finally {
      running = undefined;
    }
  };

  /** /resume and /clear: the current session is saved and closed, another one opens. */
  const switchSession = async (sessionId: string | undefined): Promise<void> => {
    let next: Agent;
    try {
      if (sessionId && findSession(sessionId).id === agent.session.id) {
        write(`already in session ${shortSessionId(agent.session.id)}\n`);
        return;
      }
      next = await openAgent(_NO_RESUME, sessionId);
    } catch (error) {
      write(style.red(`${_message(error)}\n`));
      return;
    }
    swapTo(next);
    if (sessionId) write(`resumed ${shortSessionId(agent.session.id)} (${agent.session.messages.length} messages): ${agent.session.title}\n`);
    else write(`new session ${shortSessionId(agent.session.id)}\n`);
  };

  const commands = Object.keys(SLASH_COMMANDS).map((usage) => usage.split(" ")[0]!);
  rl = createInterface({
    input: process.stdin, output: process.stdout, terminal: Boolean(process.stdout.isTTY),
    history: [...loadHistory(cwd)].reverse(), historySize: 200,
    completer: createCompleter({ root: cwd, commands }),
  });
  rl.setPrompt(style.bold("› "));
  let running: AbortController | undefined;
  let exiting = false;
  const queue: string[] = [];

  const runLine = async (line: string): Promise<void> => {
    const text = line.trim();
    if (!text) return;
    appendHistory(cwd, text);
    let prompt = text;
    if (text.startsWith("/")) {
      let outcome: SlashOutcome;
      try {
        outcome = await runSlashCommand(text, { agent, write, style });
      } catch (error) {
        write(style.red(`${_message(error)}\n`));
        return;
      }
      if (outcome.kind === "exit") exiting = true;
      if (outcome.kind === "switch-session") await switchSession(outcome.sessionId);
      if (outcome.kind === "provider-setup") await setUpProvider();
      if (outcome.kind !== "prompt") return;
      prompt = outcome.text;
    }
    running = new AbortController();
    try {
      for await (const event of agent.turn(prompt, running.signal)) renderer.render(event);
    } catch (error) {
      write(style.red(`error: ${_message(error)}\n`));
    } finally {
      running = undefined;
    }
  };

  return await new Promise<number>((resolve) => {
    const finish = () => {
      if (running) running.abort();
      rl!.close();
    };
    rl!.on("SIGINT", () => {
      if (running) {
        running.abort();
        queue.length = 0;
        write(style.dim("\ninterrupted\n"));
      } else finish();
    });
    // A closed terminal or a kill must not lose the last 400 ms of debounced session changes.
    const onHangup = () => {
      running?.abort();
      agent.close();
      void agent.closed.finally(() => exitAfterOutput(EXIT.interrupted));
    };
    process.once("SIGHUP", onHangup);
    process.once("SIGTERM", onHangup);
    rl!.on("close", () => {
      process.off("SIGHUP", onHangup);
      process.off("SIGTERM", onHangup);
      write(_farewell(agent));
      agent.close();
      void agent.closed.then(() => resolve(EXIT.ok));
    });
    rl!.on("line", (line) => {
      queue.push(line);
      if (queue.length === 1 && !running) void drain();
    });
    const drain = async () => {
      while (queue.length > 0 && !exiting) {
        await runLine(queue[0]!);
        queue.shift();
      }
      if (exiting) finish();
      else rl!.prompt();
    };
    void offerPendingApprovals().finally(() => rl!.prompt());
  });
}

function _banner(agent: Agent, write: (text: string) => void, dim: (text: string) => string): void {
  const lines = [
    `${PRODUCT} ${VERSION}  ${agent.config.preset.id}/${agent.model}  session ${shortSessionId(agent.session.id)}`,
    `agent: ${agent.variant.name}  thinking: ${agent.thinking}`,
    `cwd: ${process.cwd()}`,
    ...(agent.resumedMessages > 0 ? [`resumed ${agent.resumedMessages} messages`] : []),
    agent.instructions.length > 0 ? `instructions: ${agent.instructions.map((file) => file.label).join(", ")}` : "no AGENTS.md found - /init writes one",
    agent.skills.length > 0 ? `skills: ${agent.skills.map((skill) => skill.name).join(", ")}` : "skills: none",
    agent.plugins.disabled ? "plugins: none (--no-plugins)" : `plugins: ${agent.plugins.active().map((p) => p.name).join(", ") || "none"}`,
    agent.memory ? `memory: ${agent.memory.list().length} notes about this project` : "memory: off (--no-memory)",
    ...(agent.sandbox.notice ? [] : [describeSandbox(agent.sandbox)]),
    ...(agent.mcpStatus().length > 0 ? [`mcp: connecting ${agent.mcpStatus().map((server) => server.name).join(", ")} (/mcp shows them)`] : []),
    ...agent.startupNotices(),
    ...(agent.todos().length > 0 ? [renderProgressBar(agent.todos())] : []),
    "/help for commands",
  ];
  write(`${lines.map((line, index) => (index === 0 ? line : dim(line))).join("\n")}\n`);
}

function _farewell(agent: Agent): string {
  const session = agent.session;
  if (session.messages.length === 0) return "\nGood bye. Nothing to save from this session.\n";
  const title = session.title.length > 52 ? `${session.title.slice(0, 52)}…` : session.title;
  const id8 = shortSessionId(session.id);
  return `\nGood bye.\nSaved ${session.messages.length} message(s): "${title}"\n\nResume it with:\n  shiro -c ...newest session in this directory\n  shiro -r ${id8} ...this session by id\n`;
}

function _message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
