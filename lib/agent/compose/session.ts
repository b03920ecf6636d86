/**
 * The session record a process runs in (new, `-c`, `-r`, or the one `shiro runs resume` names,
 * session-start.ts) and its writer. A new session reaches the disk only when `persist` is first
 * called (before its first run starts), so a run killed in its first moments still leaves a
 * session that `-c` resumes, and a process that never runs a turn leaves none. That first write
 * is not fsynced: it holds nothing the user wrote, and the run saves the session durably with
 * its prompt before the first request (run-driver.ts `saveNow`).
 */
import type { ResolvedConfig } from "../../config/config.ts";
import type { StartupNotice } from "../../notices.ts";
import type { SessionRecord } from "../../store/session-record.ts";
import { openSessionWriter, type SessionWriter } from "../../store/sessions.ts";
import { pickSession, type SessionChoice } from "../session-start.ts";

export interface SessionPart {
  session: SessionRecord;
  writer: SessionWriter;
  /** True when the session was read from disk. */
  resumed: boolean;
  /** Messages restored from an earlier session (0 for a new one). */
  resumedMessages: number;
  /** Writes a session that is not on disk yet; does nothing afterwards. */
  persist(): void;
}

export function openSessionPart(choice: SessionChoice, config: ResolvedConfig, notices: StartupNotice[]): SessionPart {
  const { session, resumed } = pickSession(choice, config, notices);
  const writer = openSessionWriter(session, { fresh: !resumed });
  if (resumed) notices.push({ code: "session-resumed", sessionId: session.id, messages: session.messages.length, tasks: session.notebook.todos.length });
  let persisted = resumed;
  return {
    session,
    writer,
    resumed,
    resumedMessages: resumed ? session.messages.length : 0,
    persist() {
      if (persisted) return;
      writer.save({ durable: false });
      persisted = true;
    },
  };
}
