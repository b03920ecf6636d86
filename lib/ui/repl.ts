/**
 * The interactive line-mode REPL: a banner, a readline prompt, slash commands, approval
 * questions (y once | a always | n deny), and a prompt queue for lines typed during a turn
 * (kept in memory only). Ctrl-C interrupts a running turn; with nothing running it exits.
 */
import { createInterface } from "node:readline";
import { MissingKeyError } from "../agent/session-start.ts";
import { type Agent } from "../agent/agent.ts";
import { type AgentFlags } from "../config/flags.ts";
import { EXIT } from "../platform/errors.ts";
import { renderBanner, renderFarewell } from "./banner.ts";
import { createCompleter } from "./completer.ts";
import { runProviderSetup } from "./onboarding.ts";
import { createRenderer } from "./renderer.ts";
import { colourEnabled, createStyle } from "./style.ts";
import { appendHistory, loadHistory } from "../store/history.ts";
import { SLASH_COMMANDS, runSlashCommand } from "./slash/slash.ts";
import { type SlashOutcome } from "./slash/command.ts";
import { exitAfterOutput, writeOut } from "./output.ts";
import { USE_SAVED_PROVIDER, messageOf, offerPendingApprovals, openAgent, reopenWithSavedProvider, switchSession, type ReplState } from "./repl-session.ts";

export async function startRepl(flags: AgentFlags): Promise<number> {
  const style = createStyle(colourEnabled());
  const write = (text: string) => writeOut(text);
  const cwd = process.cwd();
  const state: ReplState = { cwd, flags, write, style };

  let agent: Agent;
  try {
    agent = await openAgent(state);
  } catch (error) {
    // No key is not fatal in a terminal: set a provider up, then start.
    if (!(error instanceof MissingKeyError)) throw error;
    write(`${style.dim(error.message)}\n`);
    if (!(await runProviderSetup())) {
      write("no provider configured yet - run shiro again to set one up\n");
      return EXIT.error;
    }
    agent = await openAgent(state, USE_SAVED_PROVIDER);
  }
  const renderer = createRenderer(write, style, () => agent.model);
  write(renderBanner(agent, style.dim));

  /** /provider: set a provider up (readline paused while @clack/prompts owns the terminal), then continue this session with it. */
  const setUpProvider = async (): Promise<void> => {
    state.rl?.pause();
    let result: Awaited<ReturnType<typeof runProviderSetup>>;
    try {
      result = await runProviderSetup();
    } finally {
      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      state.rl?.resume();
    }
    if (result) agent = await reopenWithSavedProvider(state, agent);
  };

  const commands = SLASH_COMMANDS.map((command) => command.name);
  const rl = createInterface({
    input: process.stdin, output: process.stdout, terminal: Boolean(process.stdout.isTTY),
    history: [...loadHistory(cwd)].reverse(), historySize: 200,
    completer: createCompleter({ root: cwd, commands }),
  });
  state.rl = rl;
  rl.setPrompt(style.bold("› "));
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
        write(style.red(`${messageOf(error)}\n`));
        return;
      }
      if (outcome.kind === "exit") exiting = true;
      if (outcome.kind === "switch-session") agent = (await switchSession(state, agent, outcome.sessionId)) ?? agent;
      if (outcome.kind === "provider-setup") await setUpProvider();
      if (outcome.kind !== "prompt") return;
      prompt = outcome.text;
    }
    state.running = new AbortController();
    try {
      for await (const event of agent.turn(prompt, state.running.signal)) renderer.render(event);
    } catch (error) {
      write(style.red(`error: ${messageOf(error)}\n`));
    } finally {
      state.running = undefined;
    }
  };

  return await new Promise<number>((resolve) => {
    const finish = () => {
      state.running?.abort();
      rl.close();
    };
    rl.on("SIGINT", () => {
      if (state.running) {
        state.running.abort();
        queue.length = 0;
        write(style.dim("\ninterrupted\n"));
      } else finish();
    });
    // A closed terminal or a kill must not lose the last 400 ms of debounced session changes.
    const onHangup = () => {
      state.running?.abort();
      agent.close();
      void agent.closed.finally(() => exitAfterOutput(EXIT.interrupted));
    };
    process.once("SIGHUP", onHangup);
    process.once("SIGTERM", onHangup);
    rl.on("close", () => {
      process.off("SIGHUP", onHangup);
      process.off("SIGTERM", onHangup);
      write(renderFarewell(agent));
      agent.close();
      void agent.closed.then(() => resolve(EXIT.ok));
    });
    rl.on("line", (line) => {
      queue.push(line);
      if (queue.length === 1 && !state.running) void drain();
    });
    const drain = async () => {
      while (queue.length > 0 && !exiting) {
        await runLine(queue[0]!);
        queue.shift();
      }
      if (exiting) finish();
      else rl.prompt();
    };
    const swapTo = (next: Agent) => {
      agent.close();
      agent = next;
    };
    void offerPendingApprovals(state, agent, swapTo, renderer).finally(() => rl.prompt());
  });
}
