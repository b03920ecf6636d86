/**
 * The interactive line-mode REPL: a banner, a readline prompt, slash commands, approval
 * questions (y once | a always | n deny), and a prompt queue for lines typed during a turn
 * (kept in memory only). Keys: lib/ui/prompt-input.ts and docs/repl.md. Ctrl-C or Esc interrupts a
 * running turn; Ctrl-C clears a half-typed prompt; on an empty one, a second Ctrl-C within 2 s exits.
 */
import type { TurnTools } from "../agent/turn-tools.ts";
import { createInterface } from "node:readline";
import type { Agent } from "../agent/agent.ts";
import type { AgentFlags } from "../config/flags.ts";
import { EXIT } from "../platform/errors.ts";
import { useNormalJitPolicy } from "../platform/runtime.ts";
import { renderBanner, renderFarewell } from "./banner.ts";
import { createCompleter } from "./completer.ts";
import { slashValues } from "./slash/values.ts";
import { createRenderer } from "./renderer.ts";
import { createHeldOutput } from "./held-output.ts";
import { colourEnabled, createStyle } from "./style.ts";
import { appendHistory, loadHistory } from "../store/history.ts";
import { findProjectRoot } from "../config/project.ts";
import { attachPromptInput } from "./prompt-input.ts";
import { attachAndReport } from "./attachments.ts";
import { toMcpToolName } from "../extensions/mcp/tools.ts";
import { acceptsImages } from "../providers/windows.ts";
import { createShortcuts } from "./shortcuts.ts";
import { createStatusLine } from "./status-line.ts";
import { describeMode, nextMode, type SessionMode } from "./session-mode.ts";
import { SLASH_COMMANDS, loadSlashCustom, mcpPromptCommands, runSlashCommand } from "./slash/slash.ts";
import { type ReplControls, type SlashOutcome } from "./slash/command.ts";
import { createFolds, foldLines } from "./folds.ts";
import { loadMarkdown, type MarkdownStream } from "./markdown.ts";
import { readChoice } from "./key-question.ts";
import { exitAfterOutput, writeOut } from "./output.ts";
import { applySlashOutcome, openFirstAgent, messageOf, offerPendingApprovals, type ReplState } from "./repl-session.ts";

