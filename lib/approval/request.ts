/**
 * The question the approval gate puts, and who answers it. Kept apart from the gate
 * (lib/extensions/gate.ts) so the sandbox, which asks to rerun a refused command outside it, needs
 * nothing of the gate, its plugins or its tools.
 */
import type { PermissionMatch } from "./rules.ts";

/**
 * What a question shows of the call, as its tool declares it (ToolDefinition.preview, read from
 * the raw input): `content`, a whole file's new text, shown as a diff against the file as it is
 * (or against nothing); `edits`, replacements in one file, applied in order and shown as the diff
 * they would make; `patch`, a patch shown as written; `command`, a command line. Absent: the
 * call's arguments are shown.
 */
export type CallPreview =
  | { kind: "content"; path: string; content: string }
  | { kind: "edits"; path: string; edits: readonly PreviewEdit[] }
  | { kind: "patch"; patch: string }
  | { kind: "command"; command: string };

export interface PreviewEdit {
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}

export interface ApprovalRequest {
  /** Approval id (UUIDv7); also the id of the persisted record when the run blocks. */
  id: string;
  callId: string;
  tool: string;
  /** What the tool declares it does (ToolDefinition.effect); absent for a tool nobody declared. */
  effect?: "read" | "write" | "exec" | "net";
  input: unknown;
  /** What the question shows of the call (from the tool's declaration); absent: its arguments. */
  preview?: CallPreview;
  subjects: string[];
  /** One line for display and the persisted record: bash's command, else the subjects joined with ", ". */
  subject: string;
  /** Allowed by the rules, but the third (or later) identical call of this turn. */
  repeated: boolean;
  /** The rule that decided, when one matched. */
  matched?: PermissionMatch;
  /** What "always" grants: `git *` for a git command, `*` for other tools. */
  suggestedPattern: string;
  /** Asked on behalf of a worker subagent. */
  subagent?: boolean;
  /** Set when the call reads a path that may hold secrets: which path and why. */
  secret?: { path: string; why: string };
  /** Set when a plugin guard asks about the call (the guard cannot read a command): its question. */
  plugin?: string;
  /** Set when the question is whether to rerun a command outside the sandbox: what the sandbox refused. */
  sandbox?: string;
  cwd: string;
  runId?: string;
  sessionId?: string;
}

/** `{ deny }` is a denial with the user's sentence, which reaches the model with it. */
export type ApprovalAnswer = "once" | "always" | "deny" | { deny: string };

/** Who answers a question: the REPL prompt, the headless policy, a test. */
export type DecisionSource = (request: ApprovalRequest) => Promise<ApprovalAnswer | "block">;
