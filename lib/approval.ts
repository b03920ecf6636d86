/**
 * The approval gate: the one decision API every front end uses (REPL prompt, headless policy,
 * worker subagents, tests). A call the gate does not allow never reaches its tool.
 *
 * Order per call:
 * 1. Plugin guards (`beforeToolCall`): the first block wins; --yolo cannot skip them.
 * 2. Permission rules: deny refuses with the rule's message; allow passes unless the repeat
 *    guard asks (third identical call of the turn, and later ones).
 * 3. Session grants ("always" answers) allow what they cover; never a repeated call.
 * 4. --yolo turns every remaining ask into allow.
 * 5. `decide` answers: once, always (records a grant), deny, or block (the run suspends on a
 *    persisted request). Questions are put one at a time, so an "always" given to one call
 *    covers an identical call that was waiting behind it.
 */
import { uuidv7 } from "./ids.ts";
import {
  REPEAT_ASK_AT, createRepeatGuard, createSessionGrants, describeRefusal, evaluatePermission, suggestPattern,
  type PermissionMatch, type PermissionRules, type SessionGrants,
} from "./permissions.ts";
import type { ApprovalAnswer, ApprovalRequest, DecisionSource } from "./approval-request.ts";
import type { PluginHost } from "./plugins.ts";
import { loadShellParser } from "./shell/parser.ts";
import { createPending } from "./store/approvals.ts";
import type { ToolDefinition } from "./tools/types.ts";

export type { ApprovalAnswer, ApprovalRequest, DecisionSource } from "./approval-request.ts";

/** `asked` is present when `decide` was consulted, so front ends can show the question. */
export type GateResult =
  | { allowed: true; asked?: ApprovalRequest }
  | { allowed: false; by: "plugin" | "rule" | "user" | "headless"; reason: string; asked?: ApprovalRequest }
  | { allowed: false; by: "block"; request: ApprovalRequest };

export interface GateCall {
  callId: string;
  tool: ToolDefinition | undefined;
  name: string;
  input: unknown;
  cwd: string;
  subagent?: boolean;
}

export interface GateOptions {
  rules: PermissionRules;
  plugins: PluginHost;
  yolo: boolean;
  decide: DecisionSource;
  /** Tools that run without asking unless a rule names them (session tools); plugin ones are added. */
  autoApprove?: ReadonlySet<string>;
  /** A "deny" from `decide` means nobody could be asked: reported as `headless`. */
  headless?: boolean;
  runId?: string;
  sessionId?: string;
}

export interface Gate {
  check(call: GateCall): Promise<GateResult>;
  /** Starts a new turn: the repeat guard forgets its counts. Grants stay. */
  newTurn(): void;
  readonly grants: SessionGrants;
}

export const USER_DENIED_REASON = "User denied this tool call.";
export const HEADLESS_DENIED_REASON =
  "Denied: this call needs approval, and a headless run without --yolo has nobody to give it.";

/** The decision source of a headless run without --yolo: nobody can answer, so every question is denied. */
export const denyAll: DecisionSource = async () => "deny";

export function createGate(options: GateOptions): Gate {
  const grants = createSessionGrants();
  const repeats = createRepeatGuard();
  let queue: Promise<unknown> = Promise.resolve();

  const ask = (call: GateCall, subjects: string[], repeated: boolean, matched: PermissionMatch | undefined): Promise<GateResult> => {
    const run = async (): Promise<GateResult> => {
      if (!repeated && grants.covers(call.name, subjects)) return { allowed: true };
      const request: ApprovalRequest = {
        id: uuidv7(), callId: call.callId, tool: call.name, input: call.input, subjects, subject: _subjectLine(call, subjects),
        repeated, matched, suggestedPattern: suggestPattern(call.name, call.input), cwd: call.cwd,
        ...(call.subagent ? { subagent: true } : {}),
        ...(options.runId ? { runId: options.runId } : {}),
        ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      };
      let answer: ApprovalAnswer | "block";
      try {
        answer = await options.decide(request);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return { allowed: false, by: "user", reason: `Refused: the approval question failed (${why}).`, asked: request };
      }
      if (answer === "block") return { allowed: false, by: "block", request };
      if (answer === "always") grants.add(call.name, request.suggestedPattern);
      if (answer === "once" || answer === "always") return { allowed: true, asked: request };
      if (options.headless) return { allowed: false, by: "headless", reason: HEADLESS_DENIED_REASON, asked: request };
      return { allowed: false, by: "user", reason: USER_DENIED_REASON, asked: request };
    };
    const result = queue.then(run);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    grants,
    newTurn: () => repeats.reset(),
    async check(call) {
      const blocked = await options.plugins.checkToolCall({ toolName: call.name, input: call.input, cwd: call.cwd });
      if (blocked !== undefined) return { allowed: false, by: "plugin", reason: blocked };

      if (call.name === "bash") await loadShellParser();
      const { subjects, known } = _subjectsOf(call.tool, call.input);
      const autoApprove = new Set([...(options.autoApprove ?? []), ...options.plugins.autoApprove()]);
      const verdict = evaluatePermission(options.rules, call.name, subjects, { autoApprove });
      if (verdict.decision === "deny") return { allowed: false, by: "rule", reason: describeRefusal(call.name, verdict.matched) };

      const repeated = repeats.record(call.name, call.input) >= REPEAT_ASK_AT;
      if (verdict.decision === "allow" && known && !repeated) return { allowed: true };
      if (options.yolo) return { allowed: true };
      return ask(call, subjects, repeated, verdict.matched);
    },
  };
}

/** One line for display: a bash call's command as written (its subjects are its simple commands), else the subjects joined. */
function _subjectLine(call: GateCall, subjects: string[]): string {
  const command = call.name === "bash" && call.input !== null && typeof call.input === "object" ? (call.input as { command?: unknown }).command : undefined;
  return typeof command === "string" ? command.replace(/\s+/g, " ").trim() : subjects.join(", ");
}

/** A call's permission subjects; `known` is false when the tool could not name them (they then ask). */
function _subjectsOf(tool: ToolDefinition | undefined, input: unknown): { subjects: string[]; known: boolean } {
  if (!tool?.subjects) return { subjects: [], known: true };
  try {
    const listed: unknown = tool.subjects(input);
    if (!Array.isArray(listed)) return { subjects: [], known: false };
    return { subjects: listed.filter((subject): subject is string => typeof subject === "string"), known: true };
  } catch {
    return { subjects: [], known: false };
  }
}

/**
 * The decision source of `--approvals block`: each question is persisted as a pending approval
 * (approvals.json) and the run suspends; `shiro approve|deny <id>` answers it later.
 */
export function createBlockingDecision(run: { runId: string; sessionId: string }): DecisionSource {
  return async (request) => {
    createPending({
      id: request.id, runId: request.runId ?? run.runId, sessionId: request.sessionId ?? run.sessionId,
      callId: request.callId, tool: request.tool, input: request.input, subjects: request.subjects,
      cwd: request.cwd, suggestedPattern: request.suggestedPattern,
    });
    return "block";
  };
}
