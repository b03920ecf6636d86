/**
 * remember, recall and forget: the model's hands on its notes. They touch only shiro's own
 * state, so they are read-only as far as the workspace goes and need no approval.
 *
 * With a global store (options.global), remember and forget take a `scope` and recall searches
 * both stores; without one, the tools work on the project store alone and offer no `scope`.
 */
import * as v from "valibot";
import {
  MEMORY_KINDS, MEMORY_SCOPES,
  type MemoryEntry, type MemoryScope, type MemorySource, type MemoryStore, type RememberResult,
} from "../store/memory.ts";
import { placeholderFor } from "../secrets/redact.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import { RECALL_KINDS, RECALL_MAX_LIMIT, recallMemory, recallMemoryHybrid } from "../store/memory-recall.ts";
import { TRANSCRIPT_KIND, recallWithTranscripts, type RecallToolRequest } from "../find/recall-transcripts.ts";
import type { EmbeddingClient } from "../search/embeddings.ts";
import forgetText from "./forget.md" with { type: "text" };
import recallText from "./recall.md" with { type: "text" };
import rememberText from "./remember.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";

const _kind = v.picklist(MEMORY_KINDS);
const _text = v.pipe(v.string(), v.description("one self-contained line, at most 400 characters"));
const _rememberScope = v.optional(v.pipe(v.picklist(MEMORY_SCOPES), v.description(
  "project (default): about this codebase. global: about the user or their machine, true in every project, e.g. \"the user's shell is fish\", \"prefers pnpm\"",
)));
const _forgetText = v.pipe(v.string(), v.description("text, or part of the text, of the notes to delete"));
const _forgetScope = v.optional(v.pipe(v.picklist(MEMORY_SCOPES), v.description("only this store; both when omitted")));

const RememberInput = v.object({ kind: _kind, text: _text });
const ScopedRememberInput = v.object({ kind: _kind, text: _text, scope: _rememberScope });
const RecallInput = v.object({
  query: v.pipe(v.string(), v.description("words, or an episode's session id to see it whole; may be empty with file")),
  scope: v.optional(v.picklist(MEMORY_SCOPES)),
  kinds: v.optional(v.array(v.picklist([...RECALL_KINDS, TRANSCRIPT_KIND]))),
  file: v.optional(v.pipe(v.string(), v.description("episodes that read or changed this path"))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(RECALL_MAX_LIMIT))),
});
const ForgetInput = v.object({ text: _forgetText });
const ScopedForgetInput = v.object({ text: _forgetText, scope: _forgetScope });

type _RememberArgs = { kind: v.InferOutput<typeof _kind>; text: string; scope?: MemoryScope };
type _ForgetArgs = { text: string; scope?: MemoryScope };

export interface MemoryToolsOptions {
  /** The user's notes shared by every project: adds `scope` to remember and forget, and recall searches it too. */
  global?: MemoryStore;
  /** Recorded on each new note (the session and run it came from). */
  source?: () => MemorySource | undefined;
  /** The project's episodes, searched by recall beside the notes. */
  episodes?: EpisodeStore;
  /** The folder a relative recall `file` is resolved against (default: the project root). */
  cwd?: string;
  /** Hears a recall notice (an index rebuilt); the model reads it in the result too. */
  onNotice?: (text: string) => void;
  /** Config `memory.embeddings`: recall ranks by words and meaning. */
  embeddings?: EmbeddingClient;
}

export function createMemoryTools(project: MemoryStore, options: MemoryToolsOptions = {}): ToolDefinition[] {
  const stores = options.global ? [project, options.global] : [project];
  const storeFor = (scope: MemoryScope | undefined): MemoryStore => (scope === "global" && options.global ? options.global : project);

  const remember: ToolDefinition<_RememberArgs> = {
    name: "remember",
    effect: "read",
    decision: "allow",
    guidance: "save a durable one-line note about this project for future sessions",
    description: rememberText,
    schema: options.global ? ScopedRememberInput : RememberInput,
    execute: async ({ kind, text, scope }) => {
      const store = storeFor(scope);
      return formatRememberResult(store.remember(kind, text, options.source?.()), store.scope);
    },
  };
  const recall: ToolDefinition<RecallToolRequest> = {
    name: "recall",
    effect: "read",
    decision: "allow",
    guidance: "search this project's notes (every word must match)",
    description: recallText,
    schema: RecallInput,
    execute: async (request) => {
      const projectRoot = project.projectRoot ?? options.cwd ?? process.cwd();
      const context = { projectRoot, cwd: options.cwd ?? projectRoot, project, global: options.global, episodes: options.episodes, onNotice: options.onNotice };
      return recallWithTranscripts(request, projectRoot, options.source?.()?.sessionId, (memoryRequest) => (
        options.embeddings ? recallMemoryHybrid(context, memoryRequest, options.embeddings) : recallMemory(context, memoryRequest)));
    },
  };
  const forget: ToolDefinition<_ForgetArgs> = {
    name: "forget",
    effect: "read",
    decision: "allow",
    guidance: "remove notes that turned out wrong",
    description: forgetText,
    schema: options.global ? ScopedForgetInput : ForgetInput,
    execute: async ({ text, scope }) => {
      const targets = scope ? [storeFor(scope)] : stores;
      const removed = targets.reduce((sum, store) => sum + store.forget(text), 0);
      return formatForgetResult(removed, text);
    },
  };
  return [remember, recall, forget];
}

/**
 * `Remembered as <kind> (<n> stored): <text>` or `Already recorded: <text>`; a global note says so:
 * `Remembered as <kind> (global, <n> stored): <text>`, `Already recorded (global): <text>`.
 * A note that held a secret adds a second line naming what was redacted.
 */
export function formatRememberResult(result: RememberResult, scope: MemoryScope = "project"): string {
  const global = scope === "global";
  const line = result.status === "stored"
    ? `Remembered as ${result.entry.kind} (${global ? "global, " : ""}${result.count} stored): ${result.entry.text}`
    : `Already recorded${global ? " (global)" : ""}: ${result.entry.text}`;
  if (!result.redacted?.length) return line;
  const placeholders = result.redacted.map((kind) => placeholderFor(kind)).join(", ");
  return `${line}\nThe note held a secret (${result.redacted.join(", ")}): it was saved as ${placeholders}, never the value itself. Notes must not hold secrets; say where the value lives instead (e.g. "the key is in .env as STRIPE_KEY").`;
}

/** `Forgot 1 memory.`, `Forgot 3 memories.` or `No memory matches "<text>".` */
export function formatForgetResult(removed: number, text: string): string {
  if (removed === 0) return `No memory matches "${text.trim()}".`;
  return `Forgot ${removed} ${removed === 1 ? "memory" : "memories"}.`;
}

/** `(<kind>) <text>`, or `(<kind>, global) <text>` for a global note. */
export function formatMemoryEntry(entry: MemoryEntry, scope: MemoryScope = "project"): string {
  return `(${entry.kind}${scope === "global" ? ", global" : ""}) ${entry.text}`;
}
