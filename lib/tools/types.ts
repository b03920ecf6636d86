/**
 * The tool contract. A tool is a valibot schema, a description (long text in a sibling .md,
 * imported as text), its declarations (effect, the paths a call touches, its default decision,
 * its prompt line) and `execute`. Everything else about a tool is derived from the declarations:
 * the paths guard plugins and path rules see, the default permissions, the read-only lists of
 * the plan/review variants and subagents, the headless notice and the system prompt.
 *
 * Tools throw on failure with a message the model can act on; the loop turns any throw,
 * an unknown tool name or arguments that fail the schema into an error tool result.
 * Tools never write to stdout: live output goes through `ctx.emitOutput`.
 */
import type * as v from "valibot";
import type { Decision } from "../config/config.ts";
import type { ToolSetName } from "../vocabulary.ts";
import type { CommandSandbox } from "../sandbox/session.ts";
import type { CallPreview } from "../approval/request.ts";

/**
 * What a call can do beyond returning text: `read` changes nothing (reads, searches, session
 * bookkeeping), `write` creates, changes, moves or deletes files, `exec` runs programs (or does
 * what nobody declared: MCP tools), `net` reaches the network.
 */
export type ToolEffect = "read" | "write" | "exec" | "net";

/**
 * What a call does within its effect, where "reads" or "writes" says too little: `search` finds
 * (grep, glob), `delete` and `move` remove or rename files, `think` only keeps the session's own
 * notes (the task list). Editors show it (the ACP tool kind, lib/ui/acp/tool-calls.ts).
 */
export type ToolAction = "search" | "delete" | "move" | "think";

/**
 * The editor's copy of workspace files (ACP fs delegation): a read returns the text the editor
 * holds (an unsaved buffer included), a write lands in the editor. Paths are absolute and already
 * through the jail; callers pass nothing the jail has not resolved inside the workspace.
 */
export interface WorkspaceFiles {
  read(abs: string): Promise<string>;
  write(abs: string, text: string): Promise<void>;
}

export interface ToolContext {
  /** Workspace root: every path a tool touches must resolve inside it (see jail.ts). */
  root: string;
  /** Aborted when the user interrupts the turn or the run is cancelled. */
  signal: AbortSignal;
  /** Live output chunks (bash), surfaced as `tool-output` events. */
  emitOutput: (chunk: string) => void;
  /** The call's id, for tools that report progress. */
  callId: string;
  /**
   * True when the gate let this call read files that may hold secrets (a rule named them, or the
   * user said yes). Read tools refuse such a file otherwise, judged by what they actually opened.
   */
  secretsAllowed?: boolean;
  /** True when a permission rule denies this tool the workspace path `path`; for tools that find files themselves (grep). */
  deniesPath?: (path: string) => boolean;
  /** Where subprocesses (bash) run confined; absent means unconfined. */
  sandbox?: CommandSandbox;
  /** The turn's checkpoint, for tools that run calls of their own (`task`): awaited before a write or exec call runs. */
  beforeChange?: () => Promise<void>;
  /** What the turn's checkpoint covers (told to the gate); undefined when none is taken. */
  checkpoint?: () => { maxFileBytes: number } | undefined;
  /** When set, read_file, write_file, edit_file and multi_edit read and write file text through it (the editor's buffers). */
  files?: WorkspaceFiles;
}

