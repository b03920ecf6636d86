/**
 * The valibot schema that validates a session's messages as they load. The parts and messages
 * are declared once, in lib/messages.ts (their types are inferred from the same
 * entries); the schemas are loose: a field this version does not know is carried through a load
 * and save unchanged rather than dropped.
 */
import * as v from "valibot";
import { messageSchemas, type Message } from "../messages.ts";

let _message: v.GenericSchema<unknown, Message> | undefined;
/** Built at first use. */
export function messageSchema(): v.GenericSchema<unknown, Message> {
  const { user, assistant, tool } = messageSchemas();
  return (_message ??= v.variant("role", [user, assistant, tool]));
}
