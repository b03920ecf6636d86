/**
 * One-shot model calls for housekeeping (memory compaction, summaries): one system text, one user
 * prompt, no tools, no thinking; the reply's text comes back. A provider error or an abort is
 * thrown, so callers leave their state untouched.
 */
import type { ResolvedConfig } from "../config/config.ts";
import { UserError } from "../platform/errors.ts";
import { connectionFromConfig, createModelClient } from "./client.ts";
import { assistantText } from "../messages.ts";

/** A one-shot model call: system text and one user prompt in, the reply's text out (the session's, or `completeOnce`). */
export type CompleteFn = (system: string, prompt: string, signal?: AbortSignal) => Promise<string>;

export async function completeOnce(config: ResolvedConfig, system: string, prompt: string, signal?: AbortSignal): Promise<string> {
  const client = createModelClient({ connection: connectionFromConfig(config), preset: config.preset, protocolForced: config.protocolForced });
  const stream = client.stream({
    model: config.model,
    system,
    messages: [{ role: "user", content: prompt }],
    tools: [],
    thinking: "off",
    signal,
  });
  for await (const event of stream) {
    if (event.type === "finish") return assistantText(event.message);
    if (event.type === "error") throw new UserError(event.error.message);
    if (event.type === "aborted") throw new UserError("the model call was interrupted");
  }
  throw new Error("the model stream ended without a result");
}
