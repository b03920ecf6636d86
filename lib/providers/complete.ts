/**
 * One-shot model calls for housekeeping (memory compaction, summaries): one system text, one user
 * prompt, no tools, no thinking; the reply's text comes back. A provider error or an abort is
 * thrown, so callers leave their state untouched.
 */
import type { ResolvedConfig } from "../config/config.ts";
import { UserError } from "../platform/errors.ts";
import { connectionFromConfig, createModelClient, type ModelClient } from "./client.ts";
import { assistantText } from "../messages.ts";

/** A one-shot model call: system text and one user prompt in, the reply's text out (the session's, or `completeOnce`). */
export type CompleteFn = (system: string, prompt: string, signal?: AbortSignal) => Promise<string>;

export async function completeOnce(config: ResolvedConfig, system: string, prompt: string, signal?: AbortSignal): Promise<string> {
  const client = createModelClient({ connection: connectionFromConfig(config), preset: config.preset, protocolForced: config.protocolForced });
  return completeWith(client, config.model, system, prompt, signal, {
    error: (message) => new UserError(message),
    aborted: () => new UserError("the model call was interrupted"),
  });
}

/**
 * One system text and one user prompt through `client`, no tools, no thinking; the reply's text.
 * A provider error or an abort is thrown as the error `raise` makes of it.
 */
export async function completeWith(
  client: Pick<ModelClient, "stream">,
  model: string,
  system: string,
  prompt: string,
  signal: AbortSignal | undefined,
  raise: { error: (message: string) => Error; aborted: () => Error } = { error: (message) => new Error(message), aborted: () => new Error("interrupted") },
): Promise<string> {
  const stream = client.stream({ model, system, messages: [{ role: "user", content: prompt }], tools: [], thinking: "off", signal });
  for await (const event of stream) {
    if (event.type === "finish") return assistantText(event.message);
    if (event.type === "error") throw raise.error(event.error.message);
    if (event.type === "aborted") throw raise.aborted();
  }
  throw new Error("the model stream ended without a result");
}
