/**
 * remember, recall and forget: the model's hands on its notes. They touch only shiro's own
 * state, so they are read-only as far as the workspace goes and need no approval.
 *
 * With a shelf (options.shelf: every scope, memory-scopes.ts), remember, recall and forget take
 * any `scope` of MEMORY_SCOPES; with only a global store (options.global), `project` or `global`;
 * with neither, the tools work on the project store alone and offer no `scope`.
 * With `confirmWrites` (config memory.confirmWrites), remember and forget declare `ask`: they ask like a write.
 */
import * as v from "valibot";
import { lazySchema } from "./schema.ts";
import { MEMORY_KINDS, MEMORY_SCOPES, type MemoryEntry, type MemoryScope, type MemorySource, type MemoryStore, type RememberResult } from "../store/memory.ts";
import { placeholderFor } from "../secrets/redact.ts";
import { escapeMemoryText } from "../store/memory-escape.ts";
import type { EpisodeStore } from "../store/episodes.ts";
import type { MemoryShelf } from "../store/memory-scopes.ts";
import { RECALL_KINDS, RECALL_MAX_LIMIT, TRANSCRIPT_KIND, recallMemoryHybrid } from "../store/memory-recall.ts";
import type { RecallToolRequest } from "../find/recall-transcripts.ts";
import type { EmbeddingClient } from "../search/embeddings.ts";
import forgetText from "./forget.md" with { type: "text" };
import recallText from "./recall.md" with { type: "text" };
import rememberText from "./remember.md" with { type: "text" };
import type { ToolDefinition } from "./types.ts";

const _kind = lazySchema(() => v.picklist(MEMORY_KINDS));
const _text = lazySchema(() => v.pipe(v.string(), v.description("one self-contained line, at most 400 characters")));
const _TWO_SCOPES = ["project", "global"] as const;
const _GLOBAL_HINT = 'global: about the user or their machine, true in every project, e.g. "the user\'s shell is fish", "prefers pnpm"';
const _rememberScope = lazySchema(() => v.optional(v.pipe(v.picklist(_TWO_SCOPES), v.description(`project (default): about this codebase. ${_GLOBAL_HINT}`))));
const _shelfScope = lazySchema(() =>
  v.optional(
    v.pipe(
      v.picklist(MEMORY_SCOPES),
      v.description(
        "project (default): this codebase. run: this run only. agent: this agent mode only. repo: .shiro/notes.json, committed for the team. global: the user or their machine, in every project",
      ),
    ),
  ),
);
const _forgetText = lazySchema(() => v.pipe(v.string(), v.description("text, or part of the text, of the notes to delete")));
const _forgetScope = lazySchema(() => v.optional(v.pipe(v.picklist(_TWO_SCOPES), v.description("only this store; every store when omitted"))));
const _shelfForgetScope = lazySchema(() => v.optional(v.pipe(v.picklist(MEMORY_SCOPES), v.description("only this store; every store when omitted"))));

const RememberInput = lazySchema(() => v.object({ kind: _kind, text: _text }));
const ScopedRememberInput = lazySchema(() => v.object({ kind: _kind, text: _text, scope: _rememberScope }));
const ShelfRememberInput = lazySchema(() => v.object({ kind: _kind, text: _text, scope: _shelfScope }));
const RecallInput = lazySchema(() =>
  v.object({
    query: v.pipe(v.string(), v.description("words, or an episode's session id to see it whole; may be empty with file")),
    scope: v.optional(v.picklist(MEMORY_SCOPES)),
    kinds: v.optional(v.array(v.picklist([...RECALL_KINDS, TRANSCRIPT_KIND]))),
    file: v.optional(v.pipe(v.string(), v.description("episodes that read or changed this path"))),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(RECALL_MAX_LIMIT))),
  }),
);
const ForgetInput = lazySchema(() => v.object({ text: _forgetText }));
const ScopedForgetInput = lazySchema(() => v.object({ text: _forgetText, scope: _forgetScope }));
const ShelfForgetInput = lazySchema(() => v.object({ text: _forgetText, scope: _shelfForgetScope }));

type _RememberArgs = { kind: v.InferOutput<typeof _kind>; text: string; scope?: MemoryScope };
type _ForgetArgs = { text: string; scope?: MemoryScope };

export interface MemoryToolsOptions {
  /** The user's notes shared by every project: adds `scope` to remember and forget, and recall searches it too. */
  global?: MemoryStore;
  /** Every scope (run, agent, project, global, repo); `project` must be its project store. */
  shelf?: MemoryShelf;
  /** Recorded on each new note: its provenance (memory-provenance.ts), given the note's text. */
  source?: (text: string) => MemorySource | undefined;
  /** The session asking: recall leaves its own transcript out (without it, `source`'s). */
  sessionId?: () => string | undefined;
  /** Hears every note stored (not duplicates), for the list at the end of the run. */
  onWritten?: (entry: MemoryEntry, scope: MemoryScope) => void;
  /** Hears every note a forget removed, for the list at the end of the run. */
  onForgotten?: (entries: readonly MemoryEntry[], scope: MemoryScope) => void;
  /** Config memory.confirmWrites: remember and forget ask like a write. */
  confirmWrites?: boolean;
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
  const shelf = options.shelf;
  const stores = (): MemoryStore[] => (shelf ? shelf.stores() : options.global ? [project, options.global] : [project]);
  const storeFor = (scope: MemoryScope | undefined): MemoryStore => {
    if (shelf) return shelf.store(scope ?? "project");
    return scope === "global" && options.global ? options.global : project;
  };

