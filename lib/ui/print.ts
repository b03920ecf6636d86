/**
 * Renders AgentEvents for a terminal that is not interactive: headless text mode, `runs tail`
 * and `runs events`. Answer text goes to stdout; progress lines go to stderr:
 * `[tool] <name> <json input>`, `[denied] <name> …`, `[tool-error] <name>: <msg>`, `[notice] …`,
 * `[compacted] B messages pruned to A`, `[blocked] …`, `[error] <msg>`. A replayed log prints
 * everything on stdout and ends with `[done] <stop>, N steps`.
 *
 * Terminal controls (lib/ui/terminal-text.ts): the answer is the model's text with every escape
 * sequence and control character but `\n` and `\t` stripped, on a terminal and in a pipe alike;
 * the progress lines show them in caret form (`^[`).
 */
import type { AgentEvent, StopKind } from "../events.ts";
import { shortApprovalId, shortRunId } from "../store/short-ids.ts";
import { writeOut, writeErr } from "./output.ts";
import { createControlStripper, showControlsDeep, stripControls } from "./terminal-text.ts";

export interface TextPrinter {
  print(event: AgentEvent): void;
}

export interface PrinterSinks {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** One line for a hook run (here and in the REPL, lib/ui/renderer.ts): `[hook] PreToolUse bash: exit 2, block (12 ms)`. */
export function formatHookLine(event: Extract<AgentEvent, { type: "hook" }>): string {
  const exit = event.timedOut ? "killed at its timeout" : `exit ${event.exit ?? "none"}`;
  const tool = event.tool ? ` ${event.tool}` : "";
  return `[hook] ${event.event}${tool}: ${exit}${event.decision ? `, ${event.decision}` : ""} (${event.durationMs} ms) ${event.command.split("\n")[0]}`;
}

function _short(value: unknown, max = 200): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * `streamText`: print `text` deltas as they arrive (headless); otherwise print each completed
 * `message` and the closing `[done]` line (log replay, where deltas were never stored).
 */
export function createTextPrinter(sinks: PrinterSinks, options: { streamText: boolean }): TextPrinter {
  let midLine = false;
  const answer = createControlStripper();
  const out = (text: string) => {
    if (!text) return;
    sinks.out(text);
    midLine = !text.endsWith("\n");
  };
  return {
    print(raw) {
      if (raw.type === "text") {
        if (options.streamText) out(answer.push(raw.text));
        return;
      }
      if (raw.type === "message") {
        answer.end();
        if (!options.streamText) out(`${stripControls(raw.text)}\n`);
        else if (midLine) out("\n");
        return;
      }
      const event = showControlsDeep(raw);
      switch (event.type) {
        case "tool-call":
          sinks.err(`[tool] ${event.name} ${_short(event.input)}\n`);
          break;
        case "tool-denied":
          sinks.err(
            event.by === "headless"
              ? `[denied] ${event.name} (run with --yolo to allow tool use in headless mode)\n`
              : `[denied] ${event.name}: ${event.reason}\n`,
          );
          break;
        case "tool-error":
          sinks.err(`[tool-error] ${event.name}: ${event.error.split("\n")[0]}\n`);
          break;
        case "notice":
          sinks.err(`[notice] ${event.text}\n`);
          break;
        case "hook":
          if (event.exit !== 0 || event.decision) sinks.err(`${formatHookLine(event)}\n`);
          break;
        case "mcp":
          if (event.status === "failed") sinks.err(`mcp ${event.server} failed: ${event.error ?? "unknown error"}\n`);
          break;
        case "compacted":
          sinks.err(`[compacted] ${event.before} messages pruned to ${event.after}\n`);
          break;
        case "approval-required":
          sinks.err(`[approval] ${event.name} ${_short(event.input, 120)} (approval ${shortApprovalId(event.approvalId)})\n`);
          break;
        case "blocked": {
          const approval = shortApprovalId(event.approvalId);
          sinks.err(`[blocked] waiting for approval ${approval}: shiro approve ${approval} (or deny), then shiro runs resume ${shortRunId(event.runId)}\n`);
          break;
        }
        case "error":
          sinks.err(`[error] ${event.error}\n`);
          break;
        case "done":
          if (!options.streamText) out(`[done] ${event.stop}${event.cancelled ? " (cancelled)" : ""}, ${event.steps} steps\n`);
          else if (midLine) out("\n");
          if (options.streamText && event.stop === "max-steps") sinks.err(`${describeStepCap(event.steps)}\n`);
          if (options.streamText && event.stop === "max-cost")
            sinks.err(`[stopped] ${event.reason ?? "the cost limit was reached"} (exit 4); continue with shiro -c\n`);
          break;
        default:
          break;
      }
    },
  };
}

/** The one line a text-mode run prints when it stops at the step cap (exit 4). */
export function describeStepCap(steps: number): string {
  return `[stopped] the step cap of ${steps} steps was reached (exit 4): raise it with --max-steps or "maxSteps" in config.json (shiro config set maxSteps 100), or continue with shiro -c`;
}

/** A stored run log replayed (`runs events`, `runs tail`): every line on stdout. */
export function createReplayPrinter(): TextPrinter {
  const write = (text: string) => void writeOut(text);
  return createTextPrinter({ out: write, err: write }, { streamText: false });
}

export type DoneEvent = Extract<AgentEvent, { type: "done" }>;

/** What a printed run ended with. */
export interface PrintedRun {
  /** The stop of the run's `done`; undefined when the events ended without one. */
  stop: StopKind | undefined;
  /** The last non-empty assistant message: the answer. */
  answer: string;
  /** The last `error` event's text. */
  error?: string;
  done?: DoneEvent;
}

/**
 * Prints a live run (headless, `runs resume`): as text (answer on stdout, progress on stderr),
 * with `stream-json` one event per line on stdout, with `quiet` nothing (`--output-format json`
 * prints one object at the end, lib/ui/run-result.ts).
 */
export async function printRun(events: AsyncIterable<AgentEvent>, options: { json: boolean; quiet?: boolean }): Promise<PrintedRun> {
  const printer = createTextPrinter({ out: (t) => writeOut(t), err: (t) => writeErr(t) }, { streamText: true });
  const printed: PrintedRun = { stop: undefined, answer: "" };
  for await (const event of events) {
    if (options.quiet) {
      // Nothing on stdout; the lines a person needs (an approval to give, an error, the limit that stopped the run) still go to stderr.
      if (event.type === "blocked" || event.type === "error" || event.type === "done") printer.print(event);
    } else if (options.json) writeOut(`${JSON.stringify(event)}\n`);
    else printer.print(event);
    if (event.type === "message") printed.answer = event.text;
    if (event.type === "error") printed.error = event.error;
    if (event.type === "done") {
      printed.stop = event.stop;
      printed.done = event;
    }
  }
  return printed;
}