export async function startRepl(flags: AgentFlags): Promise<number> {
  const style = createStyle(colourEnabled());
  const status = createStatusLine((text) => writeOut(text), style, Boolean(process.stdout.isTTY));
  const write = (text: string) => status.write(text);
  const cwd = process.cwd();
  const state: ReplState = { cwd, flags, write, style, mode: "ask" };

  const first = await openFirstAgent(state);
  if (!first) {
    write("no provider configured yet - run shiro again to set one up\n");
    return EXIT.error;
  }
  let agent: Agent = first;
  state.tools = () => agent.registeredTools();
  state.rules = () => agent.permissionRules();
  const held = createHeldOutput(write);
  state.holdOutput = () => {
    const release = held.hold();
    const resume = status.suspend();
    return () => {
      resume();
      release();
    };
  };
  const folds = createFolds();
  const renderer = createRenderer(held.write, style, () => agent.model, {
    folds,
    root: cwd,
    toolFor: (name) => agent.registeredTools().find((tool) => tool.name === name),
    markdown: () => markdown,
  });
  let markdown: MarkdownStream | undefined;
  write(renderBanner(agent, style.dim));

  const terminal = Boolean(process.stdout.isTTY);
  const commandNames = [...SLASH_COMMANDS, ...loadSlashCustom(cwd).commands].map((command) => command.name);
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal,
    historySize: 0,
    completer: createCompleter({
      root: cwd,
      commands: () => [...commandNames, ...mcpPromptCommands(agent).map((prompt) => prompt.name)],
      values: (command) => slashValues(command, agent, cwd),
    }),
  });
  state.rl = rl;
  status.attach(rl);
  const historyRoot = findProjectRoot(cwd);
  const input = attachPromptInput(rl, {
    prompt: style.bold("› "),
    continuation: style.dim("… "),
    history: loadHistory(historyRoot),
    onEscape: () => Boolean(state.running && interrupt()),
    onKey: (_text, key) => {
      if (key?.name === "tab" && key.shift) {
        setMode(nextMode(state.mode));
        return true;
      }
      if (key?.ctrl && key.name === "o") {
        if (!controls.expand()) write(style.dim("nothing folded yet\n"));
        if (!state.running) rl.prompt(true);
        return true;
      }
      return false;
    },
    record: (prompt) => appendHistory(historyRoot, prompt),
  });
  if (terminal) state.keys = input;
  const setMode = (mode: SessionMode) => {
    state.mode = mode;
    status.tag(mode === "ask" ? undefined : mode);
    if (!state.running) {
      write(`${style.dim(`mode: ${describeMode(mode)}`)}\n`);
      rl.prompt(true);
    }
  };
  state.setMode = setMode;
  const confirm = async (question: string): Promise<boolean> => {
    write(question);
    if (state.keys) {
      const choice = await readChoice(state.keys, {
        keys: ["y", "n", "enter"],
        write,
        signal: state.running?.signal,
        onChoice: (key) => write(`${key === "y" ? "y" : "n"}\n`),
      });
      return choice?.key === "y";
    }
    const answer = await new Promise<string>((resolve) => rl.question("", resolve));
    return ["y", "yes"].includes(answer.trim().toLowerCase());
  };
  let failedPrompt: string | undefined;
  const controls: ReplControls = {
    failedPrompt: () => failedPrompt,
    mode: () => state.mode,
    setMode,
    foldCount: () => folds.count(),
    expand(n) {
      const fold = folds.get(n);
      if (!fold) return false;
      const lines = foldLines(fold.text);
      write(`${style.dim(`─ ${fold.title} (fold ${fold.n}, ${lines.length} lines)`)}\n${lines.map((text) => `  ${text}`).join("\n")}\n`);
      return true;
    },
  };
  // Bracketed paste: the terminal marks pasted text, so a pasted stack trace is one prompt.
  if (terminal) writeOut("\x1b[?2004h");
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
    if (await shortcuts.run(text, { agent, write, style, turn: state, confirm })) return;
    let prompt = text;
    let turnTools: TurnTools | undefined;
    if (text.startsWith("/")) {
      let outcome: SlashOutcome;
      try {
        outcome = await runSlashCommand(text, {
          agent,
          write,
          style,
          cwd,
          repl: controls,
          ask: (question) => new Promise<string>((resolve) => rl.question(question, resolve)),
          yolo: flags.yolo === true,
        });
      } catch (error) {
        write(style.red(`${messageOf(error)}\n`));
        return;
      }
      if (outcome.kind === "exit") exiting = true;
      agent = await applySlashOutcome(state, agent, outcome);
      if (outcome.kind !== "prompt") return;
      prompt = outcome.text;
      turnTools = outcome.turnTools;
    }
    const typed = prompt;
    const ask = (question: string) => new Promise<string>((resolve) => rl.question(question, resolve));
    const imagesRefusedBy = acceptsImages(agent.model) ? undefined : agent.model;
    const readResource = async (server: string, uri: string) => {
      const reader = agent.registeredTools().find((tool) => tool.name === toMcpToolName(server, "read_resource"));
      return reader
        ? await reader.execute({ uri }, { root: cwd, signal: new AbortController().signal, callId: `attach-${server}`, emitOutput: () => {} })
        : undefined;
    };
    const attached = await attachAndReport(prompt, {
      root: cwd,
      ask,
      judge: (path) => agent.judgeAttachment(path),
      imagesRefusedBy,
      readResource,
      note: (text) => write(style.dim(`${text}\n`)),
    });
    prompt = shortcuts.attachRan(attached.prompt);
    markdown ??= (await loadMarkdown()).create({ width: () => process.stdout.columns || 80, colour: colourEnabled() });
    state.running = new AbortController();
    status.running(true);
    let failed = false;
    try {
      const turnOptions = { ...(attached.images.length > 0 ? { images: attached.images } : {}), ...turnTools };
      for await (const event of agent.turn(prompt, state.running.signal, turnOptions)) {
        status.observe(event);
        renderer.render(event);
        if (event.type === "done") failed = event.stop === "error";
      }
    } catch (error) {
      write(style.red(`error: ${messageOf(error)}\n`));
      failed = true;
    } finally {
      status.running(false);
      state.running = undefined;
      useNormalJitPolicy();
    }
    failedPrompt = failed ? typed : undefined;
    if (failed) write(style.dim("the request failed and is not kept for the next prompt; /retry sends it again\n"));
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
      if (state.running) status.queued(line);
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
      else rl.prompt(true);
    };
    const swapTo = (next: Agent) => {
      agent.close();
      agent = next;
    };
    void offerPendingApprovals(state, agent, swapTo, renderer).then(
      (typed) => {
        if (typed) {
          queue.push({ text: typed, queued: false });
          void drain();
        } else rl.prompt();
      },
      () => rl.prompt(),
    );
  });
}
