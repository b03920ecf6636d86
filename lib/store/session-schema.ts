/**
 * The valibot schema that validates a session's messages as they load. The parts and messages
 * are declared once, in lib/messages.ts (their types are inferred from the same
 * entries); the schemas are loose: a field this version does not know is carried through a load
 * and save unchanged rather than dropped.
 */
import * as v from "valibot";
import { AssistantMessageSchema, ToolMessageSchema, UserMessageSchema, type Message } from "../messages.ts";

export const MessageSchema: v.GenericSchema<unknown, Message> = v.variant("role", [UserMessageSchema, AssistantMessageSchema, ToolMessageSchema]);
