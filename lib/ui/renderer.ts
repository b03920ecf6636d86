/**
 * Renders the AgentEvent stream in the interactive REPL: answer text streams as it arrives;
 * a tool call is one line from its declaration (tool-summary.ts); live tool output shows its
 * first lines, the rest folded; a result shows its first line and `+N lines`; reasoning is shown
 * folded once it ends. Folds are kept in `folds` (Ctrl-O, /expand).
 * It is the REPL's one writer of user-visible output. Every string of an event (the model's text,
 * tool input and output, names, reasons) passes terminal-text.ts `showControls` before any
 * styling is added, so nothing a model or a tool wrote can drive the terminal.
 */
import type { AgentEvent } from "../events.ts";
import { formatCompactedLine } from "../agent/context/planner.ts";
import { formatUsd } from "../providers/pricing.ts";
import type { ToolDefinition } from "../tools/types.ts";
import { formatHookLine } from "./print.ts";
import { FOLD_HEAD_LINES, createFolds, foldLines, type Folds } from "./folds.ts";
import type { MarkdownStream } from "./markdown.ts";
import type { Style } from "./style.ts";
import { showControlsDeep } from "./terminal-text.ts";
import { summarizeCall } from "./tool-summary.ts";

export interface Renderer {
  render(event: AgentEvent): void;
}

export interface RendererOptions {
  /** The declaration of a tool by name, for its one-line summary. */
  toolFor?: (name: string) => ToolDefinition | undefined;
  /** The workspace, for declared paths. */
  root?: string;
  /** Where folded output is kept; a fresh store when absent. */
  folds?: Folds;
  /** Renders answer text as Markdown (markdown.ts) once loaded; plain text while undefined. */
  markdown?: () => MarkdownStream | undefined;
}

function _short(value: unknown, max = 100): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** The hint after a folded head. */
export function foldHint(hidden: number, n: number): string {
  return `  … +${hidden} line${hidden === 1 ? "" : "s"} (Ctrl-O or /expand ${n})`;
}

export function createRenderer(write: (text: string) => void, style: Style, model: () => string, options: RendererOptions = {}): Renderer {
  const folds = options.folds ?? createFolds();
  let midLine = false;
  let reasoning: string | undefined;
  const live = new Map<string, { text: string; shown: number }>();
  let markdown: MarkdownStream | undefined;
  const out = (text: string) => {
    if (!text) return;
    write(text);
    midLine = !text.endsWith("\n");
  };
  const line = (text: string) => {
    if (midLine) out("\n");
    out(`${text}\n`);
  };
  return {
    render(raw) {
      const event = showControlsDeep(raw);
      if (event.type !== "text" && markdown) {
        out(markdown.finish());
        markdown = undefined;
      }
      if (event.type !== "reasoning" && reasoning !== undefined) {
        const lines = foldLines(reasoning.trim());
        reasoning = undefined;
        line(style.dim(`thinking: ${lines.slice(0, FOLD_HEAD_LINES).join("\n  ")}`));
        if (lines.length > FOLD_HEAD_LINES) line(style.dim(foldHint(lines.length - FOLD_HEAD_LINES, folds.add("thinking", lines.join("\n")))));
      }
      switch (event.type) {
        case "text":
          markdown ??= options.markdown?.();
          out(markdown ? markdown.push(event.text) : event.text);
          break;
        case "reasoning":
          reasoning = (reasoning ?? "") + event.text;
          break;
        case "tool-call":
          line(style.cyan(`● ${event.name} `) + style.dim(summarizeCall(options.toolFor?.(event.name), event.input, options.root ?? process.cwd())));
          break;
        case "tool-output": {
          const entry = live.get(event.id) ?? { text: "", shown: 0 };
          live.set(event.id, entry);
          const before = entry.text.split("\n").length - 1;
          entry.text += event.chunk;
          const complete = entry.text.split("\n").slice(before, -1);
          const fresh = complete.slice(0, Math.max(0, FOLD_HEAD_LINES - entry.shown));
          entry.shown += fresh.length;
          if (fresh.length > 0) line(fresh.map((text) => style.dim(`  │ ${text}`)).join("\n"));
          break;
        }
        case "tool-result": {
          const streamed = live.get(event.id);
          live.delete(event.id);
          const shownLines = streamed ? foldLines(streamed.text) : foldLines(event.output);
          const hidden = shownLines.length - (streamed ? streamed.shown : 1);
          if (hidden > 0) line(style.dim(foldHint(hidden, folds.add(event.name, shownLines.join("\n")))));
          const first = _short(event.output.split("\n")[0] ?? "", 80);
          // A command that ran and failed is a result, not a tool error, but it is no success either.
          line(/^exit: [1-9]/.test(first) ? style.red(`  ✗ ${event.name}: ${first}`) : style.dim(`  ✓ ${event.name}: ${first}`));
          break;
        }
        case "tool-error":
          line(style.red(`  ✗ ${event.name}: ${_short(event.error, 160)}`));
          break;
        case "tool-denied":
          line(style.yellow(`  ⊘ ${event.name}: ${_short(event.reason, 160)}`));
          break;
        case "hook":
          if (event.exit !== 0 || event.decision) line(style.dim(formatHookLine(event)));
          break;
        case "mcp":
          if (event.status === "failed") line(style.red(`mcp ${event.server} failed: ${event.error ?? "unknown error"}`));
          break;
        case "compacted":
          line(style.dim(formatCompactedLine(event.before, event.after)));
          break;
        case "notice":
          line(style.dim(event.text));
          break;
        case "error":
          line(style.red(`error: ${event.error}`));
          break;
        case "done": {
          if (midLine) out("\n");
          const tokens = event.inputTokens !== undefined ? `${event.inputTokens} in / ${event.outputTokens ?? 0} out tokens` : "no usage reported";
          const cost = event.costUsd !== undefined ? ` - ${formatUsd(event.costUsd)}` : event.inputTokens !== undefined ? ` (${model()} is unpriced)` : "";
          const inContext =
            event.context?.reportedTokens !== undefined ? `${event.context.reportedTokens} in context` : `~${event.context?.tokens} in context (estimate)`;
          const context = event.context ? `  (${inContext}, ${Math.round(event.context.share * 100)}% of the compaction threshold)` : "";
          const stop = event.stop === "completed" ? "" : `  [${event.stop}]`;
          line(style.dim(`${tokens}${cost}${context}${stop}`));
          if (event.checkpoint) line(style.dim(`checkpoint ${event.checkpoint.slice(0, 13)}: /undo takes this turn's changes back`));
          break;
        }
        default:
          break;
      }
    },
  };
}
