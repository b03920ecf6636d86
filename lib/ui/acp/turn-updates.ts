/**
 * One turn's AgentEvents as ACP `session/update`s: text and reasoning deltas as message and
 * thought chunks, each tool call as `tool_call` (pending, with kind, title, locations and raw
 * input), its live output and its end as `tool_call_update`s (a diff for every file a write
 * changed), the task list as `plan`. What an editor has no place for (notices, MCP state, the
 * memory a prompt carries) goes to `diagnose`: stderr, and the run log has it anyway.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent, StopKind } from "../../events.ts";
import type { Todo } from "../../notebook.ts";
import type { ToolDefinition, WorkspaceFiles } from "../../tools/types.ts";
import type { TerminalMirror } from "./terminal-mirror.ts";
import { diffsSince, snapshotFiles, toolKindOf, toolLocationsOf, toolTitleOf, type FileTexts } from "./tool-calls.ts";

/** What a tool call's live output keeps for the editor: the last this many characters. */
const _LIVE_OUTPUT_CHARS = 20_000;

export interface TurnUpdatesOptions {
  root: string;
  /** The tool a call names (registered tools and MCP tools); undefined when none has that name. */
  toolNamed: (name: string) => ToolDefinition | undefined;
  files?: WorkspaceFiles;
  /** When set, live output is shown in the editor's terminal instead of as text. */
  mirror?: TerminalMirror;
  diagnose: (line: string) => void;
}

export interface TurnUpdates {
  /** The updates one event becomes (often none). */
  updates(event: AgentEvent): Promise<acp.SessionUpdate[]>;
  /** How the turn ended, once `done` was seen. */
  readonly stop: StopKind | undefined;
  /** The last `error` event's text. */
  readonly error: string | undefined;
  /** The context in use when the turn ended (tokens, the provider's count when it gave one) and the compaction threshold, once `done` was seen with them. */
  readonly context: { tokens: number; threshold: number } | undefined;
}

export function createTurnUpdates(options: TurnUpdatesOptions): TurnUpdates {
  const before = new Map<string, FileTexts>();
  const output = new Map<string, string>();
  let stop: StopKind | undefined;
  let error: string | undefined;
  let context: { tokens: number; threshold: number } | undefined;
  const text = (value: string): acp.ContentBlock => ({ type: "text", text: value });
  const mirrored = new Set<string>();
  const _endMirror = async (id: string): Promise<acp.ToolCallContent[]> => {
    mirrored.delete(id);
    const terminalId = await options.mirror?.end(id);
    return terminalId !== undefined ? [{ type: "terminal", terminalId }] : [];
  };

  return {
    get stop() {
      return stop;
    },
    get error() {
      return error;
    },
    get context() {
      return context;
    },
    async updates(event) {
      switch (event.type) {
        case "text":
          return [{ sessionUpdate: "agent_message_chunk", content: text(event.text) }];
        case "reasoning":
          return [{ sessionUpdate: "agent_thought_chunk", content: text(event.text) }];
        case "tool-call": {
          const tool = options.toolNamed(event.name);
          const locations = toolLocationsOf(tool, event.input, options.root);
          if (tool?.effect === "write") before.set(event.id, await snapshotFiles(locations, options.files));
          return [
            {
              sessionUpdate: "tool_call",
              toolCallId: event.id,
              title: toolTitleOf(event.name, tool, event.input, options.root),
              kind: toolKindOf(tool),
              status: "pending",
              locations,
              rawInput: event.input,
            },
          ];
        }
        case "tool-output": {
          const terminalId = await options.mirror?.write(event.id, event.chunk);
          if (terminalId !== undefined) {
            if (mirrored.has(event.id)) return [];
            mirrored.add(event.id);
            return [{ sessionUpdate: "tool_call_update", toolCallId: event.id, status: "in_progress", content: [{ type: "terminal", terminalId }] }];
          }
          const sofar = `${output.get(event.id) ?? ""}${event.chunk}`.slice(-_LIVE_OUTPUT_CHARS);
          output.set(event.id, sofar);
          return [{ sessionUpdate: "tool_call_update", toolCallId: event.id, status: "in_progress", content: [{ type: "content", content: text(sofar) }] }];
        }
        case "tool-result": {
          const snapshot = before.get(event.id);
          before.delete(event.id);
          output.delete(event.id);
          const diffs = snapshot ? await diffsSince(snapshot, options.files) : [];
          const terminal = await _endMirror(event.id);
          return [
            {
              sessionUpdate: "tool_call_update",
              toolCallId: event.id,
              status: "completed",
              content: [...terminal, { type: "content", content: text(event.output) }, ...diffs],
              rawOutput: { output: event.output },
            },
          ];
        }
        case "tool-error":
        case "tool-denied": {
          before.delete(event.id);
          output.delete(event.id);
          const why = event.type === "tool-error" ? event.error : event.reason;
          const terminal = await _endMirror(event.id);
          return [
            { sessionUpdate: "tool_call_update", toolCallId: event.id, status: "failed", content: [...terminal, { type: "content", content: text(why) }] },
          ];
        }
        case "state":
          return event.todos ? [planUpdate(event.todos)] : [];
        case "notice":
          options.diagnose(event.text);
          return [];
        case "mcp":
          options.diagnose(`MCP ${event.server}: ${event.status}${event.error ? ` (${event.error})` : ""}`);
          return [];
        case "error":
          error = event.error;
          options.diagnose(`error: ${event.error}`);
          return [];
        case "done":
          stop = event.stop;
          context = event.context ? { tokens: event.context.reportedTokens ?? event.context.tokens, threshold: event.context.threshold } : undefined;
          return [];
        default:
          return [];
      }
    },
  };
}

const _PLAN_STATUS: Record<Todo["status"], acp.PlanEntryStatus> = { pending: "pending", in_progress: "in_progress", done: "completed", blocked: "pending" };

/** The task list as an ACP plan: every entry, in order (a blocked task stays pending, marked so). */
export function planUpdate(todos: readonly Todo[]): acp.SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: todos.map((todo) => ({
      content: todo.status === "blocked" ? `${todo.content} (blocked)` : todo.content,
      priority: "medium",
      status: _PLAN_STATUS[todo.status],
    })),
  };
}

/** The ACP stop reason of a run's stop; undefined for an error (the prompt request fails with it instead). */
export function stopReasonOf(stop: StopKind | undefined): acp.StopReason | undefined {
  if (stop === "completed") return "end_turn";
  if (stop === "max-steps") return "max_turn_requests";
  if (stop === "aborted") return "cancelled";
  return undefined;
}
