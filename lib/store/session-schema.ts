/**
 * valibot schemas for the internal message model (lib/providers/messages.ts), used to validate
 * sessions as they load. Objects are loose: a field this version does not know is carried
 * through a load and save unchanged rather than dropped.
 */
import * as v from "valibot";
import type { Message } from "../providers/messages.ts";

const TextPartSchema = v.looseObject({ type: v.literal("text"), text: v.string() });

const ReasoningPartSchema = v.looseObject({
  type: v.literal("reasoning"),
  text: v.string(),
  protocol: v.picklist(["openai-chat", "openai-responses", "anthropic"]),
  signature: v.optional(v.string()),
  redactedData: v.optional(v.string()),
  itemId: v.optional(v.string()),
  encryptedContent: v.optional(v.string()),
  summary: v.optional(v.array(v.string())),
});

const ToolCallPartSchema = v.looseObject({
  type: v.literal("tool-call"),
  id: v.string(),
  name: v.string(),
  input: v.unknown(),
  inputError: v.optional(v.string()),
});

const ToolResultPartSchema = v.looseObject({
  type: v.literal("tool-result"),
  callId: v.string(),
  name: v.string(),
  output: v.string(),
  isError: v.optional(v.boolean()),
});

export const MessageSchema: v.GenericSchema<unknown, Message> = v.variant("role", [
  v.looseObject({ role: v.literal("user"), content: v.string() }),
  v.looseObject({
    role: v.literal("assistant"),
    parts: v.array(v.variant("type", [TextPartSchema, ReasoningPartSchema, ToolCallPartSchema])),
  }),
  v.looseObject({ role: v.literal("tool"), results: v.array(ToolResultPartSchema) }),
]);
