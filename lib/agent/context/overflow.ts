/**
 * What a context-length error does to a turn, and the prompt too large to send at all.
 *
 * An overflow is recovered, not fatal: the window is learned from the error (window.ts), so the
 * next plan compacts under the lower threshold, and the step is retried, at most
 * MAX_OVERFLOW_RETRIES times in a turn; then the turn fails with the numbers. With compaction
 * switched off (`compaction.auto: false`) nothing can shrink, so the first overflow fails.
 */
import type { ModelRequest } from "../../providers/types.ts";
import type { ContextWindow } from "./window.ts";

export const MAX_OVERFLOW_RETRIES = 2;

export interface OverflowInput {
  window: ContextWindow;
  model: string;
  /** The provider's error, as the adapter worded it. */
  message: string;
  /** 1 for the step's first overflow this turn, 2 for the next, … */
  attempt: number;
  /** Estimated tokens of the request that overflowed (system prompt and tool schemas included). */
  estimate?: number;
  /** Config `compaction.auto`. */
  auto: boolean;
}

export type OverflowRecovery = { retry: true; notice: string } | { retry: false; error: string };

export function recoverFromOverflow(input: OverflowInput): OverflowRecovery {
  const before = input.window.current();
  const estimate = input.estimate ?? before.window;
  const said = input.message.replace(/ — the conversation is too long for .*$/, "");
  if (!input.auto) {
    return {
      retry: false,
      error: `${said} — the request (about ${estimate} tokens) is over ${input.model}'s context window and compaction is off (compaction.auto: false); run /compact, or turn compaction on`,
    };
  }
  if (input.attempt > MAX_OVERFLOW_RETRIES) {
    return {
      retry: false,
      error: `${said} — still over ${input.model}'s context window after compacting ${MAX_OVERFLOW_RETRIES} times: the request is about ${estimate} tokens (system prompt and tool schemas included) against a window of ${before.window} (${before.source}); set contextWindow in config.json if that is wrong, or start a new session`,
    };
  }
  const window = input.window.learn(input.message, estimate);
  return {
    retry: true,
    notice: `context window exceeded (${input.model}, about ${estimate} tokens sent): assuming a window of ${window} tokens, compacting to ${input.window.threshold()} and retrying (${input.attempt}/${MAX_OVERFLOW_RETRIES})`,
  };
}

/** Why `prompt` cannot be sent to a model with `window` tokens, or undefined when it fits. */
export function describePromptTooLarge(prompt: string, window: number, model: string): string | undefined {
  const tokens = Math.ceil(prompt.length / 4);
  if (tokens <= window) return undefined;
  return `the prompt is about ${tokens} tokens (${prompt.length} characters), more than ${model}'s context window of ${window} tokens; shorten it or send the material in parts`;
}

/** Characters of what a request sends: system prompt, messages and tool schemas. */
export function requestSize(request: ModelRequest): number {
  return request.system.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length;
}

/**
 * Why a retry after a context-length error is not sent: it is not smaller than the request the
 * provider refused (`refused`, characters), so sending it would repeat the refusal. Undefined
 * when there was no overflow or the request shrank.
 */
export function describeUnshrunk(size: number, refused: number | undefined): string | undefined {
  if (refused === undefined || size < refused) return undefined;
  return `the request is still about ${Math.ceil(size / 4)} tokens (${size} characters) after compacting, not smaller than the ${refused} characters the provider refused as too long; not sending it again — run /compact, or start a new session`;
}
