/**
 * A saved shiro session as the updates `session/load` replays before it answers: each user
 * message as a user message chunk, assistant text and reasoning as message and thought chunks,
 * each tool call as a `tool_call` followed by its outcome (`completed` or `failed`, with the
 * output the model read), and the task list as a `plan`. A compacted session replays what the
 * record still holds.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { Message } from "../../messages.ts";
import type { Todo } from "../../notebook.ts";
import type { ToolDefinition } from "../../tools/types.ts";
import { toolKindOf, toolLocationsOf, toolTitleOf } from "./tool-calls.ts";
import { planUpdate } from "./turn-updates.ts";

export function replaySession(
  messages: readonly Message[],
  todos: readonly Todo[],
  root: string,
  toolNamed: (name: string) => ToolDefinition | undefined,
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  const text = (value: string): acp.ContentBlock => ({ type: "text", text: value });
  for (const message of messages) {
    if (message.role === "user") {
      updates.push({ sessionUpdate: "user_message_chunk", content: text(message.content) });
      for (const image of message.images ?? [])
        updates.push({ sessionUpdate: "user_message_chunk", content: { type: "image", mimeType: image.mediaType, data: image.data } });
    } else if (message.role === "assistant") {
      for (const part of message.parts) {
        if (part.type === "text" && part.text) updates.push({ sessionUpdate: "agent_message_chunk", content: text(part.text) });
        else if (part.type === "reasoning" && part.text) updates.push({ sessionUpdate: "agent_thought_chunk", content: text(part.text) });
        else if (part.type === "tool-call") {
          const tool = toolNamed(part.name);
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: part.id,
            title: toolTitleOf(part.name, tool, part.input, root),
            kind: toolKindOf(tool),
            status: "pending",
            locations: toolLocationsOf(tool, part.input, root),
            rawInput: part.input,
          });
        }
      }
    } else {
      for (const result of message.results)
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: result.callId,
          status: result.isError ? "failed" : "completed",
          content: [{ type: "content", content: text(result.output) }],
        });
    }
  }
  if (todos.length > 0) updates.push(planUpdate(todos));
  return updates;
}
