/**
 * The REPL's shortcuts, recognised on a one-line prompt:
 * - `!cmd` runs a shell command yourself, in the session's sandbox, without an approval question
 *   (Agent.runCommand); a guard's finding on it is shown as a warning with one confirm. Its output
 *   is shown as it comes, and the command with its result goes to the model after the next
 *   prompt's text as `<ran command="…">…</ran>` (then it is spent);
 * - `#text` remembers a project note, `#global text` a note for every project, with the memory
 *   store's own remember (redaction, duplicates, caps) and the provenance `shiro memory add`
 *   records (the files it names, hashed, and the commit). Nothing is remembered under --no-memory.
 */
import type { Agent } from "../agent/agent.ts";
import { openGlobalMemory } from "../store/memory.ts";
import { buildProvenance } from "../store/memory-provenance.ts";
import { findProjectRoot } from "../config/project.ts";
import type { Style } from "./style.ts";

export interface ShortcutContext {
  agent: Agent;
  write: (text: string) => void;
  style: Style;
  /** The REPL's turn in flight: a `!` command is one while it runs, so Ctrl-C or Esc interrupts it. */
  turn: { running?: AbortController };
  /** Puts a yes/no question to the user (one key on a terminal); absent: the answer is no. */
  confirm?: (question: string) => Promise<boolean>;
}

export interface Shortcuts {
  /** Runs `text` when it is a shortcut; false when it is an ordinary prompt. */
  run(text: string, ctx: ShortcutContext): Promise<boolean>;
  /** The prompt with the `!` commands run since the last prompt after it. */
  attachRan(prompt: string): string;
}

export function createShortcuts(): Shortcuts {
  const ran: string[] = [];
  return {
    async run(text, ctx) {
      if (text.includes("\n")) return false;
      const command = /^!\s*(\S.*)$/.exec(text)?.[1];
      if (command !== undefined) {
        ran.push(await _runCommand(command, ctx));
        return true;
      }
      const note = /^#(?!global\b)\s*(\S.*)$/.exec(text)?.[1];
      const globalNote = /^#global\s+(\S.*)$/.exec(text)?.[1];
      if (note === undefined && globalNote === undefined) return false;
      _remember(globalNote ?? note!, globalNote !== undefined, ctx);
      return true;
    },
    attachRan(prompt) {
      if (ran.length === 0) return prompt;
      const blocks = ran.splice(0);
      return `${prompt}\n\n${blocks.join("\n\n")}`;
    },
  };
}

async function _runCommand(command: string, ctx: ShortcutContext): Promise<string> {
  const { write, style } = ctx;
  let result: string;
  let failed = false;
  let streamed = false;
  ctx.turn.running = new AbortController();
  try {
    const confirmGuard = async (finding: string): Promise<boolean> => {
      write(style.yellow(`⚠ ${personalGuardFinding(finding)}\n`));
      return ctx.confirm ? await ctx.confirm("run it anyway? y | n ") : false;
    };
    result = await ctx.agent.runCommand(
      command,
      ctx.turn.running.signal,
      (chunk) => {
        streamed = true;
        write(style.dim(chunk));
      },
      confirmGuard,
    );
  } catch (error) {
    result = error instanceof Error ? error.message : String(error);
    failed = true;
  } finally {
    ctx.turn.running = undefined;
  }
  const exit = /^exit: (\d+)/m.exec(result)?.[1];
  if (failed || (exit !== undefined && exit !== "0")) write(style.red(`✗ !${command}: ${failed ? result : `exit ${exit}`}\n`));
  else write(style.green(`✓ !${command}\n`));
  if (!streamed && !failed) write(style.dim(`${result}\n`));
  return `<ran command="${command.replaceAll('"', "&quot;")}">\n${result}\n</ran>`;
}

function _remember(text: string, global: boolean, ctx: ShortcutContext): void {
  const { write, style, agent } = ctx;
  if (!agent.memory) {
    write(style.red("memory is off in this session (--no-memory): nothing remembered\n"));
    return;
  }
  const store = global ? openGlobalMemory() : agent.memory;
  try {
    // The provenance `shiro memory add` records: the files the note names (hashed) and the commit, so it can go stale.
    const stored = store.remember("fact", text, buildProvenance(findProjectRoot(agent.session.cwd ?? process.cwd()), text, { sessionId: agent.session.id }));
    const where = global ? "for every project" : "for this project";
    write(
      stored.status === "duplicate"
        ? `already remembered ${where}\n`
        : `remembered ${where} (${stored.count} note${stored.count === 1 ? "" : "s"})${stored.redacted ? `, ${stored.redacted.join(", ")} redacted` : ""}\n`,
    );
  } catch (error) {
    write(style.red(`${error instanceof Error ? error.message : String(error)}\n`));
  }
}

/**
 * A guard plugin's finding, written for the model (`Blocked by the guard plugin: refusing "rm -rf
 * build" (recursive or forced delete). Ask the user…`), reworded for the user who typed it:
 * `the guard flags rm -rf build: recursive or forced delete`.
 */
export function personalGuardFinding(finding: string): string {
  const plugin = /^Blocked by the (\S+) plugin: /.exec(finding)?.[1];
  const rest = plugin ? finding.slice(finding.indexOf(": ") + 2) : finding;
  const refusal = /^refusing "(.*)" \((.+)\)\.?(?:\s|$)/s.exec(rest);
  const who = plugin ? `the ${plugin}` : "a guard";
  if (refusal) return `${who} flags ${refusal[1]}: ${refusal[2]}`;
  return `${who} flags this command: ${rest.replace(/\s*Ask the user[^.]*\.?\s*$/, "")}`;
}
