/**
 * The approval question over ACP: whatever the gate would ask in the REPL is put to the editor
 * as `session/request_permission`, and the answer maps onto the gate's answers exactly as the
 * REPL's keys do: allow once = `y` (once), allow always = `a` (always: a session grant of the
 * request's suggested pattern, made by the gate), reject once = `n` (deny). Reject always denies
 * as well and remembers the same pattern for the session, so a question it covers is denied
 * without being put again (never a question about a possible secret). A cancelled question (the
 * turn was cancelled, or the editor withdrew it) denies. The question carries what the REPL shows
 * under its own: why it asks when that is not plain, and the call's detail (an edit's diff).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { ApprovalAnswer, ApprovalRequest, DecisionSource } from "../../approval/request.ts";
import { createSessionGrants } from "../../approval/rules.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { renderApprovalDetail } from "../approval-view.ts";
import { createStyle } from "../style.ts";
import { toolKindOf, toolLocationsOf, toolTitleOf } from "./tool-calls.ts";

export interface PermissionOptions {
  sessionId: () => string;
  /** Sends the request to the editor; `signal` aborts it when the turn is cancelled. */
  ask: (params: acp.RequestPermissionRequest, signal?: AbortSignal) => Promise<acp.RequestPermissionResponse>;
  toolNamed: (name: string) => ToolDefinition | undefined;
  /** The turn in flight's signal, when one runs. */
  turnSignal: () => AbortSignal | undefined;
}

const _ANSWERS: Record<acp.PermissionOptionKind, ApprovalAnswer> = { allow_once: "once", allow_always: "always", reject_once: "deny", reject_always: "deny" };

export function createAcpDecision(options: PermissionOptions): DecisionSource {
  const refusals = createSessionGrants();
  return async (request) => {
    if (!request.secret && refusals.covers(request.tool, request.subjects, options.toolNamed(request.tool)?.command !== undefined)) return "deny";
    const signal = options.turnSignal();
    if (signal?.aborted) return "deny";
    let response: acp.RequestPermissionResponse;
    try {
      response = await options.ask(_permissionRequest(options.sessionId(), request, options.toolNamed(request.tool)), signal);
    } catch (error) {
      // The turn was cancelled while the question was open: the question is withdrawn, as Ctrl-C withdraws the REPL's.
      if (signal?.aborted) return "deny";
      throw error;
    }
    if (response.outcome.outcome !== "selected") return "deny";
    const kind = response.outcome.optionId as acp.PermissionOptionKind;
    const answer = _ANSWERS[kind] ?? "deny";
    if (kind === "reject_always" && !request.secret) refusals.add(request.tool, request.suggestedPattern);
    return answer;
  };
}

function _permissionRequest(sessionId: string, request: ApprovalRequest, tool: ToolDefinition | undefined): acp.RequestPermissionRequest {
  const scope = request.suggestedPattern === "*" ? `every ${request.tool} call` : `${request.tool} ${request.suggestedPattern}`;
  const why = request.secret
    ? `${request.secret.path} may hold secrets (${request.secret.why})`
    : request.sandbox
      ? `run outside the sandbox: ${request.sandbox}`
      : request.repeated
        ? "the same call again, the third time this turn"
        : undefined;
  // What the REPL shows under its question: an edit's diff as it would land, a command, or the arguments.
  const detail = renderApprovalDetail({ tool: request.tool, input: request.input, preview: request.preview, root: request.cwd }, createStyle(false));
  const options: acp.PermissionOption[] = [
    { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
    ...(request.secret ? [] : [{ optionId: "allow_always", name: `Always allow ${scope} in this session`, kind: "allow_always" as const }]),
    { optionId: "reject_once", name: "Reject", kind: "reject_once" },
    ...(request.secret ? [] : [{ optionId: "reject_always", name: `Always reject ${scope} in this session`, kind: "reject_always" as const }]),
  ];
  return {
    sessionId,
    toolCall: {
      toolCallId: request.callId,
      title: toolTitleOf(request.tool, tool, request.input, request.cwd),
      kind: toolKindOf(tool),
      status: "pending",
      locations: toolLocationsOf(tool, request.input, request.cwd),
      rawInput: request.input,
      content: [{ type: "content", content: { type: "text", text: [...(why ? [why] : []), ...detail].join("\n") } }],
    },
    options,
  };
}

/**
 * A yes-or-no question that belongs to no tool call (attaching a file that may hold secrets to a
 * prompt), put as a permission question about a `read` of it: allow once is `y`, anything else `n`.
 * The REPL's key hint at the end of the question (`y … | n …`) is left off: the editor shows buttons.
 */
export function createAcpQuestion(options: Pick<PermissionOptions, "sessionId" | "ask" | "turnSignal">): (question: string) => Promise<string> {
  let asked = 0;
  return async (question) => {
    const signal = options.turnSignal();
    try {
      const response = await options.ask(
        {
          sessionId: options.sessionId(),
          toolCall: {
            toolCallId: `attach-${++asked}`,
            title: question.replace(/\s*\by [^|]*\|\s*n [^|]*$/, "").trim(),
            kind: "read",
            status: "pending",
          },
          options: [
            { optionId: "allow_once", name: "Attach once", kind: "allow_once" },
            { optionId: "reject_once", name: "Leave it out", kind: "reject_once" },
          ],
        },
        signal,
      );
      return response.outcome.outcome === "selected" && response.outcome.optionId === "allow_once" ? "y" : "n";
    } catch (error) {
      if (signal?.aborted) return "n";
      throw error;
    }
  };
}
