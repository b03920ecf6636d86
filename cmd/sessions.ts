/**
 * `shiro sessions`: list this project's saved sessions (`--all`: every folder's), show one, and compact or uncompact one. Compacting
 * and uncompacting take the session's lease, so they refuse a session open in a live process.
 */
import { defineCommand } from "citty";
import { findSession, openSessionWriter } from "../lib/store/sessions.ts";
import type { SessionRecord } from "../lib/store/session-record.ts";
import { listFolderSessions, renderSessionRows } from "../lib/ui/slash/session-list.ts";
import { writeOut, writeErr } from "../lib/ui/output.ts";

const _print = (text: string) => writeOut(`${text}\n`);

const _jsonFlag = { json: { type: "boolean", description: "print JSON instead of text" } } as const;

export default defineCommand({
  meta: { name: "sessions", description: "list this project's saved sessions, newest first, with their folder (--all: every folder), or show one" },
  args: { ..._jsonFlag, all: { type: "boolean", description: "list the sessions of every folder, not only this project's" } },
  subCommands: {
    show: defineCommand({
      meta: { description: "print one session: metadata, usage, task list and last exchange" },
      args: { id: { type: "positional", description: "session id or a unique prefix of it" }, ..._jsonFlag },
      async run({ args }) {
        const session = findSession(String(args.id));
        const { describeContext, renderContextLine, renderSessionDetails } = await import("../lib/ui/session-details.ts");
        const context = describeContext(session);
        _print(args.json ? JSON.stringify({ ...session, context }, null, 2) : `${renderSessionDetails(session)}\n${renderContextLine(context)}`);
      },
    }),
    compact: defineCommand({
      meta: { description: "replace the transcript with the model's summary (the messages are kept in the session's archive)" },
      args: {
        id: { type: "positional", description: "session id or a unique prefix of it" },
        focus: { type: "string", description: "what the summary should pay most attention to" },
      },
      async run({ args }) {
        const { resolveConfig } = await import("../lib/config/config.ts");
        const { completeOnce } = await import("../lib/providers/complete.ts");
        const { compactSession } = await import("../lib/agent/session-compaction.ts");
        const config = resolveConfig();
        await _withWriter(String(args.id), async (session, save) => {
          const outcome = await compactSession(
            session,
            (system, prompt, signal) => completeOnce(config, system, prompt, signal),
            args.focus ? String(args.focus) : undefined,
          );
          if (outcome.changed) save();
          _print(outcome.message);
        });
      },
    }),
    uncompact: defineCommand({
      meta: { description: "put the full history back on the wire (undo a compaction)" },
      args: { id: { type: "positional", description: "session id or a unique prefix of it" } },
      async run({ args }) {
        const { uncompactSession } = await import("../lib/agent/session-compaction.ts");
        await _withWriter(String(args.id), async (session, save) => {
          const outcome = uncompactSession(session);
          if (outcome.changed) save();
          _print(outcome.message);
        });
      },
    }),
  },
  run({ args }) {
    const listing = listFolderSessions(process.cwd(), args.all === true);
    for (const notice of listing.notices) writeErr(`shiro: ${notice}\n`);
    if (args.json) return _print(JSON.stringify(listing.sessions, null, 2));
    _print(renderSessionRows(listing).replace("/sessions all", "shiro sessions --all"));
  },
});

/** Runs `fn` holding the session's one writer (its lease); `save` writes now. */
async function _withWriter(id: string, fn: (session: SessionRecord, save: () => void) => Promise<void>): Promise<void> {
  const writer = openSessionWriter(findSession(id));
  try {
    await fn(writer.session, () => writer.save());
  } finally {
    writer.close();
  }
}
