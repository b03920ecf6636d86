/**
 * The interactive line-mode REPL: a banner, a readline prompt, slash commands, approval
 * questions (y once | a always | n deny), and a prompt queue for lines typed during a turn
 * (kept in memory only). Keys: lib/ui/prompt-input.ts and docs/repl.md. Ctrl-C or Esc interrupts a
 * running turn; Ctrl-C clears a half-typed prompt; on an empty one, a second Ctrl-C within 2 s exits.
 */
import { createInterface } from "node:readline";
import type { Agent } from "../agent/agent.ts";
import type { AgentFlags } from "../config/flags.ts";
import { EXIT } from "../platform/errors.ts";
import { renderBanner, renderFarewell } from "./banner.ts";
import { createCompleter } from "./completer.ts";
import { createRenderer } from "./renderer.ts";
import { createHeldOutput } from "./held-output.ts";
import { colourEnabled, createStyle } from "./style.ts";
import { appendHistory, loadHistory } from "../store/history.ts";
import { findProjectRoot } from "../config/project.ts";
import { attachPromptInput } from "./prompt-input.ts";
import { attachAndReport } from "./attachments.ts";
import { acceptsImages } from "../providers/windows.ts";
import { createShortcuts } from "./shortcuts.ts";
import { createStatusLine } from "./status-line.ts";
import { SLASH_COMMANDS, loadSlashCustom, runSlashCommand } from "./slash/slash.ts";
import { type SlashOutcome } from "./slash/command.ts";
import { exitAfterOutput, writeOut } from "./output.ts";
import { applySlashOutcome, openFirstAgent, messageOf, offerPendingApprovals, type ReplState } from "./repl-session.ts";

export async function startRepl(flags: AgentFlags): Promise<number> {
  const style = createStyle(colourEnabled());
  const status = createStatusLine((text) => writeOut(text), style, Boolean(process.stdout.isTTY));
  const write = (text: string) => status.write(text);
  const cwd = process.cwd();
  const state: ReplState = { cwd, flags, write, style };

  const first = await openFirstAgent(state);
  if (!first) {
    write("no provider configured yet - run shiro again to set one up\n");
    return EXIT.error;
  }
  let agent: Agent = first;
  const held = createHeldOutput(write);
  state.holdOutput = held.hold;
  const renderer = createRenderer(held.write, style, () => agent.model);
  write(renderBanner(agent, style.dim));

  const terminal = Boolean(process.stdout.isTTY);
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal,
    historySize: 0,
    completer: createCompleter({ root: cwd, commands: [...SLASH_COMMANDS, ...loadSlashCustom(cwd).commands].map((command) => command.name) }),
  });
  state.rl = rl;
  status.holdDuringQuestions(rl);
  const historyRoot = findProjectRoot(cwd);
  const input = attachPromptInput(rl, {
    prompt: style.bold("› "),
    continuation: style.dim("… "),
    history: loadHistory(historyRoot),
    onEscape: () => Boolean(state.running && interrupt()),
    record: (prompt) => appendHistory(historyRoot, prompt),
  });
  // Bracketed paste: the terminal marks pasted text, so a pasted stack trace is one prompt.
  if (terminal) write("\x1b[?2004h");
  let exiting = false;
  let draining = false;
  const queue: { text: string; queued: boolean }[] = []; // queued: typed during a turn, echoed when it starts
  const shortcuts = createShortcuts();
  const interrupt = (): true => {
    state.running?.abort();
    // A line drain is running stays first (drain shifts it when its turn ends); the waiting ones go.
    queue.splice(draining ? 1 : 0);
    write(style.dim("\ninterrupted\n"));
    return true;
  };

  const runLine = async (line: string): Promise<void> => {
    const text = line.trim();
    if (!text) return;
    if (await shortcuts.run(text, { agent, write, style, turn: state })) return;
    let prompt = text;
    if (text.startsWith("/")) {
      let outcome: SlashOutcome;
      try {
        outcome = await runSlashCommand(text, {
          agent,
          write,
          style,
          cwd,
          ask: (question) => new Promise<string>((resolve) => rl.question(question, resolve)),
        });
      } catch (error) {
        write(style.red(`${messageOf(error)}\n`));
        return;
      }
      if (outcome.kind === "exit") exiting = true;
      agent = await applySlashOutcome(state, agent, outcome);
      if (outcome.kind !== "prompt") return;
      prompt = outcome.text;
    }
    const ask = (question: string) => new Promise<string>((resolve) => rl.question(question, resolve));
    const imagesRefusedBy = acceptsImages(agent.model) ? undefined : agent.model;
    const attached = await attachAndReport(prompt, { root: cwd, ask, imagesRefusedBy, note: (text) => write(style.dim(`${text}\n`)) });
    prompt = shortcuts.attachRan(attached.prompt);
    state.running = new AbortController();
    status.running(true);
    try {
      for await (const event of agent.turn(prompt, state.running.signal, attached.images.length > 0 ? { images: attached.images } : undefined)) {
        status.observe(event);
        renderer.render(event);
      }
    } catch (error) {
      write(style.red(`error: ${messageOf(error)}\n`));
    } finally {
      status.running(false);
      state.running = undefined;
    }
  };

  return await new Promise<number>((resolve) => {
    const finish = () => {
      state.running?.abort();
      rl.close();
    };
    rl.on("SIGINT", () => {
      if (state.running) return void interrupt();
      const outcome = input.ctrlC();
      if (outcome === "exit") return finish();
      write(outcome === "warned" ? style.dim("\npress Ctrl-C again to exit (or Ctrl-D)\n") : "\n");
      rl.prompt();
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
      if (terminal) write("\x1b[?2004l");
      write(renderFarewell(agent));
      agent.close("prompt_input_exit");
      void agent.closed.then(() => resolve(EXIT.ok));
    });
    rl.on("line", (line) => {
      const prompt = input.take(line);
      if (prompt === undefined) return void rl.prompt();
      queue.push({ text: prompt, queued: Boolean(state.running) });
      if (queue.length === 1 && !state.running) void drain();
    });
    const drain = async () => {
      draining = true;
      while (queue.length > 0 && !exiting) {
        if (queue[0]!.queued) write(style.dim(`› ${queue[0]!.text.split("\n")[0]}\n`));
        await runLine(queue[0]!.text);
        queue.shift();
      }
      draining = false;
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