export interface ToolDefinition<TInput = any> {
  name: string;
  /** The tool set it belongs to; undefined for session, plugin and MCP tools (never gated by toolSets). */
  set?: ToolSetName;
  description: string;
  /** Validates and types the arguments; the JSON Schema sent to the model is derived from it. */
  schema: v.GenericSchema<unknown, TInput>;
  /** A ready JSON Schema, for tools whose schema is not valibot (MCP). Wins over `schema` for the wire. */
  jsonSchema?: Record<string, unknown>;
  effect: ToolEffect;
  /** What kind of read or write it is, when more than its effect (see ToolAction). */
  action?: ToolAction;
  /**
   * The workspace paths a call touches, read from its RAW input (before validation, so every
   * field is type-checked here) and as the model spelled them; `root` lets move_file and
   * delete_file expand a folder into the files under it. Required for `write` tools (a test
   * fails otherwise). Guard plugins get these paths; permission rules and the secrets
   * classifier get them normalised (lib/approval/rules.ts).
   */
  paths?: (input: unknown, root: string) => string[];
  /**
   * What its result puts in the model's context: `foreign` when it can carry text nobody in this
   * session wrote (file contents, command output, pages, server answers), `own` when it only
   * echoes shiro's own state or the user (a task list, a note stored, the user's answer).
   * Undefined: `own` for `write` tools, `foreign` for every other effect. A note remembered after
   * a foreign result is marked untrusted (lib/agent/memory-session.ts); a `read` tool with
   * `paths` is foreign only for the paths this session did not write first.
   */
  resultText?: "own" | "foreign";
  /** What a declared path the secrets classifier flags does: `ask` (default) or `skip` (the tool leaves it out and says so). */
  secretPaths?: "ask" | "skip";
  /** Its default permission; undefined (MCP tools) leaves it to wildcard rules, then `ask`. */
  decision?: Decision;
  /** Its one line of purpose where its schema is deferred (load_tools lists it); undefined: its description's first sentence. */
  guidance?: string;
  /**
   * Subjects other than paths that permission rules match: web_fetch → [url], grep → [pattern]; a
   * shell tool (one with `command`) gets its simple commands without saying. The call's normalised
   * paths are appended. None at all: only `*` matches.
   */
  subjects?: (input: TInput) => string[];
  /**
   * What a call does with the files `paths` names, as episodes, note provenance (and so staleness)
   * record it: `reads` their contents, `changes` them. `write` tools change them unless they say
   * otherwise; a tool that says nothing (a search, a listing) is not recorded.
   */
  touches?: "reads" | "changes";
  /**
   * For an `exec` tool that runs a shell command line (bash): the command a call runs, read from
   * its RAW input (undefined when it has none). Every such call is read by the shell parser, the
   * guard plugin judges it, its rules and "always" grants match its simple commands, its
   * sandboxed failures may ask to run outside the sandbox, and episodes record it as a command.
   */
  command?: (input: unknown) => string | undefined;
  /** The input of a call that runs `command`: how `!cmd` in the REPL calls the session's shell tool. */
  commandInput?: (command: string) => TInput;
  /**
   * For a `read` tool that reads one file: the input of a call reading `path`. A prompt's `@path`
   * attachment is judged as this call by the session's rules (the first tool that declares it).
   */
  pathInput?: (path: string) => TInput;
  /** True when a call only keeps the session's own records (notes, the task list): an episode does not count it as work. */
  bookkeeping?: boolean;
  /**
   * Whether its schema goes on every request: `eager` always (the `core` set is, without saying),
   * `budgeted` while the budgeted schemas fit `mcpSchemaBudget` (MCP tools), otherwise deferred
   * behind `load_tools` (lib/agent/context/tool-deferral.ts).
   */
  deferral?: "eager" | "budgeted";
  /**
   * The call as one line for people (the REPL's `● edit_file src/a.ts +3 -1`), from the RAW
   * input; lib/tools/call-summary.ts has the pieces. Undefined: its declared paths, else its
   * subjects, else its string arguments (lib/ui/tool-summary.ts).
   */
  summary?: (input: unknown) => string;
  /**
   * What an approval question shows of a call (REPL and ACP, lib/ui/approval-view.ts), from the
   * RAW input: a file's new content or edits (shown as the diff they would make), a patch, a
   * command line; undefined when the input does not read. lib/tools/call-preview.ts has the
   * pieces. Undefined: a shell tool (one with `command`) shows its command, any other its arguments.
   */
  preview?: (input: unknown) => CallPreview | undefined;
  /**
   * True when this call changes nothing although the tool could (bash: a read-only command line
   * the shell parser recognises, lib/shell/read-only.ts), from the RAW input. The gate then runs
   * it without the question its default would put (config `readOnlyCommands`, default `allow`);
   * a user rule that names the call, the repeat guard and the secrets question still decide.
   * Synchronous: the gate has awaited the shell reader (lib/shell/reader.ts) before it calls this
   * for a tool that declares `command`, and only then; a throw counts as false (the call asks).
   */
  readOnly?: (input: unknown, root: string) => boolean;
  /**
   * True when several calls of it in one step may run at once (`task`): they start as the loop
   * reaches them and their results join in call order. Others run one after another.
   */
  parallel?: boolean;
  /**
   * False for the agent's own bookkeeping (recall, forget, recall_discarded, load_tools): its calls
   * and results stay in the transcript but are marked `bookkeeping` there, and what indexes past
   * work (the transcript index behind recall and `shiro search`) leaves them out, so a later recall
   * never finds an earlier recall. Undefined: what it says is content.
   */
  memoryContent?: false;
  /**
   * Its Claude Code counterpart, for hooks written for Claude Code (lib/extensions/hooks/): the
   * name a hook's matcher and `tool_name` use, and its input in Claude Code's fields. Absent: the
   * tool is known to hooks by its own name and input (MCP tools are `mcp__server__tool` in both).
   */
  claudeCode?: ClaudeCodeCounterpart<TInput>;
  /** Returns the text the model reads. Throws Error(message) on failure. */
  execute: (input: TInput, ctx: ToolContext) => Promise<string>;
}

/** How a tool reads to a hook written for Claude Code (docs/hooks.md lists every mapping). */
export interface ClaudeCodeCounterpart<TInput = any> {
  /** Claude Code's tool name: `Bash`, `Write`, `Edit`, … */
  name: string;
  /** The call's arguments in Claude Code's fields (file paths absolute, as Claude Code gives them). */
  input: (args: TInput, root: string) => Record<string, unknown>;
  /** Claude Code's fields back to this tool's arguments (a hook's `updatedInput`); only the fields it names. */
  args: (input: Record<string, unknown>) => Record<string, unknown>;
  /** PostToolUse's `tool_response`, from the text the tool returned; default `{ output }`. */
  response?: (output: string, args: TInput, root: string) => Record<string, unknown>;
}

/** Every tool result longer than this is cut, with a `[truncated N chars]` note. */
export const RESULT_CAP = 30_000;

export function capResult(text: string, cap = RESULT_CAP): string {
  if (text.length <= cap) return text;
  return `${text.slice(0, cap)}\n... [truncated ${text.length - cap} chars]`;
}
