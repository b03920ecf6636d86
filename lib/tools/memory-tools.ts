/**
 * remember, recall and forget: the model's hands on project memory. They touch only shiro's own
 * state, so they are read-only as far as the workspace goes and need no approval.
 */
import * as v from "valibot";
import { MEMORY_KINDS, type MemoryEntry, type MemorySource, type MemoryStore, type RememberResult } from "../store/memory.ts";
import forgetText from "./forget.md" with { type: "text" };
import recallText from "./recall.md" with { type: "text" };
import rememberText from "./remember.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";

const RememberInput = v.object({
  kind: v.picklist(MEMORY_KINDS),
  text: v.pipe(v.string(), v.description("one self-contained line, at most 400 characters")),
});
const RecallInput = v.object({ query: v.pipe(v.string(), v.description("words every matching note contains")) });
const ForgetInput = v.object({ text: v.pipe(v.string(), v.description("text, or part of the text, of the notes to delete")) });

export interface MemoryToolsOptions {
  /** Recorded on each new note (the session and run it came from). */
  source?: () => MemorySource | undefined;
}

export function createMemoryTools(store: MemoryStore, options: MemoryToolsOptions = {}): ToolDefinition[] {
  const remember: ToolDefinition<v.InferOutput<typeof RememberInput>> = {
    name: "remember",
    description: rememberText,
    schema: RememberInput,
    readOnly: true,
    execute: async ({ kind, text }) => formatRememberResult(store.remember(kind, text, options.source?.())),
  };
  const recall: ToolDefinition<v.InferOutput<typeof RecallInput>> = {
    name: "recall",
    description: recallText,
    schema: RecallInput,
    readOnly: true,
    execute: async ({ query }) => {
      const found = store.recall(query);
      return found.length === 0 ? `Nothing recorded about "${query.trim()}".` : found.map(formatMemoryEntry).join("\n");
    },
  };
  const forget: ToolDefinition<v.InferOutput<typeof ForgetInput>> = {
    name: "forget",
    description: forgetText,
    schema: ForgetInput,
    readOnly: true,
    execute: async ({ text }) => formatForgetResult(store.forget(text), text),
  };
  return [remember, recall, forget];
}

/** `Remembered as <kind> (<n> stored): <text>` or `Already recorded: <text>`. */
export function formatRememberResult(result: RememberResult): string {
  return result.status === "stored"
    ? `Remembered as ${result.entry.kind} (${result.count} stored): ${result.entry.text}`
    : `Already recorded: ${result.entry.text}`;
}

/** `Forgot 1 memory.`, `Forgot 3 memories.` or `No memory matches "<text>".` */
export function formatForgetResult(removed: number, text: string): string {
  if (removed === 0) return `No memory matches "${text.trim()}".`;
  return `Forgot ${removed} ${removed === 1 ? "memory" : "memories"}.`;
}

export function formatMemoryEntry(entry: MemoryEntry): string {
  return `(${entry.kind}) ${entry.text}`;
}
