/**
 * The question the approval gate puts, and who answers it. Kept apart from the gate
 * (lib/extensions/gate.ts) so the sandbox, which asks to rerun a refused command outside it, needs
 * nothing of the gate, its plugins or its tools.
 */
import type { PermissionMatch } from "./rules.ts";

export interface ApprovalRequest {
  /** Approval id (UUIDv7); also the id of the persisted record when the run blocks. */
  id: string;
  callId: string;
  tool: string;
  /** What the tool declares it does (ToolDefinition.effect); absent for a tool nobody declared. */
  effect?: "read" | "write" | "exec" | "net";
  input: unknown;
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
