/**
 * The session's context: the model's window (configured, reported or learned in the background),
 * the context manager that plans each request's wire view and compacts, one tool-less `complete`
 * over the session's client, and what a run does when the window is exceeded (compact and retry
 * the step, or refuse a prompt that alone exceeds it).
 */
import { connectionFromConfig, type ModelClient } from "../../providers/client.ts";
import type { ResolvedConfig } from "../../config/config.ts";
import type { CompleteFn } from "../../providers/complete.ts";
import type { AgentEvent } from "../../events.ts";
import type { TurnOptions } from "../loop.ts";
import { createContextManager, type ContextManager } from "../context/manager.ts";
import { describePromptTooLarge, recoverFromOverflow } from "../context/overflow.ts";
import { createContextWindow, type ContextWindow } from "../context/window.ts";
import { learnModelWindow } from "../context/window-learned.ts";
import type { SessionPart } from "./session.ts";
import type { SessionModes } from "./modes.ts";

export interface ContextPart {
  window: ContextWindow;
  manager: ContextManager;
  /** One tool-less model call (compaction, memory, commit messages); a missing signal never aborts. */
  complete: CompleteFn;
  /** A context-length error: retry the step after compacting, or end the turn (loop.ts `onOverflow`). */
  onOverflow: NonNullable<TurnOptions["onOverflow"]>;
  /** Why `prompt` alone cannot be sent (it exceeds the window), or undefined. */
  tooLarge(prompt: string): string | undefined;
}

export interface ContextPartOptions {
  config: ResolvedConfig;
  client: ModelClient;
  modes: Pick<SessionModes, "model" | "thinking">;
  session: Pick<SessionPart, "session" | "writer">;
  /** PreCompact and SessionStart `compact` hooks around an automatic compaction. */
  onCompact?: (phase: "before" | "after") => Promise<AgentEvent[]>;
}

export function openContextPart(options: ContextPartOptions): ContextPart {
  const { config, client, modes } = options;
  const auto = config.file.compaction?.auto ?? true;
  const window = createContextWindow({ model: () => modes.model, configured: config.file.contextWindow, threshold: config.file.compaction?.threshold });
  if (window.unknown()) learnModelWindow(window, connectionFromConfig(config), modes.model, config.preset.id === "ollama");
  const manager = createContextManager({
    session: options.session.session,
    client,
    model: () => modes.model,
    thinking: () => modes.thinking,
    markChanged: () => options.session.writer.markChanged(),
    threshold: () => window.threshold(),
    auto,
    onCompact: options.onCompact,
  });
  return {
    window,
    manager,
    complete: (system, prompt, signal) => manager.complete(system, prompt, signal ?? new AbortController().signal),
    onOverflow: (message, attempt) => recoverFromOverflow({ window, model: modes.model, message, attempt, estimate: manager.lastEstimate(), auto }),
    tooLarge: (prompt) => describePromptTooLarge(prompt, window.current().window, modes.model),
  };
}
