/**
 * Renders the AgentEvent stream in the interactive REPL: answer text streams as it arrives,
 * reasoning and tool activity are dimmed one-liners, live tool output is shown indented.
 * It is the REPL's one writer of user-visible output.
 */
import type { AgentEvent } from "../events.ts";
import { formatCompactedLine } from "../agent/context/planner.ts";
import { formatUsd } from "../providers/pricing.ts";
import type { Style } from "./style.ts";
import { formatHookLine } from "./hooks-list.ts";

export interface Renderer {
  render(event: AgentEvent): void;
}

function _short(value: unknown, max = 100): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function _summary(input: unknown): string {
  if (input && typeof input === "object") {
    const record = input as Record<string, unknown>;
    for (const key of ["command", "path", "pattern", "query", "url", "ref", "from"]) {
      if (typeof record[key] === "string") return _short(record[key]);
    }
  }
  return _short(input);
}

export function createRenderer(write: (text: string) => void, style: Style, model: () => string): Renderer {
  let midLine = false;
  let inReasoning = false;
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
    render(event) {
      if (event.type !== "reasoning" && inReasoning) {
        inReasoning = false;
        if (midLine) out("\n");
      }
      switch (event.type) {
        case "text":
          out(event.text);
          break;
        case "reasoning":
          if (!inReasoning) {
            if (midLine) out("\n");
            out(style.dim("thinking: "));
            inReasoning = true;
          }
          out(style.dim(event.text));
          break;
        case "tool-call":
          line(style.cyan(`● ${event.name} `) + style.dim(_summary(event.input)));
          break;
        case "tool-output": {
          const lines = event.chunk.replace(/\n$/, "").split("\n");
          line(lines.map((text) => style.dim(`  │ ${text}`)).join("\n"));
          break;
        }
        case "tool-result": {
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
