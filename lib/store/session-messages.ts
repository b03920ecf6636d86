/**
 * A saved session's messages, read to take the text of a few of them (a search's snippets): the
 * file is parsed whole, but of the record only what every reader relies on is checked (format
 * version 1, the id it is named by, `messages` a list), and a message is checked against the
 * message schema (session-schema.ts) when it is asked for. A full load (sessions.ts
 * `loadSession`) checks every message and field, which for the forty candidates of a search in a
 * long history cost most of reading them; a message that does not pass is not used, the parts
 * of the record not read are not judged.
 */
import * as v from "valibot";
import type { Message } from "../messages.ts";
import { paths } from "../platform/paths.ts";
import { readJson } from "../state-file/json-file.ts";
import { SESSION_ID_PATTERN } from "./session-record.ts";
import { messageSchema } from "./session-schema.ts";

export interface SessionMessages {
  /** Message `index`, checked; undefined when there is none or it does not pass the schema. */
  at(index: number): Message | undefined;
  /** The messages as stored, unchecked: for reading one field of each (a result's `bookkeeping`). */
  readonly stored: readonly unknown[];
}

/** Undefined when the session is missing, unreadable, of another format version or holds another id. */
export function readSessionMessages(id: string): SessionMessages | undefined {
  const read = readJson(paths.session(id), { schema: _shell(), version: 1 });
  if (read.status !== "ok" || read.value.id !== id) return undefined;
  const stored = read.value.messages;
  return {
    stored,
    at(index) {
      const parsed = v.safeParse(messageSchema(), stored[index]);
      return parsed.success ? parsed.output : undefined;
    },
  };
}

let _shellSchema: v.GenericSchema<unknown, { id: string; messages: unknown[] }> | undefined;
function _shell(): v.GenericSchema<unknown, { id: string; messages: unknown[] }> {
  return (_shellSchema ??= v.looseObject({
    version: v.literal(1),
    id: v.pipe(v.string(), v.regex(SESSION_ID_PATTERN)),
    messages: v.array(v.unknown()),
  }));
}
