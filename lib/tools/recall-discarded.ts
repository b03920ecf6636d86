/**
 * recall_discarded: the model's way back into the history compaction took off the wire.
 * It reads the session's own state only, so it is read-only and needs no approval.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import type { Message } from "../messages.ts";
import type { CompactionState } from "../context-state/state.ts";
import { formatLedgerResult, searchLedger } from "../context-state/span-summaries.ts";
import description from "./recall-discarded.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";

const RecallDiscardedInput = lazySchema(() =>
  v.object({
    query: v.pipe(v.string(), v.description("words every matching message contains")),
  }),
);

export interface Ledger {
  /** The session's full history. */
  messages: Message[];
  state: CompactionState;
}

/** `getLedger` is read on every call, so the tool always searches the live session. */
export function createRecallDiscardedTool(getLedger: () => Ledger): ToolDefinition<v.InferOutput<typeof RecallDiscardedInput>> {
  return {
    name: "recall_discarded",
    description,
    schema: RecallDiscardedInput,
    effect: "read",
    bookkeeping: true,
    decision: "allow",
    memoryContent: false,
    guidance: "search the verbatim history that compaction removed from your context",
    execute: async ({ query }) => {
      if (!query.trim()) throw new Error("query is empty: give one or more words to search for");
      const { messages, state } = getLedger();
      const found = searchLedger(messages, state, query);
      return found.matches === 0 ? `Nothing in the compacted history matches "${query.trim()}".` : formatLedgerResult(found);
    },
  };
}