  const remember: ToolDefinition<_RememberArgs> = {
    name: "remember",
    resultText: "own",
    effect: "read",
    bookkeeping: true,
    decision: options.confirmWrites ? "ask" : "allow",
    guidance: "save a durable one-line note about this project for future sessions",
    description: rememberText,
    schema: shelf ? ShelfRememberInput : options.global ? ScopedRememberInput : RememberInput,
    execute: async ({ kind, text, scope }) => {
      const store = storeFor(scope);
      const result = store.remember(kind, text, options.source?.(text));
      if (result.status === "stored") options.onWritten?.(result.entry, store.scope);
      return formatRememberResult(result, store.scope, escapeMemoryText);
    },
  };
  const recall: ToolDefinition<RecallToolRequest> = {
    name: "recall",
    effect: "read",
    bookkeeping: true,
    decision: "allow",
    memoryContent: false,
    guidance: "search notes and past work, ranked by relevance",
    description: recallText,
    schema: RecallInput,
    execute: async (request) => {
      const projectRoot = project.projectRoot ?? options.cwd ?? process.cwd();
      const context = {
        projectRoot,
        cwd: options.cwd ?? projectRoot,
        project,
        global: options.global,
        stores: stores(),
        episodes: options.episodes,
        onNotice: options.onNotice,
      };
      const sessionId = options.sessionId ? options.sessionId() : options.source?.("")?.sessionId;
      // The transcript search (lib/find) loads on the first recall, not on every start.
      const { recallWithTranscripts } = await import("../find/recall-transcripts.ts");
      const embeddings = options.embeddings;
      return recallWithTranscripts(
        request,
        context,
        sessionId,
        embeddings ? (memoryRequest) => recallMemoryHybrid(context, memoryRequest, embeddings) : undefined,
      );
    },
  };
  const forget: ToolDefinition<_ForgetArgs> = {
    name: "forget",
    resultText: "own",
    effect: "read",
    bookkeeping: true,
    memoryContent: false,
    guidance: "remove notes that turned out wrong",
    decision: options.confirmWrites ? "ask" : "allow",
    description: forgetText,
    schema: shelf ? ShelfForgetInput : options.global ? ScopedForgetInput : ForgetInput,
    execute: async ({ text, scope }) => {
      const targets = scope ? [storeFor(scope)] : stores();
      let removed = 0;
      for (const store of targets) {
        const gone: MemoryEntry[] = [];
        removed += store.forget(text, gone);
        if (gone.length > 0) options.onForgotten?.(gone, store.scope);
      }
      return formatForgetResult(removed, text);
    },
  };
  return [remember, recall, forget];
}

/**
 * `Remembered as <kind> (<n> stored): <text>` or `Already recorded: <text>`; a note of another
 * scope names it: `Remembered as <kind> (global, <n> stored): <text>`, `Already recorded (repo): <text>`.
 * A note that held a secret adds a second line naming what was redacted. `text` treats the
 * note's text and the placeholders the second line names alike (the tool passes
 * `escapeMemoryText`, a terminal its sanitiser), so both lines spell a placeholder the same way.
 */
export function formatRememberResult(result: RememberResult, scope: MemoryScope = "project", text: (value: string) => string = (value) => value): string {
  const named = scope !== "project";
  const line =
    result.status === "stored"
      ? `Remembered as ${result.entry.kind} (${named ? `${scope}, ` : ""}${result.count} stored): ${text(result.entry.text)}`
      : `Already recorded${named ? ` (${scope})` : ""}: ${text(result.entry.text)}`;
  if (!result.redacted?.length) return line;
  const placeholders = result.redacted.map((kind) => text(placeholderFor(kind))).join(", ");
  return `${line}\nThe note held a secret (${result.redacted.join(", ")}): it was saved as ${placeholders}, never the value itself. Notes must not hold secrets; say where the value lives instead (e.g. "the key is in .env as STRIPE_KEY").`;
}

/** `Forgot 1 memory.`, `Forgot 3 memories.` or `No memory matches "<text>".` */
export function formatForgetResult(removed: number, text: string): string {
  if (removed === 0) return `No memory matches "${text.trim()}".`;
  return `Forgot ${removed} ${removed === 1 ? "memory" : "memories"}.`;
}

/** `(<kind>) <text>`, or `(<kind>, <scope>) <text>` for a note of another scope than project. */
export function formatMemoryEntry(entry: MemoryEntry, scope: MemoryScope = "project"): string {
  return `(${entry.kind}${scope === "project" ? "" : `, ${scope}`}) ${entry.text}`;
}
